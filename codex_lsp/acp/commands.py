"""The slash commands an ACP session offers (`available_commands_update`) and how each runs.

`/review` reviews the uncommitted changes (or what follows the command, as instructions) in
the session's own thread; `/compact` summarizes the conversation so far to free the context.
Each runs as a turn of the thread, so the prompt that typed it ends when that turn does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from codex_lsp.acp.port import Session

COMMANDS = {
    "review": "Review the uncommitted changes, or what you describe after the command",
    "compact": "Summarize the conversation so far to free the context window",
}

Call = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


def available_commands_update() -> dict[str, Any]:
    listed = []
    for name, description in COMMANDS.items():
        command: dict[str, Any] = {"name": name, "description": description}
        if name == "review":
            command["input"] = {"hint": "what to review (optional)"}
        listed.append(command)
    return {"sessionUpdate": "available_commands_update", "availableCommands": listed}


def parse(blocks: list[dict[str, Any]]) -> tuple[str, str] | None:
    """(command, the rest of its line) when the prompt is one of `COMMANDS`."""
    if not blocks or blocks[0].get("type") != "text":
        return None
    text = str(blocks[0].get("text", "")).strip()
    if not text.startswith("/"):
        return None
    name, _, rest = text[1:].partition(" ")
    return (name, rest.strip()) if name in COMMANDS else None


async def run(command: tuple[str, str], session: Session, call: Call) -> None:
    name, rest = command
    if name == "compact":
        await call("thread/compact/start", {"threadId": session.id})
        return
    target: dict[str, Any] = {"type": "uncommittedChanges"}
    if rest:
        target = {"type": "custom", "instructions": rest}
    await call("review/start", {"threadId": session.id, "target": target, "delivery": "inline"})
