"""A sample of every notification and server request we send, checked against the reference."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from codex_lsp.protocol import v2
from codex_lsp.protocol.account import models as acc
from codex_lsp.protocol.approvals import models as req
from codex_lsp.protocol.threads import models as th, notifications as note, search
from codex_lsp.protocol.turns import items as it, models as tu
from tests.exec.v2_samples import COMMAND_NOTIFICATION_SAMPLES
from tests.protocol import v2_family_samples as family_samples
from tests.protocol.test_v2_items import item_variants, limits, thread, turn, usage
from tests.support.schema_check import SchemaChecker

_DELTA = dict(thread_id="t1", turn_id="turn1", item_id="i1")

NOTIFICATION_SAMPLES: dict[str, list[BaseModel]] = {
    "error": [
        note.ErrorNotification(
            error=tu.TurnError(
                message="stream dropped",
                codex_error_info=tu.http_error_info("responseStreamDisconnected", None),
            ),
            will_retry=True,
            thread_id="t1",
            turn_id="turn1",
        )
    ],
    "warning": [
        note.WarningNotification(message="careful", thread_id="t1"),
        note.WarningNotification(message="x"),
    ],
    "thread/started": [note.ThreadStartedNotification(thread=thread())],
    "thread/archived": [note.ThreadArchivedNotification(thread_id="t1")],
    "thread/unarchived": [note.ThreadUnarchivedNotification(thread_id="t1")],
    "thread/search/partial": [
        search.ThreadSearchPartialNotification(
            request_id=7, data=[search.ThreadSearchResult(thread=thread(), snippet="zebra")]
        ),
        search.ThreadSearchPartialNotification(request_id="r1", data=[]),
    ],
    "thread/name/updated": [note.ThreadNameUpdatedNotification(thread_id="t1", thread_name="Fix")],
    "thread/status/changed": [
        note.ThreadStatusChangedNotification(thread_id="t1", status=s)
        for s in (
            th.IdleThreadStatus(),
            th.NotLoadedThreadStatus(),
            th.SystemErrorThreadStatus(),
            th.ActiveThreadStatus(active_flags=["waitingOnUserInput"]),
        )
    ],
    "thread/tokenUsage/updated": [
        note.ThreadTokenUsageUpdatedNotification(
            thread_id="t1", turn_id="turn1", token_usage=usage()
        )
    ],
    "turn/started": [note.TurnStartedNotification(thread_id="t1", turn=turn("inProgress"))],
    "turn/completed": [
        note.TurnCompletedNotification(thread_id="t1", turn=turn(s))
        for s in ("completed", "interrupted", "failed")
    ],
    "turn/diff/updated": [
        note.TurnDiffUpdatedNotification(thread_id="t1", turn_id="turn1", diff="diff --git a b\n")
    ],
    "turn/plan/updated": [
        note.TurnPlanUpdatedNotification(
            thread_id="t1",
            turn_id="turn1",
            explanation="why",
            plan=[
                note.TurnPlanStep(step="a", status="completed"),
                note.TurnPlanStep(step="b", status="inProgress"),
            ],
        )
    ],
    "item/started": [
        note.ItemStartedNotification(item=item, thread_id="t1", turn_id="turn1", started_at_ms=5)
        for item in item_variants()
    ],
    "item/completed": [
        note.ItemCompletedNotification(
            item=item, thread_id="t1", turn_id="turn1", completed_at_ms=6
        )
        for item in item_variants()
    ],
    "item/agentMessage/delta": [note.AgentMessageDeltaNotification(**_DELTA, delta="Hel")],
    "item/reasoning/summaryTextDelta": [
        note.ReasoningSummaryTextDeltaNotification(**_DELTA, delta="x", summary_index=0)
    ],
    "item/reasoning/summaryPartAdded": [
        note.ReasoningSummaryPartAddedNotification(**_DELTA, summary_index=1)
    ],
    "item/reasoning/textDelta": [
        note.ReasoningTextDeltaNotification(**_DELTA, delta="y", content_index=0)
    ],
    "item/commandExecution/outputDelta": [
        note.CommandExecutionOutputDeltaNotification(**_DELTA, delta="out\n")
    ],
    "item/fileChange/outputDelta": [
        note.FileChangeOutputDeltaNotification(**_DELTA, delta="Success.\n")
    ],
    "serverRequest/resolved": [
        note.ServerRequestResolvedNotification(thread_id="t1", request_id=0),
        note.ServerRequestResolvedNotification(thread_id="t1", request_id="r-1"),
    ],
    "account/updated": [
        acc.AccountUpdatedNotification(auth_mode="apikey"),
        acc.AccountUpdatedNotification(),
    ],
    "account/rateLimits/updated": [acc.AccountRateLimitsUpdatedNotification(rate_limits=limits())],
    "account/login/completed": [
        acc.AccountLoginCompletedNotification(login_id="l1", success=True),
        acc.AccountLoginCompletedNotification(success=False, error="denied"),
    ],
}

SERVER_REQUEST_SAMPLES: dict[str, list[tuple[BaseModel, BaseModel]]] = {
    "item/commandExecution/requestApproval": [
        (
            req.CommandExecutionRequestApprovalParams(
                thread_id="t1",
                turn_id="turn1",
                item_id="call_1",
                started_at_ms=1,
                reason="needs network",
                command="curl x",
                cwd="/repo",
                command_actions=[it.UnknownCommandAction(command="curl x")],
                network_approval_context=req.NetworkApprovalContext(host="x", protocol="https"),
                proposed_execpolicy_amendment=["curl"],
                proposed_network_policy_amendments=[
                    req.NetworkPolicyAmendment(host="x", action="allow")
                ],
            ),
            req.CommandExecutionRequestApprovalResponse(decision=decision),
        )
        for decision in (
            "accept",
            "acceptForSession",
            "decline",
            "cancel",
            req.AcceptWithExecpolicyAmendmentDecision(
                accept_with_execpolicy_amendment=req.ExecpolicyAmendment(
                    execpolicy_amendment=["curl"]
                )
            ),
            req.ApplyNetworkPolicyAmendmentDecision(
                apply_network_policy_amendment=req.NetworkPolicyAmendmentChoice(
                    network_policy_amendment=req.NetworkPolicyAmendment(host="x", action="deny")
                )
            ),
        )
    ],
    "item/fileChange/requestApproval": [
        (
            req.FileChangeRequestApprovalParams(
                thread_id="t1",
                turn_id="turn1",
                item_id="call_2",
                started_at_ms=1,
                changes=[
                    it.FileUpdateChange(
                        path="/repo/a", kind=it.UpdatePatchChangeKind(), diff="@@\n"
                    )
                ],
            ),
            req.FileChangeRequestApprovalResponse(decision=decision),
        )
        for decision in ("accept", "acceptForSession", "decline", "cancel")
    ],
    "item/tool/requestUserInput": [
        (
            req.ToolRequestUserInputParams(
                thread_id="t1",
                turn_id="turn1",
                item_id="call_3",
                questions=[
                    req.ToolRequestUserInputQuestion(
                        id="q1",
                        header="Pick",
                        question="Which one?",
                        options=[req.ToolRequestUserInputOption(label="A", description="first")],
                    )
                ],
            ),
            req.ToolRequestUserInputResponse(
                answers={"q1": req.ToolRequestUserInputAnswer(answers=["A"])}
            ),
        )
    ],
}

NOTIFICATION_SAMPLES.update(COMMAND_NOTIFICATION_SAMPLES)


NOTIFICATION_SAMPLES.update(family_samples.NOTIFICATION_SAMPLES)


def test_samples_cover_every_notification_and_server_request() -> None:
    assert set(NOTIFICATION_SAMPLES) == set(v2.SERVER_NOTIFICATIONS)
    assert set(SERVER_REQUEST_SAMPLES) == set(v2.SERVER_REQUESTS)


@pytest.mark.parametrize("method", sorted(NOTIFICATION_SAMPLES))
def test_notification_samples_match_the_schema(checker: SchemaChecker, method: str) -> None:
    model = v2.SERVER_NOTIFICATIONS[method]
    for params in NOTIFICATION_SAMPLES[method]:
        assert isinstance(params, model)
        checker.check_notification({"method": method, "params": v2.dump(params)})
        assert v2.dump(model.model_validate(v2.dump(params))) == v2.dump(params)


@pytest.mark.parametrize("method", sorted(SERVER_REQUEST_SAMPLES))
def test_server_request_samples_match_the_schema(checker: SchemaChecker, method: str) -> None:
    param_type, result_type = v2.SERVER_REQUESTS[method]
    for index, (params, result) in enumerate(SERVER_REQUEST_SAMPLES[method]):
        assert isinstance(params, param_type) and isinstance(result, result_type)
        checker.check_server_request({"id": index, "method": method, "params": v2.dump(params)})
        checker.check_client_response(method, {"id": index, "result": v2.dump(result)})
        assert v2.dump(result_type.model_validate(v2.dump(result))) == v2.dump(result)
