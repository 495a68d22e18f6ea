"""Request ids and the end of a session: a reused id is refused while its request is in flight,
and `exit` straight after `shutdown` ends `codex-lsp serve` cleanly."""

from __future__ import annotations

from tests.robustness.clients import Door, LspDoor


def test_a_second_request_with_an_id_in_flight_gets_an_error(shared_door: Door) -> None:
    first = shared_door.message({"id": 5, "method": shared_door.method("model/list")})
    second = shared_door.message({"id": 5, "method": shared_door.method("thread/list")})
    # One write: the server reads both before the first can have been answered.
    shared_door.send_bytes(shared_door.frame(first) + shared_door.frame(second))
    answers = [shared_door.response(5), shared_door.response(5)]
    errors = [answer for answer in answers if "error" in answer]
    results = [answer for answer in answers if "result" in answer]
    assert len(errors) == 1 and len(results) == 1, answers
    assert errors[0]["error"]["code"] == -32600
    assert "already" in errors[0]["error"]["message"]
    assert results[0]["result"]["data"], "the first request was answered as itself"
    # Once answered, the id is free again.
    assert "result" in shared_door.call_with_id("model/list", 5)


def test_exit_right_after_shutdown_ends_cleanly(home, ws) -> None:
    door = LspDoor(home, ws)
    door.initialize()
    shutdown = door.frame(door.message({"id": 9, "method": "shutdown"}))
    exit_ = door.frame(door.message({"method": "exit"}))
    door.send_bytes(shutdown + exit_)  # `exit` before the answer to `shutdown` was read
    assert door.process.wait(60) == 0
    assert door.response(9)["result"] is None, "shutdown was still answered"
    door.close()
    assert "Traceback" not in door.stderr_path.read_text()


def test_exit_without_shutdown_ends_with_status_1(home, ws) -> None:
    door = LspDoor(home, ws)
    door.initialize()
    door.send({"method": "exit"})
    assert door.process.wait(60) == 1
    door.close()
    assert "Traceback" not in door.stderr_path.read_text()
