"""`Codex.deliver_to`: events handed to a listener as they are emitted, in order, with the
listener's own backlog standing in for the queue's."""

from __future__ import annotations

from codex_lsp.protocol.core.events import Event
from tests.support.engine import running_engine, write_config


async def test_a_listener_gets_queued_events_first_then_each_as_it_is_emitted(
    scripted_model, tmp_path
) -> None:
    home = tmp_path / "home"
    write_config(home, scripted_model.base_url)
    async with running_engine(home) as engine:
        codex = engine.codex
        codex.emit(Event(id="a", msg={"type": "warning", "message": "queued"}))
        heard: list[str] = []

        def listener(event: Event) -> None:
            heard.append(event.msg.type)
            if event.msg.type == "warning" and event.id == "b":
                raise RuntimeError("a consumer's bug")

        codex.deliver_to(listener, backlog=lambda: 300)
        assert heard == ["warning"]
        codex.emit(Event(id="b", msg={"type": "warning", "message": "raises"}))
        codex.emit(Event(id="c", msg={"type": "warning", "message": "still heard"}))
        assert heard == ["warning", "warning", "warning"]
        assert codex.event_backlog() == 300

        codex.end_events()
        codex.emit(Event(id="d", msg={"type": "warning", "message": "after the end"}))
        assert len(heard) == 3 and codex.event_backlog() == 0
