"""`open_session`: a child session runs in its root's host, so the root's client's lag
throttles the child's live command output exactly as it throttles the root's."""

from __future__ import annotations

import anyio

from codex_lsp.engine.session import RunningTask, Session
from codex_lsp.engine.session_open import NewThread, SessionHost, open_session
from codex_lsp.engine.task import run_regular_task
from codex_lsp.protocol.core.events import Event, ExecCommandEndEvent, ExecCommandOutputDeltaEvent
from codex_lsp.protocol.core.inputs import TextInput
from codex_lsp.store.home import new_thread_id
from tests.support.engine import make_git_repo, running_engine, write_config
from tests.support.scripted_builders import function_call_response, text_response

TURN_TIMEOUT_S = 30.0


async def _run_turn(session: Session, sub_id: str) -> None:
    async def body(sess: Session, task: RunningTask) -> None:
        await run_regular_task(sess, task, sess.ctx, [TextInput(text="print a line")])

    await session.start_task(sub_id, "regular", body)
    task = session.running_task
    assert task is not None
    with anyio.fail_after(TURN_TIMEOUT_S):
        await task.done.wait()


def _command_output(events: list[Event], sub_id: str) -> tuple[int, str]:
    """How many live output deltas the turn `sub_id` sent, and the output its end reported."""
    deltas = sum(
        1 for e in events if e.id == sub_id and isinstance(e.msg, ExecCommandOutputDeltaEvent)
    )
    ends = [e.msg for e in events if e.id == sub_id and isinstance(e.msg, ExecCommandEndEvent)]
    assert len(ends) == 1, f"turn {sub_id} ran {len(ends)} commands"
    return deltas, ends[0].aggregated_output


async def test_a_child_sessions_command_output_is_throttled_like_its_roots(
    scripted_model, tmp_path
) -> None:
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(
        home, scripted_model.base_url, approval_policy="never", sandbox_mode="danger-full-access"
    )
    turns = [f"{who}-{lag}" for lag in ("caught-up", "behind") for who in ("root", "child")]
    for turn in turns:
        scripted_model.enqueue(
            function_call_response(
                "exec_command",
                # However slow the machine, the command ends within the call.
                {"cmd": f"echo output of {turn}", "yield_time_ms": 30_000},
                call_id=f"call-{turn}",
            )
        )
        scripted_model.enqueue(text_response("printed it"))

    async with running_engine(home) as engine:
        configured = await engine.configure(cwd=str(ws))
        assert configured.msg.type == "session_configured"
        root = engine.codex.session
        assert root is not None
        # The client: it reads every event, and says how far behind it is.
        lag = 0
        client_events: list[Event] = []
        engine.codex.deliver_to(client_events.append, backlog=lambda: lag)
        child_events: list[Event] = []
        child = await open_session(
            SessionHost.child_of(root, child_events.append),
            "open-child",
            NewThread(new_thread_id(), source="test", ephemeral=True),
            lambda _recorded: root.ctx,
            root=root,
        )
        for turn in turns:
            lag = 0 if turn.endswith("caught-up") else 10_000
            await _run_turn(root if turn.startswith("root") else child, turn)
        await child.abort_task("interrupted")
        child.close()

    seen = {
        turn: _command_output(client_events if turn.startswith("root") else child_events, turn)
        for turn in turns
    }
    for turn, (_deltas, output) in seen.items():
        assert output.strip() == f"output of {turn}"
    # Caught up, each streams its output live; far behind, neither does (the end has it all).
    assert seen["root-caught-up"][0] >= 1 and seen["child-caught-up"][0] >= 1
    assert seen["root-behind"][0] == 0
    assert seen["child-behind"][0] == 0
