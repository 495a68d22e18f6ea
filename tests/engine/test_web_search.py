"""Web search: the hosted tool is offered only when enabled, and its calls become events."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from codex_lsp.engine.context_factory import initial_turn_context
from codex_lsp.engine.web_search import web_search_enabled
from codex_lsp.protocol.core.ops import ConfigureSession
from codex_lsp.store.config import load_config
from tests.support.engine import make_git_repo, running_engine, write_config
from tests.support.scripted_builders import message_item, multi_item_response, text_response

SEARCH_CALL = {
    "type": "web_search_call",
    "id": "ws_1",
    "status": "completed",
    "action": {"type": "search", "query": "python 3.14 release date"},
}


def _hosted(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [tool for tool in body.get("tools", []) if tool.get("type") == "web_search"]


async def test_not_offered_by_default(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(text_response("hi"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("hello")
    assert _hosted(scripted_model.requests[0].body) == []


async def test_search_call_becomes_events_and_stays_in_history(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url, extra="[tools]\nweb_search = true\n")
    scripted_model.enqueue(
        multi_item_response(
            [SEARCH_CALL, message_item("It ships in October.", index=1)], response_id="r1"
        )
    )
    scripted_model.enqueue(text_response("You're welcome.", response_id="r2"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("when is python 3.14 out?")
        await engine.run_turn("thanks")

    kinds = [e.msg.type for e in events]
    begin, end = kinds.index("web_search_begin"), kinds.index("web_search_end")
    assert begin < end < kinds.index("agent_message")
    assert events[begin].msg.call_id == events[end].msg.call_id == "ws_1"
    assert events[end].msg.query == "python 3.14 release date"

    first, second = (r.body for r in scripted_model.requests)
    assert _hosted(first) == [{"type": "web_search"}]
    replayed = [item for item in second["input"] if item.get("type") == "web_search_call"]
    assert replayed == [{k: v for k, v in SEARCH_CALL.items() if k != "id"}]
    kinds_in = [item.get("type") for item in second["input"]]
    # The call sits before the answer it informed, as the model produced them.
    assert kinds_in.index("web_search_call") < max(
        i for i, item in enumerate(second["input"]) if item.get("role") == "assistant"
    )


def test_never_offered_on_the_chat_wire(scripted_model, tmp_path):
    home = tmp_path / "home"
    write_config(
        home, scripted_model.base_url, wire_api="chat", extra="[tools]\nweb_search = true\n"
    )
    config = load_config(home)
    ctx = initial_turn_context(config, ConfigureSession(cwd=str(tmp_path)))
    assert ctx.web_search is True
    assert web_search_enabled(ctx) is False
    responses = replace(ctx, provider=ctx.provider.model_copy(update={"wire_api": "responses"}))
    assert web_search_enabled(responses) is True
