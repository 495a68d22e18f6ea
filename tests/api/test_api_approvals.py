"""`ApprovalRouter`: v2 requests out, the client's answers back as core ops."""

from __future__ import annotations

from typing import Any, TypeVar

import anyio
import pytest
from pydantic import BaseModel

from codex_lsp.api.approvals.requests import ApprovalRouter
from codex_lsp.api.port import ApiError, read_answer
from codex_lsp.protocol.common import dump
from codex_lsp.protocol.core import events as ev
from codex_lsp.protocol.core.ops import ExecApproval, PatchApproval, UserInputAnswer
from tests.support.ports import sent_params
from tests.support.schema_check import SchemaChecker

R = TypeVar("R", bound=BaseModel)


class Client:
    def __init__(self, answers: list[Any]) -> None:
        self.answers = answers
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def notify(self, method: str, params: BaseModel) -> None:
        sent_params(method, params)

    async def request(self, method: str, params: BaseModel, result: type[R]) -> R:
        self.sent.append((method, dump(params)))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return read_answer(method, answer, result)

    def workspace_for(self, cwd: Any) -> Any:
        return None

    def backlog(self) -> int:
        return 0

    async def drained(self) -> None:
        pass


async def _route(answers: list[Any], ask: Any) -> tuple[Client, list[Any], list[tuple[str, int]]]:
    client = Client(answers)
    ops: list[Any] = []
    waits: list[tuple[str, int]] = []

    async def submit(op: Any) -> None:
        ops.append(op)

    async with anyio.create_task_group() as tasks:
        router = ApprovalRouter(
            "th", client, submit, tasks.start_soon, lambda f, d: waits.append((f, d))
        )
        ask(router)
    return client, ops, waits


EXEC = ev.ExecApprovalRequestEvent(
    call_id="c1",
    turn_id="t1",
    command=["bash", "-lc", "ls src"],
    cwd="/w",
    reason="look",
    parsed_cmd=[{"type": "list_files", "cmd": "ls src", "path": "src"}],
)


@pytest.mark.parametrize(
    ("decision", "core"),
    [
        ("accept", "approved"),
        ("acceptForSession", "approved_for_session"),
        ("decline", "denied"),
        ("cancel", "abort"),
        (
            {
                "applyNetworkPolicyAmendment": {
                    "network_policy_amendment": {"host": "x", "action": "deny"}
                }
            },
            "denied",
        ),
        ({"decision": "maybe"}, "denied"),
    ],
)
async def test_exec_decisions_map_to_core_review_decisions(decision, core):
    answer = (
        {"decision": decision}
        if not isinstance(decision, dict) or "decision" not in decision
        else decision
    )
    client, ops, waits = await _route([answer], lambda r: r.ask_exec("t1", EXEC))
    assert ops == [ExecApproval(id="c1", turn_id="t1", decision=core)]
    assert waits == [("waitingOnApproval", 1), ("waitingOnApproval", -1)]
    method, params = client.sent[0]
    assert method == "item/commandExecution/requestApproval"
    assert params["commandActions"] == [{"type": "listFiles", "command": "ls src", "path": "src"}]
    assert (
        SchemaChecker().server_request_errors({"id": 0, "method": method, "params": params}) == []
    )


async def test_an_error_answer_declines_and_a_patch_request_carries_its_diffs():
    patch = ev.ApplyPatchApprovalRequestEvent(
        call_id="p1", turn_id="t1", changes={"/w/a.txt": {"type": "add", "content": "x\n"}}
    )
    from codex_lsp.api.convert import file_change_diffs

    client, ops, _ = await _route(
        [ApiError(-32000, "closed")],
        lambda r: r.ask_patch("t1", patch, file_change_diffs(patch.changes)),
    )
    assert ops == [PatchApproval(id="p1", decision="denied")]
    params = client.sent[0][1]
    # The protocol's fields, null when unset; the diffs only under our own key.
    assert (params["reason"], params["grantRoot"], "changes" in params) == (None, None, False)
    change = params["codexLsp"]["changes"][0]
    assert change["diff"] == "--- /dev/null\n+++ /w/a.txt\n@@ -0,0 +1 @@\n+x\n"


async def test_questions_go_out_as_request_user_input_and_answers_come_back():
    event = ev.RequestUserInputEvent(
        call_id="q1",
        turn_id="t1",
        questions=[
            {
                "id": "color",
                "header": "Color",
                "question": "Which?",
                "options": [{"label": "Red", "description": "warm"}],
            }
        ],
    )
    answer = {"answers": {"color": {"answers": ["Red"]}}}
    client, ops, waits = await _route([answer], lambda r: r.ask_user_input("t1", event))
    method, params = client.sent[0]
    assert method == "item/tool/requestUserInput"
    assert params["questions"][0]["options"] == [{"label": "Red", "description": "warm"}]
    assert (
        SchemaChecker().server_request_errors({"id": 0, "method": method, "params": params}) == []
    )
    assert ops == [UserInputAnswer(id="t1", answers={"color": {"selected": ["Red"]}})]
    assert waits[0] == ("waitingOnUserInput", 1)


async def test_accepting_with_a_prefix_rule_runs_it_once_and_carries_the_rule():
    answer = {"decision": {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["ls"]}}}
    _client, ops, _ = await _route([answer], lambda r: r.ask_exec("t1", EXEC))
    assert ops == [
        ExecApproval(id="c1", turn_id="t1", decision="approved", execpolicy_amendment=["ls"])
    ]


async def test_a_command_approval_has_the_reference_shape():
    _client, _ops, _ = await _route([{"decision": "accept"}], lambda r: r.ask_exec("t1", EXEC))
    params = _client.sent[0][1]
    assert (params["kind"], params["environmentId"]) == ("command", "local")
    # One simple command: its words are offered as a rule for next time, after accept and
    # before cancel, as the reference server offers them.
    assert params["proposedExecpolicyAmendment"] == ["ls", "src"]
    assert params["availableDecisions"] == [
        "accept",
        "acceptForSession",
        {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["ls", "src"]}},
        "decline",
        "cancel",
    ]
    piped = EXEC.model_copy(update={"command": ["bash", "-lc", "ls src | wc -l"]})
    client, _ops, _ = await _route([{"decision": "accept"}], lambda r: r.ask_exec("t1", piped))
    params = client.sent[0][1]
    assert "proposedExecpolicyAmendment" not in params
    assert params["availableDecisions"] == ["accept", "acceptForSession", "decline", "cancel"]
