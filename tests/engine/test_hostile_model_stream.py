"""A hostile model server costs the engine bounded memory and time, and only its turn.

Each stream goes over one of the model stream's limits (`codex_lsp/model/limits.py`). The
engine must end that turn with an error that says so, not retry it, keep its peak memory far
below what the server sent, and answer the next turn. Peak memory is this process's VmHWM
(the engine runs in it), reset just before the turn.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.engine import make_git_repo, running_engine, write_config
from tests.support.hostile_model import (
    HostileModelServer,
    chat_text_answer,
    repeated,
    sse,
    text_answer,
)

MIB = 1 << 20
# Far below what each stream would cost unbounded, far above what the caps let through.
PEAK_GROWTH_BOUND = 160 * MIB


def _reset_peak() -> int:
    Path("/proc/self/clear_refs").write_text("5")  # VmHWM restarts from the current RSS
    return _status_kib("VmRSS")


def _peak_growth(rss_before_kib: int) -> int:
    return (_status_kib("VmHWM") - rss_before_kib) * 1024


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} in /proc/self/status")


def _no_newline() -> Iterator[bytes]:
    yield sse({"type": "response.created", "response": {"id": "r1"}})
    yield from repeated(b"data: ", b"x" * MIB, 300 * MIB)


def _giant_delta() -> Iterator[bytes]:
    yield sse({"type": "response.created", "response": {"id": "r1"}})
    head = b'event: response.output_text.delta\ndata: {"type": "response.output_text.delta", '
    yield from repeated(head + b'"delta": "', b"y" * MIB, 300 * MIB, b'"}\n\n')


def _giant_arguments() -> Iterator[bytes]:
    yield sse({"type": "response.created", "response": {"id": "r1"}})
    head = (
        b'data: {"type": "response.output_item.done", "item": {"type": "function_call", '
        b'"name": "exec_command", "call_id": "c1", "arguments": "'
    )
    yield from repeated(head, b"a" * MIB, 100 * MIB, b'"}}\n\n')
    yield sse({"type": "response.completed", "response": {"id": "r1"}})


def _giant_chat_arguments() -> Iterator[bytes]:
    # Chat Completions streams arguments in pieces, each well under every per-event limit.
    piece = json.dumps(
        {
            "id": "chat1",
            "choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": ""}}]}}],
        }
    )
    before, after = piece.split('"arguments": ""')
    first = {"index": 0, "id": "c1", "function": {"name": "exec_command", "arguments": ""}}
    opening = {"id": "chat1", "choices": [{"delta": {"tool_calls": [first]}}]}
    yield f"data: {json.dumps(opening)}\n\n".encode()
    block = f'data: {before}"arguments": "{"b" * MIB}"{after}\n\n'.encode()
    yield from repeated(b"", block, 100 * MIB)
    yield b'data: {"id": "chat1", "choices": [{"delta": {}, "finish_reason": "tool_calls"}]}\n\n'
    yield b"data: [DONE]\n\n"


def _many_calls() -> Iterator[bytes]:
    yield sse({"type": "response.created", "response": {"id": "r1"}})
    for index in range(3000):
        item = {
            "type": "function_call",
            "name": "exec_command",
            "call_id": f"call_{index}",
            "arguments": json.dumps({"cmd": f"echo ran-{index}"}),
        }
        yield sse({"type": "response.output_item.done", "item": item})
    yield sse({"type": "response.completed", "response": {"id": "r1"}})


@pytest.mark.parametrize(
    ("stream", "wire_api", "says"),
    [
        (_no_newline, "responses", "an SSE line of more than 16 MiB"),
        (_giant_delta, "responses", "an SSE line of more than 16 MiB"),
        (_giant_arguments, "responses", "an SSE line of more than 16 MiB"),
        (_giant_chat_arguments, "chat", "tool call arguments of more than 8,388,608 characters"),
        (_many_calls, "responses", "more than 128 tool calls in one response"),
    ],
    ids=["no-newline", "giant-delta", "giant-arguments", "giant-chat-arguments", "many-calls"],
)
async def test_a_stream_over_a_limit_ends_the_turn_and_the_next_turn_is_answered(
    tmp_path, stream, wire_api, says
):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    with HostileModelServer() as server:
        write_config(home, server.base_url, wire_api=wire_api, sandbox_mode="danger-full-access")
        server.answer(stream)
        answer = chat_text_answer if wire_api == "chat" else text_answer
        server.answer(lambda: answer("still here"))
        async with running_engine(home) as engine:
            await engine.configure(cwd=str(ws), approval_policy="never")
            rss_before = _reset_peak()
            events = await engine.run_turn("go")
            growth = _peak_growth(rss_before)

            errors = engine.of_type("error", events)
            assert len(errors) == 1 and says in errors[0].message, errors
            assert "misbehaving" in errors[0].message
            assert not engine.of_type("exec_command_begin", events)  # no call ran
            assert server.requests == 1  # going over a limit is not retried
            assert growth < PEAK_GROWTH_BOUND, f"peak memory grew {growth / MIB:.0f} MiB"

            events = await engine.run_turn("again")
            assert engine.of_type("task_complete", events)[0].last_agent_message == "still here"
