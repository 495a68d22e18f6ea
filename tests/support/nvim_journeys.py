"""What the Neovim journeys share: a workspace and CODEX_HOME on the scripted model, the
check that a suite passed, and readers for what the model was sent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.engine import make_git_repo, write_config
from tests.support.nvim import NvimRun
from tests.support.scripted_model import ScriptedModelServer

APP = 'def main():\n    print("hi")\n\nmain()\n'


def workspace(
    tmp_path: Path,
    scripted_model: ScriptedModelServer,
    files: dict[str, str] | None = None,
    **config: Any,
) -> tuple[Path, Path]:
    """A git repository (app.py unless `files` says otherwise) and a CODEX_HOME whose config
    points at the scripted model."""
    home = tmp_path / "codex-home"
    ws = make_git_repo(tmp_path / "ws", files if files is not None else {"app.py": APP})
    write_config(home, scripted_model.base_url, **config)
    return home, ws


def check(run: NvimRun) -> None:
    assert run.returncode == 0, run.report()
    assert "PASS " in run.stdout, run.report()


def user_texts(request_body: dict[str, Any]) -> list[str]:
    """Every text part of every user message in one request to the model."""
    return [
        part["text"]
        for item in request_body["input"]
        if item.get("role") == "user"
        for part in item.get("content") or []
        if part.get("type") == "input_text"
    ]


def turn_texts(request_body: dict[str, Any]) -> list[str]:
    """What the latest turn told the model: its user message, then the instructions after it
    (the context and task the engine words from an editor's request)."""
    items = request_body["input"]
    last = max(n for n, item in enumerate(items) if item.get("role") == "user")
    return [
        part["text"]
        for item in items[last:]
        if item.get("role") in ("user", "developer")
        for part in item.get("content") or []
        if part.get("type") == "input_text"
    ]


def tool_output(request_body: dict[str, Any], call_id: str) -> str:
    for item in request_body["input"]:
        if item.get("type", "").endswith("_output") and item.get("call_id") == call_id:
            output = item["output"]
            return output if isinstance(output, str) else str(output)
    raise AssertionError(f"no output for {call_id} in the request")
