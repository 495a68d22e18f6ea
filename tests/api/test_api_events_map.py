"""`ThreadEventMap` fed engine events directly: what each becomes on the v2 wire, checked
against the reference schema as well as by value."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from pydantic import BaseModel

from codex_lsp.api.threads.event_map import ThreadEventMap
from codex_lsp.protocol.core import events as ev
from codex_lsp.protocol.core.inputs import PlanItem, TokenUsage, TokenUsageInfo
from tests.support.ports import sent_params
from tests.support.schema_check import SchemaChecker

THREAD = "thread-1"


class Recorder:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.asked: list[tuple[str, str]] = []
        self.ended: list[str] = []

    def notify(self, method: str, params: BaseModel) -> None:
        self.sent.append((method, sent_params(method, params)))

    def ask_exec(self, turn_id: str, event: Any, *, scope: str | None = None) -> None:
        self.asked.append(("exec", event.call_id))

    def ask_patch(self, turn_id: str, event: Any, diffs: Any, *, scope: str | None = None) -> None:
        self.asked.append(("patch", event.call_id))

    def ask_user_input(self, turn_id: str, event: Any) -> None:
        self.asked.append(("input", event.call_id))

    def turn_ended(self, turn_id: str) -> None:
        self.ended.append(turn_id)

    def of(self, method: str) -> list[dict[str, Any]]:
        return [params for name, params in self.sent if name == method]


@pytest.fixture
def rec(schema: SchemaChecker) -> Any:
    recorder = Recorder()
    yield recorder
    problems = [
        e for m, p in recorder.sent for e in schema.notification_errors({"method": m, "params": p})
    ]
    assert problems == []


def feed(mapper: ThreadEventMap, turn: str, *msgs: Any) -> None:
    for msg in msgs:
        mapper.handle(ev.Event(id=turn, msg=msg))


def start(mapper: ThreadEventMap, turn: str) -> None:
    feed(mapper, turn, ev.TaskStartedEvent(turn_id=turn, started_at=1_700_000_000))


def test_message_ids_stay_stable_and_unique_when_the_model_reuses_them(rec):
    mapper = ThreadEventMap(THREAD, rec.notify, rec)
    for turn in ("t1", "t2"):
        start(mapper, turn)
        feed(
            mapper,
            turn,
            ev.AgentMessageDeltaEvent(delta="Hel", item_id="msg_1"),
            ev.AgentMessageDeltaEvent(delta="lo", item_id="msg_1"),
            ev.AgentMessageEvent(message="Hello", item_id="msg_1"),
            ev.TaskCompleteEvent(turn_id=turn),
        )
    started = [p["item"]["id"] for p in rec.of("item/started")]
    assert len(started) == 2 and len(set(started)) == 2 and started[0] == "msg_1"
    for item_id in started:
        deltas = [d["delta"] for d in rec.of("item/agentMessage/delta") if d["itemId"] == item_id]
        assert "".join(deltas) == "Hello"
    assert [c["item"]["text"] for c in rec.of("item/completed")] == ["Hello", "Hello"]


def test_reasoning_summary_and_raw_content_stream_into_one_item(rec):
    mapper = ThreadEventMap(THREAD, rec.notify, rec)
    start(mapper, "t1")
    feed(
        mapper,
        "t1",
        ev.AgentReasoningSectionBreakEvent(summary_index=0),
        ev.AgentReasoningDeltaEvent(delta="Think", summary_index=0),
        ev.AgentReasoningDeltaEvent(delta="ing", summary_index=0),
        ev.AgentReasoningSectionBreakEvent(summary_index=1),
        ev.AgentReasoningDeltaEvent(delta="More", summary_index=1),
        ev.AgentReasoningRawContentDeltaEvent(delta="raw", content_index=0),
        ev.AgentMessageDeltaEvent(delta="Answer", item_id="m"),
    )
    reasoning = rec.of("item/completed")[0]["item"]
    assert reasoning["type"] == "reasoning"
    assert reasoning["summary"] == ["Thinking", "More"] and reasoning["content"] == ["raw"]
    assert [p["summaryIndex"] for p in rec.of("item/reasoning/summaryPartAdded")] == [0, 1]
    assert rec.of("item/reasoning/textDelta")[0]["contentIndex"] == 0
    # The message only starts once the reasoning item is complete.
    methods = [m for m, _ in rec.sent]
    assert methods.index("item/completed") < methods.index("item/agentMessage/delta")


def test_command_output_is_decoded_even_when_a_character_spans_two_chunks(rec):
    mapper = ThreadEventMap(THREAD, rec.notify, rec)
    start(mapper, "t1")
    data = "café ✓\n".encode()
    begin = ev.ExecCommandBeginEvent(
        call_id="c1",
        turn_id="t1",
        command=["bash", "-lc", "cat menu"],
        cwd="/w",
        parsed_cmd=[{"type": "read", "cmd": "cat menu", "name": "menu", "path": "menu"}],
    )
    feed(mapper, "t1", begin)
    for chunk in (data[:4], data[4:8], data[8:]):
        feed(
            mapper,
            "t1",
            ev.ExecCommandOutputDeltaEvent(
                call_id="c1", stream="stdout", chunk=base64.b64encode(chunk).decode()
            ),
        )
    feed(
        mapper,
        "t1",
        ev.ExecCommandEndEvent(
            call_id="c1",
            turn_id="t1",
            command=begin.command,
            cwd="/w",
            parsed_cmd=begin.parsed_cmd,
            aggregated_output=data.decode(),
            exit_code=0,
            duration=ev.Duration(secs=1, nanos=250_000_000),
            status="completed",
        ),
    )
    assert "".join(p["delta"] for p in rec.of("item/commandExecution/outputDelta")) == "café ✓\n"
    item = rec.of("item/completed")[0]["item"]
    assert item["commandActions"] == [
        {"type": "read", "command": "cat menu", "name": "menu", "path": "menu"}
    ]
    assert (item["command"], item["durationMs"], item["exitCode"]) == (
        "bash -lc 'cat menu'",
        1250,
        0,
    )


def test_an_error_fails_the_turn_and_a_stream_error_only_announces_a_retry(rec):
    mapper = ThreadEventMap(THREAD, rec.notify, rec)
    start(mapper, "t1")
    feed(
        mapper,
        "t1",
        ev.StreamErrorEvent(
            message="Reconnecting... 1/2", codex_error_info="response_stream_disconnected"
        ),
        ev.ErrorEvent(
            message="upstream broke",
            codex_error_info={"http_connection_failed": {"http_status_code": 502}},
        ),
        ev.TaskCompleteEvent(turn_id="t1"),
    )
    retry, fatal = rec.of("error")
    assert (
        retry["willRetry"] is True
        and retry["error"]["codexErrorInfo"] == "responseStreamDisconnected"
    )
    assert fatal["willRetry"] is False
    assert fatal["error"]["codexErrorInfo"] == {"httpConnectionFailed": {"httpStatusCode": 502}}
    turn = rec.of("turn/completed")[0]["turn"]
    assert turn["status"] == "failed" and turn["error"]["message"] == "upstream broke"


def test_an_interrupted_turn_leaves_what_was_running_and_drops_its_requests_after_its_end(rec):
    mapper = ThreadEventMap(THREAD, rec.notify, rec)
    start(mapper, "t1")
    feed(
        mapper,
        "t1",
        ev.ExecApprovalRequestEvent(
            call_id="c1", turn_id="t1", command=["rm", "-rf", "x"], cwd="/w"
        ),
    )
    assert rec.asked == [("exec", "c1")]
    mapper.waiting("waitingOnApproval", +1)
    assert rec.of("thread/status/changed")[-1]["status"] == {
        "type": "active",
        "activeFlags": ["waitingOnApproval"],
    }
    feed(mapper, "t1", ev.TurnAbortedEvent(turn_id="t1", reason="interrupted"))
    assert rec.ended == ["t1"]
    # As the reference server ends an interrupted turn: the pending command is not completed,
    # the turn lists no items, and its requests are dropped after turn/completed.
    assert rec.of("item/completed") == []
    turn = rec.of("turn/completed")[0]["turn"]
    assert (turn["status"], turn["items"], turn["itemsView"]) == ("interrupted", [], "notLoaded")
    assert rec.of("thread/status/changed")[-1]["status"] == {"type": "idle"}
    assert mapper.active_turn_id is None


def test_plans_usage_searches_and_stray_errors(rec):
    mapper = ThreadEventMap(THREAD, rec.notify, rec)
    start(mapper, "t1")
    usage = TokenUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    feed(
        mapper,
        "t1",
        ev.PlanUpdateEvent(
            explanation="why",
            plan=[PlanItem(step="a", status="in_progress"), PlanItem(step="b", status="pending")],
        ),
        ev.TokenCountEvent(
            info=TokenUsageInfo(
                total_token_usage=usage, last_token_usage=usage, model_context_window=1000
            )
        ),
        ev.WebSearchBeginEvent(call_id="ws1"),
        ev.WebSearchEndEvent(call_id="ws1", query="pygls docs"),
    )
    feed(mapper, "sub-9", ev.ErrorEvent(message="no pending approval with id 'x'"))
    plan = rec.of("turn/plan/updated")[0]
    assert plan["plan"] == [
        {"step": "a", "status": "inProgress"},
        {"step": "b", "status": "pending"},
    ]
    assert plan["explanation"] == "why" and plan["turnId"] == "t1"
    assert rec.of("thread/tokenUsage/updated")[0]["tokenUsage"]["total"]["totalTokens"] == 15
    search = rec.of("item/completed")[0]["item"]
    assert search == {**search, "type": "webSearch", "id": "ws1", "query": "pygls docs"}
    assert rec.of("warning") == [{"message": "no pending approval with id 'x'", "threadId": THREAD}]
    assert not rec.of("error"), "an op's error outside the turn does not fail it"
