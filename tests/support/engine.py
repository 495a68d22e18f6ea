"""Drive a real `Codex` engine against the scripted model server, as a UI would."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import anyio

from codex_lsp.engine.bootstrap import load_services
from codex_lsp.engine.codex import Codex
from codex_lsp.protocol.core.events import Event
from codex_lsp.protocol.core.inputs import TextInput
from codex_lsp.protocol.core.ops import ConfigureSession, ExecApproval, PatchApproval, UserInputOp
from tests.support.scripted_builders import (
    custom_tool_call_response,
    function_call_response,
    text_response,
)

EVENT_TIMEOUT_S = 20.0


def write_config(
    home: Path,
    base_url: str,
    *,
    wire_api: str = "responses",
    approval_policy: str = "on-request",
    sandbox_mode: str = "workspace-write",
    model: str = "gpt-5.4",
    extra: str = "",
    stream_idle_timeout_ms: int = 5_000,
) -> Path:
    """A config.toml whose provider is the scripted server, with quick retries."""
    home.mkdir(parents=True, exist_ok=True)
    path = home / "config.toml"
    path.write_text(
        f'model = "{model}"\n'
        'model_provider = "scripted"\n'
        f'approval_policy = "{approval_policy}"\n'
        f'sandbox_mode = "{sandbox_mode}"\n'
        f"{extra}\n"
        "[model_providers.scripted]\n"
        'name = "Scripted"\n'
        f'base_url = "{base_url}"\n'
        f'wire_api = "{wire_api}"\n'
        "request_max_retries = 2\n"
        "stream_max_retries = 2\n"
        f"stream_idle_timeout_ms = {stream_idle_timeout_ms}\n"
    )
    return path


def make_git_repo(path: Path, files: dict[str, str] | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name, text in (files or {}).items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@e",
        "PATH": "/usr/bin:/bin",
    }
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=path, check=True, env=env)
    if files:
        subprocess.run(["git", "add", "-A"], cwd=path, check=True, env=env)
        subprocess.run(["git", "commit", "-qm", "initial"], cwd=path, check=True, env=env)
    return path


def enqueue_two_turn_flow(
    server: Any, ws: Path, *, command: str, justification: str, patch: str, answer: str
) -> None:
    """The seeds' first flow: an escalated command to approve, a patch, then an answer."""
    server.enqueue(
        function_call_response(
            "exec_command",
            {
                "cmd": command,
                "workdir": str(ws),
                "sandbox_permissions": "require_escalated",
                "justification": justification,
            },
            call_id="call_exec",
            response_id="resp_1",
        )
    )
    server.enqueue(
        custom_tool_call_response("apply_patch", patch, call_id="call_patch", response_id="resp_2")
    )
    server.enqueue(text_response(answer, response_id="resp_3"))


class EngineDriver:
    """A Codex plus the events it sent, with helpers to wait for and answer them."""

    def __init__(self, codex: Codex) -> None:
        self.codex = codex
        self.events: list[Event] = []

    async def next(self) -> Event:
        with anyio.fail_after(EVENT_TIMEOUT_S):
            event = await self.codex.next_event()
        self.events.append(event)
        return event

    async def until(self, kinds: str | Iterable[str], *, sub_id: str | None = None) -> Event:
        wanted = {kinds} if isinstance(kinds, str) else set(kinds)
        while True:
            event = await self.next()
            if event.msg.type in wanted and (sub_id is None or event.id == sub_id):
                return event

    async def configure(self, **fields: Any) -> Event:
        await self.codex.submit(ConfigureSession(**fields))
        return await self.until(("session_configured", "error"))

    async def send(self, text: str, **fields: Any) -> str:
        return await self.codex.submit(UserInputOp(items=[TextInput(text=text)], **fields))

    async def run_turn(
        self, text: str, *, approvals: list[str] | None = None, **fields: Any
    ) -> list[Event]:
        """Send `text`, answer approvals in order, return the turn's events up to its end."""
        answers = list(approvals or [])
        start = len(self.events)
        sub_id = await self.send(text, **fields)
        while True:
            event = await self.next()
            kind = event.msg.type
            if kind == "exec_approval_request":
                await self.codex.submit(ExecApproval(id=event.msg.call_id, decision=answers.pop(0)))
            elif kind == "apply_patch_approval_request":
                await self.codex.submit(
                    PatchApproval(id=event.msg.call_id, decision=answers.pop(0))
                )
            elif kind in ("task_complete", "turn_aborted") and event.id == sub_id:
                return self.events[start:]

    def of_type(self, kind: str, events: list[Event] | None = None) -> list[Any]:
        return [
            event.msg
            for event in (events if events is not None else self.events)
            if event.msg.type == kind
        ]


class running_engine:
    """`async with running_engine(home) as driver:` a configured-later engine."""

    def __init__(self, home: Path, *, workspace: Any = None) -> None:
        self._home = home
        self._workspace = workspace
        self._codex: Codex | None = None

    async def __aenter__(self) -> EngineDriver:
        services = load_services(codex_home=self._home)
        self._codex = Codex(services, workspace=self._workspace)
        await self._codex.__aenter__()
        return EngineDriver(self._codex)

    async def __aexit__(self, *exc: Any) -> None:
        assert self._codex is not None
        await self._codex.__aexit__(*exc)
        if self._codex.services.http is not None:
            await self._codex.services.http.aclose()
