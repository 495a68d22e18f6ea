"""`skills/list`: the skills each working directory sees, with the files that failed to load.

The request names no thread. When a thread is loaded the engine answers it: the `list_skills`
op goes to the loaded thread rooted at the first requested cwd (else the newest one), and its
`list_skills_response` is the result, so `forceReload` also refreshes what that thread offers
its model. With no thread loaded there is no session to ask; the skills extension of the
server's own services scans the same roots directly.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio

from codex_lsp.api.convert import invalid
from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.api.port import INTERNAL_ERROR, ApiError
from codex_lsp.api.threads.loaded import LoadedThread
from codex_lsp.api.threads.replies import ThreadGone
from codex_lsp.engine.services import EngineServices
from codex_lsp.engine.skills import SkillsExtension
from codex_lsp.protocol.catalog.models import SKILLS_LIST, SkillsListParams, SkillsListResponse
from codex_lsp.protocol.core.events import ListSkillsResponseEvent
from codex_lsp.protocol.core.ops import ListSkills
from codex_lsp.store.home import new_thread_id

_ANSWER = ("list_skills_response", "error")


def pick_thread(loaded: dict[str, LoadedThread], cwds: list[str]) -> LoadedThread | None:
    """The thread to ask: one rooted at the first requested cwd, else the newest."""
    running = [t for t in loaded.values() if not t.done.is_set() and t.codex.session is not None]
    if not running:
        return None
    wanted = Path(cwds[0]) if cwds else None
    for thread in running:
        if wanted is not None and thread.cwd == wanted:
            return thread
    return max(running, key=lambda t: t.created_at)


async def list_skills(
    params: SkillsListParams, loaded: dict[str, LoadedThread], services: EngineServices
) -> SkillsListResponse:
    requested = [cwd for cwd in params.cwds or [] if cwd]
    force = bool(params.force_reload)
    thread = pick_thread(loaded, requested)
    # Relative cwds are read from the session's directory, as the engine would.
    base = (thread.cwd if thread is not None else None) or Path(os.getcwd())
    cwds = [_directory(base, raw) for raw in requested]
    if thread is None:
        # Up to thousands of directories per root: not on the event loop.
        return await anyio.to_thread.run_sync(_scan, cwds or [base], force, services)
    op = ListSkills(cwds=[str(cwd) for cwd in cwds] or None, force_reload=force)
    try:
        answer = await thread.ask(op, _ANSWER, sub_id=new_thread_id())
    except ThreadGone:
        # It closed under us: the direct scan sees the same files.
        return await anyio.to_thread.run_sync(_scan, cwds or [base], force, services)
    if answer.msg.type == "error":
        raise ApiError(INTERNAL_ERROR, f"skills/list failed: {answer.msg.message}")
    skills = answer.msg_as(ListSkillsResponseEvent).skills
    return SkillsListResponse.model_validate({"data": skills})


def _directory(base: Path, raw: str) -> Path:
    cwd = base / Path(raw).expanduser()
    if not cwd.is_dir():
        raise invalid("cwds", f"no such directory: {raw}")
    return cwd


def _scan(cwds: list[Path], force: bool, services: EngineServices) -> SkillsListResponse:
    extension = next((e for e in services.extensions if isinstance(e, SkillsExtension)), None)
    entries: list[dict[str, Any]] = []
    for cwd in cwds:
        if extension is None or not extension.enabled:
            entries.append({"cwd": str(cwd), "skills": [], "errors": []})
            continue
        outcome = extension.outcome_for(
            cwd, codex_home=services.codex_home, config=services.config, force_reload=force
        )
        entries.append(
            {
                "cwd": str(cwd),
                "skills": [skill.to_wire() for skill in outcome.skills],
                "errors": [error.to_wire() for error in outcome.errors],
            }
        )
    return SkillsListResponse.model_validate({"data": entries})


def handlers(ctx: ApiContext) -> Routes:
    async def serve(params: SkillsListParams, _raw: dict[str, Any]) -> SkillsListResponse:
        return await list_skills(params, ctx.threads.loaded, ctx.services())

    return Routes().on(SKILLS_LIST, serve)
