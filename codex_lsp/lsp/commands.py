"""Editor commands (`workspace/executeCommand`) for editors that know no `codex/*` methods.

* `codex.newThread` `[{cwd?, model?}]`: start a thread (cwd defaults to the workspace root);
  returns the `thread/start` result.
* `codex.ask` `[{threadId?, prompt, uri, range?}]`: start a turn whose text is the prompt plus
  the selected range of the document (its unsaved text) as context; starts a thread first
  when no `threadId` is given. Returns `{threadId, turn}`.
* `codex.edit` `[{threadId?, instruction, uri, range}]`: like `codex.ask`, but the turn asks
  for the selected lines to be changed in place following the instruction; the change comes
  back as a file-change approval and lands as a workspace edit.
* `codex.interrupt` `[{threadId}]`: interrupt that thread's running turn, if any; returns
  `{interrupted: bool}`.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.protocol import default_converter
from pygls.uris import to_fs_path

from codex_lsp.lsp.protocol import plain_handler

if TYPE_CHECKING:
    from codex_lsp.lsp.engine_host import EngineHost
    from codex_lsp.lsp.progress import TurnProgressTracker
    from codex_lsp.lsp.server import CodexLanguageServer

NEW_THREAD = "codex.newThread"
ASK = "codex.ask"
EDIT = "codex.edit"
INTERRUPT = "codex.interrupt"
COMMANDS = (NEW_THREAD, ASK, EDIT, INTERRUPT)

# How an inline edit is asked for; the editors send only the user's instruction.
EDIT_REQUEST = (
    "Change the code below in place, following this instruction: {instruction}\n"
    "Edit only these lines unless the instruction needs more; make the change with "
    "apply_patch and keep the surrounding style."
)


@cache
def _converter() -> Any:
    return default_converter()


def command_options(command: str, arguments: tuple[object, ...]) -> dict[str, Any]:
    if not arguments:
        return {}
    first = arguments[0]
    if not isinstance(first, dict):
        raise JsonRpcInvalidParams(f"{command}: the argument must be an object")
    return first


def string_option(options: dict[str, Any], key: str, command: str, *, required: bool) -> str | None:
    value = options.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        raise JsonRpcInvalidParams(f"{command}: '{key}' must be a non-empty string")
    return value


def context_block(
    prompt: str, path: str, text: str, language: str, lines: tuple[int, int] | None
) -> str:
    """The turn text for `codex.ask`: the prompt, then the selection fenced as context."""
    where = f"lines {lines[0]}-{lines[1]} of {path}" if lines else path
    fence = "```"
    while fence in text:  # a selection holding a fence must not close ours early
        fence += "`"
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{prompt}\n\nContext from {where}:\n{fence}{language}\n{body}{fence}\n"


def workspace_cwd(server: CodexLanguageServer, near: str | None = None) -> str:
    """The workspace folder holding `near`, else the root, else the server's cwd."""
    try:
        workspace = server.workspace
    except RuntimeError:
        return os.getcwd()
    folders = [to_fs_path(f.uri) for f in workspace.folders.values()]
    if near is not None:
        holding = [
            f for f in folders if f and (near + os.sep).startswith(f.rstrip(os.sep) + os.sep)
        ]
        if holding:
            return max(holding, key=len)
    if workspace.root_path:
        return workspace.root_path
    if folders and folders[0]:
        return folders[0]
    return os.path.dirname(near) if near else os.getcwd()


class Commands:
    def __init__(
        self, server: CodexLanguageServer, host: EngineHost, progress: TurnProgressTracker
    ) -> None:
        self._server = server
        self._host = host
        self._progress = progress

    def register(self, server: CodexLanguageServer) -> None:
        server.command(NEW_THREAD)(plain_handler(self.new_thread))
        server.command(ASK)(plain_handler(self.ask))
        server.command(EDIT)(plain_handler(self.edit))
        server.command(INTERRUPT)(plain_handler(self.interrupt))

    def _default_cwd(self, near: str | None = None) -> str:
        return workspace_cwd(self._server, near)

    async def new_thread(self, *arguments: object) -> Any:
        options = command_options(NEW_THREAD, arguments)
        params: dict[str, Any] = {
            "cwd": string_option(options, "cwd", NEW_THREAD, required=False) or self._default_cwd()
        }
        model = string_option(options, "model", NEW_THREAD, required=False)
        if model:
            params["model"] = model
        return await self._host.call("thread/start", params)

    async def ask(self, *arguments: object) -> Any:
        options = command_options(ASK, arguments)
        prompt = string_option(options, "prompt", ASK, required=True)
        assert prompt is not None
        return await self._turn_on_selection(ASK, options, prompt)

    async def edit(self, *arguments: object) -> Any:
        options = command_options(EDIT, arguments)
        instruction = string_option(options, "instruction", EDIT, required=True)
        if options.get("range") is None:
            raise JsonRpcInvalidParams(f"{EDIT}: 'range' is required")
        prompt = EDIT_REQUEST.format(instruction=instruction)
        return await self._turn_on_selection(EDIT, options, prompt)

    async def _turn_on_selection(self, command: str, options: dict[str, Any], prompt: str) -> Any:
        """Start a turn (and a thread if none is named) on `prompt` plus the selection."""
        uri = string_option(options, "uri", command, required=True)
        thread_id = string_option(options, "threadId", command, required=False)
        assert uri is not None
        path = to_fs_path(uri) or uri
        text, lines, language = self._selection(uri, options.get("range"))
        if thread_id is None:
            started = await self._host.call("thread/start", {"cwd": self._default_cwd(path)})
            thread_id = started["thread"]["id"]
        cwd = self._host_cwd(thread_id) or self._default_cwd(path)
        shown = os.path.relpath(path, cwd) if path.startswith(cwd.rstrip(os.sep) + os.sep) else path
        turn_text = context_block(prompt, shown, text, language, lines)
        result = await self._host.call(
            "turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": turn_text}]}
        )
        return {"threadId": thread_id, "turn": result.get("turn")}

    async def interrupt(self, *arguments: object) -> Any:
        options = command_options(INTERRUPT, arguments)
        thread_id = string_option(options, "threadId", INTERRUPT, required=True)
        assert thread_id is not None
        turn_id = string_option(options, "turnId", INTERRUPT, required=False)
        turn_id = turn_id or self._progress.running.get(thread_id)
        if turn_id is None:
            return {"interrupted": False}
        await self._host.interrupt(thread_id, turn_id)
        return {"interrupted": True}

    def _host_cwd(self, thread_id: str) -> str | None:
        api = self._host.api
        try:
            cwd = api.thread_cwd(thread_id) if api is not None else None
        except Exception:
            return None
        return str(cwd) if cwd is not None else None

    def _selection(self, uri: str, raw_range: Any) -> tuple[str, tuple[int, int] | None, str]:
        """The text of `range` in the document (open buffer first), its 1-based lines, language."""
        try:
            doc = self._server.workspace.get_text_document(uri)
            source = doc.source
        except (OSError, UnicodeDecodeError) as err:
            raise JsonRpcInvalidParams(f"{ASK}: cannot read {uri}: {err}") from None
        language = doc.language_id or Path(doc.path or "").suffix.lstrip(".")
        if raw_range is None:
            return source, None, language
        try:
            selected = _converter().structure(raw_range, types.Range)
        except Exception:
            raise JsonRpcInvalidParams(f"{ASK}: 'range' must be an LSP Range") from None
        text = doc.text_in_client_range(selected)
        start, end = selected.start.line + 1, selected.end.line + 1
        if selected.end.character == 0 and end > start:
            end -= 1  # a selection ending at a line start does not include that line
        return text, (start, end), language
