"""A thread's goal: `thread/goal/get`, `thread/goal/set` and `thread/goal/clear`.

A loaded thread's engine holds the goal and changes it (`set_thread_goal`,
`clear_thread_goal`); its events become `thread/goal/updated` and `thread/goal/cleared`. A
thread that is not loaded answers `get` from its rollout, where the goal's events are kept;
changing it loads nothing, so `set` and `clear` ask for the thread to be resumed first.
"""

from __future__ import annotations

from typing import Any

import anyio

from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.api.port import INVALID_REQUEST, ApiError
from codex_lsp.api.threads import store as thread_store
from codex_lsp.api.threads.loaded import LoadedThread
from codex_lsp.api.threads.replies import ThreadGone
from codex_lsp.protocol.core.goals import (
    ClearThreadGoal,
    SetThreadGoal,
    ThreadGoalClearedEvent,
    ThreadGoalUpdatedEvent,
)
from codex_lsp.protocol.threads.goals import (
    THREAD_GOAL_CLEAR,
    THREAD_GOAL_GET,
    THREAD_GOAL_SET,
    ThreadGoal,
    ThreadGoalClearedNotification,
    ThreadGoalClearParams,
    ThreadGoalClearResponse,
    ThreadGoalGetParams,
    ThreadGoalGetResponse,
    ThreadGoalSetParams,
    ThreadGoalSetResponse,
)
from codex_lsp.store.history import reconstruct_history
from codex_lsp.store.home import new_thread_id
from codex_lsp.store.rollout import read_rollout
from codex_lsp.store.rollout_files import find_rollout


class Goals:
    def __init__(self, ctx: ApiContext) -> None:
        self._ctx = ctx

    def _loaded(self, thread_id: str) -> LoadedThread | None:
        loaded = self._ctx.threads.loaded.get(thread_id)
        return loaded if loaded is not None and loaded.codex.session is not None else None

    async def _require_loaded(self, thread_id: str) -> LoadedThread:
        loaded = self._loaded(thread_id)
        if loaded is not None:
            return loaded
        await self._stored_goal(thread_id)  # an unknown thread is "not found"
        raise ApiError(
            INVALID_REQUEST, f"thread {thread_id} is not loaded: resume it to change its goal"
        )

    async def _stored_goal(self, thread_id: str) -> dict[str, Any] | None:
        home = self._ctx.services().codex_home
        path = await anyio.to_thread.run_sync(find_rollout, home, thread_id)
        if path is None:
            raise thread_store.not_found(thread_id)
        contents = await anyio.to_thread.run_sync(read_rollout, path)
        return reconstruct_history(contents.lines).goal

    async def get(self, params: ThreadGoalGetParams, _raw: dict[str, Any]) -> ThreadGoalGetResponse:
        loaded = self._loaded(params.thread_id)
        if loaded is not None:
            assert loaded.codex.session is not None
            goal = loaded.codex.session.goal
        else:
            goal = await self._stored_goal(params.thread_id)
        return ThreadGoalGetResponse(goal=ThreadGoal.model_validate(goal) if goal else None)

    async def set(self, params: ThreadGoalSetParams, _raw: dict[str, Any]) -> ThreadGoalSetResponse:
        loaded = await self._require_loaded(params.thread_id)
        op = SetThreadGoal(
            objective=params.objective, status=params.status, token_budget=params.token_budget
        )
        # An active goal on an idle thread starts its next turn under this id: what the engine
        # says (the goal's notification, that turn) waits until the response is out.
        sub_id = new_thread_id()
        try:
            answer = await loaded.ask(
                op, ("thread_goal_updated", "error"), sub_id=sub_id, hold=True
            )
        except ThreadGone:
            raise thread_store.not_found(params.thread_id) from None
        if answer.msg.type == "error":
            raise ApiError(INVALID_REQUEST, getattr(answer.msg, "message", "goal not set"))
        goal = ThreadGoal.model_validate(answer.msg_as(ThreadGoalUpdatedEvent).goal)
        self._ctx.after_response_call(lambda: loaded.release(sub_id))
        return ThreadGoalSetResponse(goal=goal)

    async def clear(
        self, params: ThreadGoalClearParams, _raw: dict[str, Any]
    ) -> ThreadGoalClearResponse:
        loaded = self._loaded(params.thread_id)
        if loaded is None:
            # Nothing to change in a thread that is not loaded and has no goal.
            if await self._stored_goal(params.thread_id) is None:
                return ThreadGoalClearResponse(cleared=False)
            loaded = await self._require_loaded(params.thread_id)
        try:
            answer = await loaded.ask(
                ClearThreadGoal(), ("thread_goal_cleared",), sub_id=new_thread_id()
            )
        except ThreadGone:
            raise thread_store.not_found(params.thread_id) from None
        cleared = answer.msg_as(ThreadGoalClearedEvent).cleared
        if cleared:
            self._ctx.after_response(
                "thread/goal/cleared", ThreadGoalClearedNotification(thread_id=params.thread_id)
            )
        return ThreadGoalClearResponse(cleared=cleared)


def handlers(ctx: ApiContext) -> Routes:
    goals = Goals(ctx)
    return (
        Routes()
        .on(THREAD_GOAL_GET, goals.get)
        .on(THREAD_GOAL_SET, goals.set)
        .on(THREAD_GOAL_CLEAR, goals.clear)
    )
