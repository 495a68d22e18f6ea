"""Personality changes what the model is told from then on; non-fatal problems are warnings."""

from __future__ import annotations

from typing import Any

from codex_lsp.engine.bootstrap import load_services
from codex_lsp.engine.codex import Codex
from codex_lsp.engine.extensions import Extension
from codex_lsp.engine.instructions import _PERSONALITIES as STYLES
from codex_lsp.protocol.core.inputs import TextInput
from codex_lsp.protocol.core.ops import OverrideTurnContext, UserTurn
from tests.support.engine import EngineDriver, make_git_repo, running_engine, write_config
from tests.support.scripted_builders import text_response


def _developer_texts(body: dict[str, Any]) -> list[list[str]]:
    """The text sections of each developer message in the request, in order."""
    return [
        [part["text"] for part in item["content"]]
        for item in body["input"]
        if item.get("role") == "developer"
    ]


def _personality(sections: list[str]) -> str | None:
    return next((s for s in sections if s.startswith("<personality>")), None)


async def test_personality_from_config_then_override_then_user_turn(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url, extra='personality = "friendly"\n')
    for n in range(4):
        scripted_model.enqueue(text_response(f"answer {n}", response_id=f"r{n}"))

    async with running_engine(home) as engine:
        configured = (await engine.configure(cwd=str(ws))).msg
        await engine.run_turn("one")
        await engine.codex.submit(OverrideTurnContext(personality="pragmatic"))
        await engine.run_turn("two")
        await engine.run_turn("three")
        sub_id = await engine.codex.submit(
            UserTurn(
                items=[TextInput(text="four")],
                cwd=configured.cwd,
                approval_policy=configured.approval_policy,
                sandbox_policy=configured.sandbox_policy,
                model=configured.model,
                personality="none",
            )
        )
        await engine.until("task_complete", sub_id=sub_id)

    bodies = [r.body for r in scripted_model.requests]
    first = _developer_texts(bodies[0])
    assert len(first) == 1
    assert STYLES["friendly"] in _personality(first[0])

    # The override adds one developer message, after the first turn, in the new style.
    second = _developer_texts(bodies[1])
    assert len(second) == 2
    assert STYLES["pragmatic"] in _personality(second[1])
    assert STYLES["friendly"] not in str(second[1])

    # Nothing changed for the third turn: no new developer message.
    assert len(_developer_texts(bodies[2])) == 2

    # `none` is a change too: the update tells the model the earlier style no longer holds.
    fourth = _developer_texts(bodies[3])
    assert len(fourth) == 3
    assert "default communication style" in (_personality(fourth[2]) or "")
    assert STYLES["pragmatic"] not in str(fourth[2])


class _BrokenExtension(Extension):
    name = "broken-feature"

    async def session_started(self, session: Any, sub_id: str) -> None:
        raise RuntimeError("could not reach its server")


async def test_extension_that_fails_to_start_is_a_warning(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(text_response("still working"))
    services = load_services(codex_home=home)
    services.extensions.append(_BrokenExtension())
    try:
        async with Codex(services) as codex:
            engine = EngineDriver(codex)
            configured = await engine.configure(cwd=str(ws))
            events = await engine.run_turn("hello")
    finally:
        assert services.http is not None
        await services.http.aclose()

    assert configured.msg.type == "session_configured"
    warnings = [e.msg.message for e in engine.events if e.msg.type == "warning"]
    assert warnings.count("broken-feature is unavailable: could not reach its server") == 1
    assert engine.of_type("task_complete", events)[0].last_agent_message == "still working"


async def test_a_skipped_rollout_line_is_a_warning_on_resume(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(text_response("first"))
    scripted_model.enqueue(text_response("second"))
    async with running_engine(home) as engine:
        configured = await engine.configure(cwd=str(ws))
        await engine.run_turn("hello")
    rollout = configured.msg.rollout_path
    with open(rollout, "a", encoding="utf-8") as f:
        f.write('{"type": "response_item", "payl')  # a write cut short by a crash

    async with running_engine(home) as engine:
        resumed = await engine.configure(resume_path=rollout)
        events = await engine.run_turn("again")

    assert resumed.msg.type == "session_configured"
    warnings = [e.msg.message for e in engine.events if e.msg.type == "warning"]
    assert len(warnings) == 1 and rollout in warnings[0] and "skipped" in warnings[0], warnings
    assert engine.of_type("task_complete", events)[0].last_agent_message == "second"
