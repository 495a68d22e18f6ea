"""The extension half of the event map and of the approval router, fed directly: review items,
subagent notifications, MCP approvals on their `mcpToolCall` item, and `Replies`."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from codex_lsp.api.approvals.requests import MCP_APPROVAL_OPTIONS, ApprovalRouter
from codex_lsp.api.threads.event_map import ThreadEventMap
from codex_lsp.api.threads.replies import Replies, ThreadGone
from codex_lsp.protocol.core import events as ev
from codex_lsp.protocol.core.inputs import (
    ByteRange,
    ReviewCodeLocation,
    ReviewFinding,
    ReviewOutputEvent,
    UncommittedChangesTarget,
)
from codex_lsp.protocol.core.ops import ExecApproval
from tests.api.test_api_approvals import Client
from tests.api.test_api_events_map import Recorder, feed, start
from tests.support.schema_check import SchemaChecker

THREAD = "thread-1"
OURS = {"subagent/lifecycle", "agent/inbox"}  # our extension: not in the reference schema


class McpRecorder(Recorder):
    def __init__(self) -> None:
        super().__init__()
        # The turn id each request was shown under, and the task whose end cancels it.
        self.turns: list[tuple[str, str | None]] = []

    def ask_exec(self, turn_id: str, event: Any, *, scope: str | None = None) -> None:
        self.turns.append((turn_id, scope))
        super().ask_exec(turn_id, event)

    def ask_patch(self, turn_id: str, event: Any, diffs: Any, *, scope: str | None = None) -> None:
        self.turns.append((turn_id, scope))
        super().ask_patch(turn_id, event, diffs)

    def ask_mcp_tool(
        self, turn_id: str, event: Any, server: str, tool: str, *, scope: str | None = None
    ) -> None:
        self.turns.append((turn_id, scope))
        self.asked.append(("mcp", f"{server}/{tool}/{event.call_id}"))


@pytest.fixture
def rec(schema: SchemaChecker) -> Any:
    recorder = McpRecorder()
    yield recorder
    problems = [
        error
        for method, params in recorder.sent
        if method not in OURS
        for error in schema.notification_errors({"method": method, "params": params})
    ]
    assert problems == []


def summary(agent_id: int, status: str = "running") -> ev.SubagentSummary:
    return ev.SubagentSummary(
        agent_id=agent_id,
        parent_agent_id=0,
        session_id=f"child-{agent_id}",
        label="alpha",
        status=status,  # type: ignore[arg-type]
        reasoning_header="Looking around",
        pending_regular=1,
    )


def test_subagent_events_become_camel_cased_notifications(rec):
    mapper = ThreadEventMap(THREAD, rec.notify, rec)
    feed(
        mapper,
        "t1",
        ev.SubagentLifecycleEvent(
            change="spawned", agent_id=1, agent=summary(1), agents=[summary(1)]
        ),
        ev.AgentInboxEvent(
            agent_id=1, session_id="child-1", pending_regular=2, pending_interrupt=1
        ),
    )
    (lifecycle,) = rec.of("subagent/lifecycle")
    assert lifecycle == {
        "threadId": THREAD,
        "change": "spawned",
        "agentId": 1,
        "agent": {
            "agentId": 1,
            "parentAgentId": 0,
            "sessionId": "child-1",
            "label": "alpha",
            "status": "running",
            "reasoningHeader": "Looking around",
            "pendingRegular": 1,
            "pendingInterrupt": 0,
        },
        "agents": [lifecycle["agent"]],
    }
    assert rec.of("agent/inbox") == [
        {
            "threadId": THREAD,
            "agentId": 1,
            "sessionId": "child-1",
            "pendingRegular": 2,
            "pendingInterrupt": 1,
        }
    ]


def mcp_request(command: list[str]) -> ev.ExecApprovalRequestEvent:
    return ev.ExecApprovalRequestEvent(
        call_id="m1",
        turn_id="t1",
        command=command,
        cwd="/w",
        reason="Allow the MCP server `tests` to run its tool `add`?",
        parsed_cmd=[{"type": "unknown", "cmd": " ".join(command)}],
    )


def test_an_mcp_approval_is_asked_on_its_mcp_tool_call_item(rec):
    mapper = ThreadEventMap(THREAD, rec.notify, rec, mcp_servers=frozenset({"tests"}))
    start(mapper, "t1")
    invocation = {"server": "tests", "tool": "add", "arguments": {"a": 1, "b": 2}}
    feed(
        mapper,
        "t1",
        mcp_request(["mcp", "tests", "add", json.dumps({"a": 1, "b": 2})]),
        ev.McpToolCallBeginEvent(call_id="m1", invocation=invocation),
        ev.McpToolCallEndEvent(
            call_id="m1", invocation=invocation, result={"content": [], "isError": False}
        ),
        ev.TaskCompleteEvent(turn_id="t1"),
    )
    started = [p["item"] for p in rec.of("item/started")]
    assert [(i["type"], i["id"], i["status"]) for i in started] == [
        ("mcpToolCall", "m1", "inProgress")
    ]
    assert started[0]["arguments"] == {"a": 1, "b": 2}
    assert rec.asked == [("mcp", "tests/add/m1")]
    assert [p["item"]["status"] for p in rec.of("item/completed")] == ["completed"]


def test_a_command_named_mcp_is_still_a_command(rec):
    # Only a configured server name makes it an MCP call.
    mapper = ThreadEventMap(THREAD, rec.notify, rec, mcp_servers=frozenset({"tests"}))
    start(mapper, "t1")
    feed(mapper, "t1", mcp_request(["mcp", "other", "add", "{}"]))
    assert rec.asked == [("exec", "m1")]
    assert rec.of("item/started")[0]["item"]["type"] == "commandExecution"


def test_a_subagents_requests_are_shown_under_the_root_turn_and_bound_to_its_task(rec):
    mapper = ThreadEventMap(THREAD, rec.notify, rec, mcp_servers=frozenset({"tests"}))
    child = "agent-1-turn-1"
    patch = ev.ApplyPatchApprovalRequestEvent(
        call_id="p1", turn_id=child, changes={"a.txt": {"type": "add", "content": "x\n"}}
    )
    # The root thread's turn ended: the child still gets its answer, under the turn it knows.
    start(mapper, "t0")
    feed(mapper, "t0", ev.TaskCompleteEvent(turn_id="t0"))
    feed(mapper, child, mcp_request(["ls"]), patch)
    # The root's turn runs: the child's request is shown under it, not made part of it.
    start(mapper, "t1")
    feed(
        mapper,
        child,
        mcp_request(["mcp", "tests", "add", "{}"]),
        ev.TaskCompleteEvent(turn_id="t1"),
    )
    assert rec.asked == [("exec", "m1"), ("patch", "p1"), ("mcp", "tests/add/m1")]
    assert rec.turns == [("t0", child), ("t0", child), ("t1", child)]
    assert rec.of("item/started") == [] and rec.ended == ["t0", "t1"]


def failed_review() -> ReviewOutputEvent:
    return ReviewOutputEvent(
        overall_explanation="The review failed: the reviewer's answer could not be parsed."
    )


def test_review_items_and_a_failed_review_fail_the_turn(rec):
    mapper = ThreadEventMap(THREAD, rec.notify, rec)
    finding = ReviewFinding(
        title="[P1] Bug",
        body="Line one.\nLine two.",
        priority=1,
        code_location=ReviewCodeLocation(
            absolute_file_path="/r/a.py", line_range=ByteRange(start=3, end=4)
        ),
    )
    good = ReviewOutputEvent(
        findings=[finding], overall_correctness="patch is incorrect", overall_explanation="Bad."
    )
    for turn, output in (("t1", good), ("t2", failed_review()), ("t3", None)):
        start(mapper, turn)
        feed(
            mapper,
            turn,
            ev.EnteredReviewModeEvent(
                target=UncommittedChangesTarget(), user_facing_hint="current changes"
            ),
            ev.ExitedReviewModeEvent(review_output=output),
            ev.TaskCompleteEvent(turn_id=turn),
        )
    reviews = [
        p["item"]["review"]
        for p in rec.of("item/completed")
        if p["item"]["type"] == "exitedReviewMode"
    ]
    assert (
        reviews[0]
        == "Bad.\n\nReview comment:\n\n- [P1] Bug — /r/a.py:3-4\n  Line one.\n  Line two."
    )
    assert reviews[1].startswith("The review failed:")
    assert reviews[2] == "The review did not finish."
    statuses = [p["turn"]["status"] for p in rec.of("turn/completed")]
    assert statuses == ["completed", "failed", "completed"]
    (error,) = rec.of("error")
    assert error["turnId"] == "t2" and error["error"]["message"].startswith("The review failed:")


@pytest.mark.parametrize(
    ("answer", "decision"),
    [
        ({"answers": {"mcp_tool_call_approval_m1": {"answers": ["Approve Once"]}}}, "approved"),
        (
            {"answers": {"mcp_tool_call_approval_m1": {"answers": ["Approve this Session"]}}},
            "approved_for_session",
        ),
        ({"answers": {"mcp_tool_call_approval_m1": {"answers": ["Deny"]}}}, "denied"),
        ({"answers": {"mcp_tool_call_approval_m1": {"answers": ["Cancel"]}}}, "abort"),
        ({"answers": {"mcp_tool_call_approval_m1": {"answers": ["sure, why not"]}}}, "denied"),
        ({"answers": {}}, "denied"),
        ({"answers": 7}, "denied"),
    ],
)
async def test_mcp_approval_answers_become_exec_approvals(answer, decision, schema):
    client = Client([answer])
    ops: list[Any] = []

    async def submit(op: Any) -> None:
        ops.append(op)

    request = mcp_request(["mcp", "tests", "add", "{}"])
    async with anyio.create_task_group() as tasks:
        router = ApprovalRouter("th", client, submit, tasks.start_soon, lambda f, d: None)
        router.ask_mcp_tool("t1", request, "tests", "add")

    ((method, params),) = client.sent
    assert method == "item/tool/requestUserInput"
    assert params["itemId"] == "m1"
    (question,) = params["questions"]
    assert question["id"] == "mcp_tool_call_approval_m1"
    assert question["isOther"] is False
    assert [o["label"] for o in question["options"]] == list(MCP_APPROVAL_OPTIONS)
    errors = schema.server_request_errors({"id": 0, "method": method, "params": params})
    assert errors == []
    assert ops == [ExecApproval(id="m1", turn_id="t1", decision=decision)]


async def test_replies_hold_a_review_until_released():
    replies = Replies()
    replies.expect("r1", ("task_started", "error"), hold=True)
    began = ev.Event(id="r1", msg=ev.TaskStartedEvent(turn_id="r1"))
    later = ev.Event(id="r1", msg=ev.WarningEvent(message="w"))
    other = ev.Event(id="t0", msg=ev.TurnAbortedEvent(turn_id="t0", reason="replaced"))
    assert replies.offer(other) is False
    assert replies.offer(began) is True
    assert (await replies.wait("r1")) is began
    assert replies.offer(later) is True
    delivered: list[ev.Event] = []
    replies.release("r1", delivered.append)
    assert delivered == [began, later]
    assert replies.offer(ev.Event(id="r1", msg=ev.WarningEvent(message="after"))) is False


async def test_replies_take_an_error_answer_and_hold_nothing_after_it():
    replies = Replies()
    replies.expect("r1", ("task_started", "error"), hold=True)
    refused = ev.Event(id="r1", msg=ev.ErrorEvent(message="Review prompt cannot be empty"))
    assert replies.offer(refused) is True
    assert (await replies.wait("r1")) is refused
    assert replies.offer(ev.Event(id="r1", msg=ev.WarningEvent(message="x"))) is False


async def test_replies_end_with_thread_gone_when_the_thread_closes():
    replies = Replies()
    replies.expect("s1", ("list_skills_response",))

    async def close_soon() -> None:
        await anyio.sleep(0)
        replies.close()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(close_soon)
        with pytest.raises(ThreadGone):
            await replies.wait("s1")
    replies.expect("s2", ("list_skills_response",))
    with pytest.raises(ThreadGone):
        await replies.wait("s2")
