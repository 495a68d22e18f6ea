"""A client that stops reading while a turn streams: the server holds the turn (the model's
stream stops being read) and its memory stays bounded, yet it keeps working: a request that
needs no output to do its work (naming another thread) is carried out meanwhile. Once the
client reads again every delta arrives, in order, and the turn completes."""

from __future__ import annotations

import time

from tests.robustness.clients import Door
from tests.support.scripted_builders import completed, created, sse
from tests.support.scripted_model import ScriptedModelServer

DELTA_CHARS = 4096
# About 14 MB of text: far more than any buffer on the way, and the final event that carries
# the whole answer stays under the 16 MiB a model stream's line may hold.
DELTAS = 3_500
# Growth allowed while the client is not reading; queueing the stream would take ~30 MB.
RSS_BUDGET_KIB = 24 * 1024
QUIET_POLLS = 12  # the model's stream has not advanced for this many polls: it is held
POLL_S = 0.25
GIVE_UP_S = 240.0


def _long_answer() -> tuple[list[dict[str, object]], str]:
    deltas = [f"{n:08d}" + "x" * (DELTA_CHARS - 9) + "\n" for n in range(DELTAS)]
    text = "".join(deltas)
    item = {"type": "message", "id": "msg_long", "role": "assistant", "status": "in_progress"}
    done = {
        **item,
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    steps = [
        created(),
        sse(
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**item, "content": []},
            }
        ),
        *(
            sse(
                {
                    "type": "response.output_text.delta",
                    "item_id": "msg_long",
                    "output_index": 0,
                    "content_index": 0,
                    "delta": delta,
                }
            )
            for delta in deltas
        ),
        sse({"type": "response.output_item.done", "output_index": 0, "item": done}),
        completed(),
    ]
    return steps, text


def _text(text: str) -> dict[str, object]:
    return {"type": "text", "text": text, "text_elements": []}


def _start_thread(door: Door, ws) -> str:
    thread = door.result("thread/start", {"cwd": str(ws), "sandbox": "danger-full-access"})
    return thread["thread"]["id"]


def test_a_client_that_stops_reading_holds_the_turn_and_loses_nothing(
    door: Door, scripted_model: ScriptedModelServer, ws
) -> None:
    steps, text = _long_answer()
    scripted_model.enqueue(steps)
    thread_id = _start_thread(door, ws)
    side_thread_id = _start_thread(door, ws)
    baseline = door.rss_kib()
    door.result("turn/start", {"threadId": thread_id, "input": [_text("write a lot")]})

    # From here on the client reads nothing. Watch the model's stream and the server's memory
    # until the stream stops advancing (held by the server) or ends (nothing held it).
    peak, last, quiet = baseline, -1, 0
    deadline = time.monotonic() + GIVE_UP_S
    while quiet < QUIET_POLLS and scripted_model.steps_streamed < len(steps):
        assert time.monotonic() < deadline, "the stream neither ended nor stopped"
        time.sleep(POLL_S)
        peak = max(peak, door.rss_kib())
        streamed = scripted_model.steps_streamed
        quiet = quiet + 1 if streamed == last else 0
        last = streamed
    assert scripted_model.steps_streamed < len(steps), (
        "the whole answer was taken from the model while the client read nothing: "
        f"the server grew by {(peak - baseline) // 1024} MiB"
    )
    assert peak - baseline < RSS_BUDGET_KIB, f"grew by {(peak - baseline) // 1024} MiB"

    # Still not reading, the client names another thread: the server is held only where it
    # streams output, so the name is stored (its answer waits for the client).
    name = "named while the client was away"
    door.request("thread/name/set", {"threadId": side_thread_id, "name": name})
    index = door.home / "session_index.jsonl"
    deadline = time.monotonic() + GIVE_UP_S
    while not (index.exists() and name in index.read_text()):
        assert time.monotonic() < deadline, "the server did nothing while the client was away"
        time.sleep(POLL_S)

    # The client reads again: everything arrives, in order, and the turn completes.
    delta_method = door.method("item/agentMessage/delta")
    received: list[str] = []
    while True:
        message = door.read()
        params = message.get("params") or {}
        if message.get("method") == delta_method:
            received.append(params["delta"])
        elif message.get("method") == door.method("turn/completed"):
            assert params["turn"]["status"] == "completed", params["turn"].get("error")
            break
    assert len(received) == DELTAS
    assert "".join(received) == text
    door.assert_serving()
