"""Waiting for the user: pending approvals and answers, and what was approved for the session."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

import anyio

from codex_lsp.protocol.decisions import ReviewDecision

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


class ApprovalCache:
    """Decisions the user made `approved_for_session`: commands by key, patches by path."""

    def __init__(self) -> None:
        self._commands: set[str] = set()
        self._paths: set[str] = set()

    def command_approved(self, key: str) -> bool:
        return key in self._commands

    def approve_command(self, key: str) -> None:
        self._commands.add(key)

    def paths_approved(self, paths: list[str]) -> bool:
        return bool(paths) and all(path in self._paths for path in paths)

    def approve_paths(self, paths: list[str]) -> None:
        self._paths.update(paths)


ApprovalWaiters = PendingRequests[ReviewDecision]
AnswerWaiters = PendingRequests[dict[str, Any]]
