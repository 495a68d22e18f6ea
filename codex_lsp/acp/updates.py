"""v2 notifications and thread items as ACP `session/update` payloads (plain dicts).

`SessionUpdates` follows one session's stream: message and reasoning deltas become chunks
(their item id is the `messageId`), commands, patches, MCP calls and searches become tool calls
(the item id is the `toolCallId`) whose status and content follow the item, `update_plan`
becomes a `plan`, token counts become `usage_update`. A command's output is sent whole in each
update, as ACP content replaces what a tool call showed before.

`item_updates` gives what one finished item shows, for replaying a thread's history.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from typing import Any

from codex_lsp.acp.diffs import apply_unified

Update = dict[str, Any]

_STATUS = {
    "inProgress": "in_progress",
    "completed": "completed",
    "failed": "failed",
    "declined": "failed",
}
_PLAN_STATUS = {"pending": "pending", "inProgress": "in_progress", "completed": "completed"}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _chunk(kind: str, text: str, message_id: str | None = None) -> Update:
    update: Update = {"sessionUpdate": kind, "content": _text(text)}
    if message_id:
        update["messageId"] = message_id
    return update


def _fenced(output: str) -> list[dict[str, Any]]:
    if not output:
        return []
    fence = "```"
    while fence in output:
        fence += "`"
    return [{"type": "content", "content": _text(f"{fence}\n{output.rstrip()}\n{fence}")}]


def _command_kind(actions: list[dict[str, Any]], cwd: str) -> tuple[str, list[dict[str, Any]]]:
    """The tool kind of a command from what the parser saw it do, and the files it reads
    (absolute, as ACP locations are)."""
    kinds = {action.get("type") for action in actions}
    paths = [
        {"path": os.path.join(cwd, a["path"])}
        for a in actions
        if a.get("type") == "read" and a.get("path")
    ]
    if not actions or "unknown" in kinds:
        return "execute", paths
    if kinds == {"read"} or kinds <= {"read", "listFiles"}:
        return "read", paths
    if kinds <= {"read", "listFiles", "search"}:
        return "search", paths
    return "execute", paths


def display_command(command: str) -> str:
    """The script of `/bin/sh -lc '...'`, as the user would have typed it."""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    if (
        len(words) == 3
        and os.path.basename(words[0]) in ("sh", "bash", "zsh")
        and words[1]
        in (
            "-lc",
            "-c",
        )
    ):
        return words[2]
    return command


def _change_path(change: dict[str, Any]) -> str:
    kind = change.get("kind") or {}
    return str(kind.get("move_path") or change.get("path"))


def diff_content(
    changes: list[dict[str, Any]], read_old: Callable[[str], str | None]
) -> list[dict[str, Any]]:
    """ACP `diff` content for a patch's changes; `read_old` gives a file's text before it."""
    content: list[dict[str, Any]] = []
    for change in changes:
        kind = (change.get("kind") or {}).get("type")
        path, diff = str(change.get("path")), str(change.get("diff") or "")
        if kind == "add":
            content.append({"type": "diff", "path": path, "oldText": None, "newText": diff})
            continue
        old = read_old(path)
        if kind == "delete":
            text = old if old is not None else diff
            content.append({"type": "diff", "path": path, "oldText": text, "newText": ""})
            continue
        new = apply_unified(old, diff) if old is not None else None
        if old is None or new is None:
            content.append({"type": "content", "content": _text(diff)})
            continue
        item: dict[str, Any] = {"type": "diff", "path": _change_path(change), "oldText": old}
        item["newText"] = new
        content.append(item)
    return content


def tool_call_start(item: dict[str, Any], read_old: Callable[[str], str | None]) -> Update | None:
    """The `tool_call` announcing an item that is a tool call; None for other items."""
    kind = item.get("type")
    call: Update = {"sessionUpdate": "tool_call", "toolCallId": item["id"]}
    status = _STATUS.get(str(item.get("status")), "in_progress")
    if kind == "commandExecution":
        tool_kind, locations = _command_kind(
            item.get("commandActions") or [], str(item.get("cwd") or "")
        )
        command = str(item.get("command", ""))
        call.update(title=display_command(command), kind=tool_kind, status=status)
        call["rawInput"] = {"command": command, "cwd": item.get("cwd")}
        if locations:
            call["locations"] = locations
        if item.get("aggregatedOutput"):
            call["content"] = _fenced(str(item["aggregatedOutput"]))
    elif kind == "fileChange":
        changes = item.get("changes") or []
        paths = [_change_path(change) for change in changes]
        names = ", ".join(os.path.basename(path) for path in paths)
        call.update(title=f"Edit {names}" if names else "Edit files", kind="edit", status=status)
        call["locations"] = [{"path": path} for path in paths]
        call["content"] = diff_content(changes, read_old)
        call["rawInput"] = {"changes": changes}
    elif kind == "mcpToolCall":
        call.update(title=f"{item.get('server')}: {item.get('tool')}", kind="other", status=status)
        call["rawInput"] = item.get("arguments")
    elif kind == "webSearch":
        action = item.get("action") or {}
        fetches = action.get("type") in ("openPage", "findInPage")
        title = action.get("url") if fetches else item.get("query")
        call.update(title=str(title or "Web search"), kind="fetch" if fetches else "search")
        call["status"] = "in_progress"
    elif kind == "imageView":
        call.update(title=f"View {item.get('path')}", kind="read", status="completed")
        call["locations"] = [{"path": str(item.get("path"))}]
    elif kind == "contextCompaction":
        call.update(title="Compact conversation", kind="think", status="in_progress")
    else:
        return None
    return call


def tool_call_end(item: dict[str, Any]) -> Update | None:
    """The `tool_call_update` that settles a finished tool-call item."""
    kind = item.get("type")
    update: Update = {"sessionUpdate": "tool_call_update", "toolCallId": item["id"]}
    if kind == "commandExecution":
        update["status"] = _STATUS.get(str(item.get("status")), "completed")
        output = str(item.get("aggregatedOutput") or "")
        update["content"] = _fenced(output)
        update["rawOutput"] = {"exitCode": item.get("exitCode"), "output": output}
    elif kind == "fileChange":
        update["status"] = _STATUS.get(str(item.get("status")), "completed")
    elif kind == "mcpToolCall":
        update["status"] = _STATUS.get(str(item.get("status")), "completed")
        result, error = item.get("result"), item.get("error")
        if error:
            update["content"] = [{"type": "content", "content": _text(str(error.get("message")))}]
        elif result:
            blocks = [b for b in result.get("content") or [] if isinstance(b, dict)]
            update["content"] = [
                {"type": "content", "content": block} for block in blocks if block.get("type")
            ]
            update["rawOutput"] = result
    elif kind in ("webSearch", "contextCompaction"):
        update["status"] = "completed"
    else:
        return None
    return update


def item_updates(item: dict[str, Any]) -> list[Update]:
    """What a finished item shows when a thread's history is replayed."""
    kind = item.get("type")
    if kind == "userMessage":
        chunks = [_user_chunk(part) for part in item.get("content") or []]
        return [{**chunk, "messageId": item.get("id")} for chunk in chunks if chunk]
    if kind == "agentMessage":
        return [_chunk("agent_message_chunk", str(item.get("text", "")), item.get("id"))]
    if kind == "plan":
        return [_chunk("agent_message_chunk", str(item.get("text", "")), item.get("id"))]
    if kind == "exitedReviewMode":
        return [_chunk("agent_message_chunk", str(item.get("review", "")), item.get("id"))]
    if kind == "reasoning":
        text = "\n\n".join(item.get("summary") or [])
        return [_chunk("agent_thought_chunk", text, item.get("id"))] if text else []
    # The files have changed since: a replayed patch shows what it added, and its diff.
    start = tool_call_start(item, lambda _path: None)
    if start is None:
        return []
    end = tool_call_end(item)
    return [start, end] if end is not None else [start]


def _user_chunk(part: dict[str, Any]) -> Update:
    kind = part.get("type")
    if kind == "text":
        return _chunk("user_message_chunk", str(part.get("text", "")))
    if kind == "image" and part.get("url", "").startswith("data:"):
        header, _, data = str(part["url"]).partition(",")
        mime = header[len("data:") :].split(";")[0]
        return {
            "sessionUpdate": "user_message_chunk",
            "content": {"type": "image", "data": data, "mimeType": mime},
        }
    if kind in ("mention", "localImage", "skill"):
        path = str(part.get("path", ""))
        name = str(part.get("name") or os.path.basename(path))
        link = {"type": "resource_link", "uri": f"file://{path}", "name": name}
        return {"sessionUpdate": "user_message_chunk", "content": link}
    return {}


class SessionUpdates:
    """Follows one session's v2 notifications and says what each shows the ACP client."""

    def __init__(self, read_old: Callable[[str], str | None]) -> None:
        self._read_old = read_old
        self._output: dict[str, str] = {}

    def translate(self, method: str, params: dict[str, Any]) -> list[Update]:
        if method == "item/agentMessage/delta":
            return [_chunk("agent_message_chunk", params["delta"], params.get("itemId"))]
        if method in ("item/reasoning/summaryTextDelta", "item/reasoning/textDelta"):
            if method == "item/reasoning/textDelta":
                return []  # raw reasoning stays private; its summary is what is shown
            return [_chunk("agent_thought_chunk", params["delta"], params.get("itemId"))]
        if method == "item/reasoning/summaryPartAdded" and params.get("summaryIndex", 0) > 0:
            return [_chunk("agent_thought_chunk", "\n\n", params.get("itemId"))]
        if method == "item/commandExecution/outputDelta":
            item_id = params["itemId"]
            self._output[item_id] = self._output.get(item_id, "") + params["delta"]
            update: Update = {"sessionUpdate": "tool_call_update", "toolCallId": item_id}
            update["content"] = _fenced(self._output[item_id])
            return [update]
        if method == "item/started":
            start = tool_call_start(params["item"], self._read_old)
            return [start] if start is not None else []
        if method == "item/completed":
            return self._completed(params["item"])
        if method == "turn/plan/updated":
            entries = [
                {
                    "content": step["step"],
                    "priority": "medium",
                    "status": _PLAN_STATUS.get(step["status"], "pending"),
                }
                for step in params.get("plan") or []
            ]
            return [{"sessionUpdate": "plan", "entries": entries}]
        if method == "thread/tokenUsage/updated":
            usage = params["tokenUsage"]
            window = usage.get("modelContextWindow")
            if not window:
                return []
            used = min(int(usage["last"]["totalTokens"]), int(window))
            return [{"sessionUpdate": "usage_update", "used": used, "size": int(window)}]
        if method == "thread/name/updated" and params.get("threadName"):
            return [{"sessionUpdate": "session_info_update", "title": params["threadName"]}]
        return []

    def _completed(self, item: dict[str, Any]) -> list[Update]:
        kind = item.get("type")
        self._output.pop(str(item.get("id")), None)
        if kind == "plan":
            # The plan of Plan mode is the turn's answer.
            return [_chunk("agent_message_chunk", str(item.get("text", "")), item.get("id"))]
        if kind == "exitedReviewMode":
            # A review's findings, as the engine writes them out, are the turn's answer.
            return [_chunk("agent_message_chunk", str(item.get("review", "")), item.get("id"))]
        end = tool_call_end(item)
        return [end] if end is not None else []
