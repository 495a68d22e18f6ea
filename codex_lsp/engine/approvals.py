"""Waiting for the user: pending approvals and answers, and what was approved for the session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

import anyio

from codex_lsp.engine.exec_rules import ExecRules, parse_rule
from codex_lsp.protocol.core.decisions import ReviewDecision

T = TypeVar("T")


class TurnAbortRequested(Exception):
    """The user chose `abort`: the whole turn ends as if interrupted."""


class Pending(Generic[T]):
    """One answer the engine is waiting for."""

    def __init__(self) -> None:
        self._event = anyio.Event()
        self._value: T | None = None

    def resolve(self, value: T) -> None:
        if not self._event.is_set():
            self._value = value
            self._event.set()

    async def wait(self) -> T:
        await self._event.wait()
        assert self._value is not None
        return self._value


class PendingRequests(Generic[T]):
    """Requests keyed by id; an answer for an unknown id is reported, never fatal."""

    def __init__(self) -> None:
        self._pending: dict[str, Pending[T]] = {}

    async def ask(self, key: str) -> T:
        pending: Pending[T] = Pending()
        self._pending[key] = pending
        try:
            return await pending.wait()
        finally:
            self._pending.pop(key, None)

    def answer(self, key: str, value: T) -> bool:
        pending = self._pending.get(key)
        if pending is None:
            return False
        pending.resolve(value)
        return True

    def keys(self) -> list[str]:
        return list(self._pending)


@dataclass(frozen=True)
class RememberedApproval:
    """One `approved_for_session` decision: a command (or MCP tool) by its key, or a file; or
    an allow prefix rule, a `command` keyed by its line in the rules file."""

    kind: Literal["command", "file"]
    key: str
    description: str


class ApprovalCache:
    """Decisions the user made `approved_for_session`: commands by key, patches by path.

    They can be listed and taken back: a forgotten decision is asked again next time. The
    allow prefix rules of `rules` are listed with them, and taking one back revokes the rule.
    """

    def __init__(self, rules: ExecRules | None = None) -> None:
        self._rules = rules
        # Key -> what the user approved, as they saw it.
        self._commands: dict[str, str] = {}
        self._paths: set[str] = set()

    def command_approved(self, key: str) -> bool:
        return key in self._commands

    def approve_command(self, key: str, description: str | None = None) -> None:
        self._commands[key] = description or key

    def paths_approved(self, paths: list[str]) -> bool:
        return bool(paths) and all(path in self._paths for path in paths)

    def approve_paths(self, paths: list[str]) -> None:
        self._paths.update(paths)

    def remembered(self) -> list[RememberedApproval]:
        commands = [RememberedApproval("command", k, d) for k, d in self._commands.items()]
        files = [RememberedApproval("file", path, path) for path in sorted(self._paths)]
        prefixes = [
            RememberedApproval("command", rule.line(), f"commands starting with {rule.shown()}")
            for rule in (self._rules.rules() if self._rules is not None else [])
            if rule.decision == "allow"
        ]
        return commands + prefixes + files

    def forget(self, kind: str, key: str) -> bool:
        """Take back one decision; False when there was none."""
        if kind == "command":
            rule = parse_rule(key) if self._rules is not None else None
            if rule is not None and self._rules is not None:
                return self._rules.revoke(rule)
            return self._commands.pop(key, None) is not None
        if kind == "file" and key in self._paths:
            self._paths.discard(key)
            return True
        return False


ApprovalWaiters = PendingRequests[ReviewDecision]
AnswerWaiters = PendingRequests[dict[str, Any]]
