"""Our v2 models against the schema of the real `codex app-server`.

The real transcripts must pass the checker (so the checker is right), and a sample of every method,
notification and server request built from our models must pass it too (so our models are right).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel
from support.schema_check import (
    SchemaChecker,
    SchemaViolation,
    TranscriptChecker,
    read_trace,
    traces_dir,
)

from codex_lsp.protocol import v2
from codex_lsp.protocol import v2_account as acc
from codex_lsp.protocol import v2_catalog as cat
from codex_lsp.protocol import v2_common as com
from codex_lsp.protocol import v2_config as cfg
from codex_lsp.protocol import v2_initialize as ini
from codex_lsp.protocol import v2_items as it
from codex_lsp.protocol import v2_notifications as note
from codex_lsp.protocol import v2_requests as req
from codex_lsp.protocol import v2_threads as th
from codex_lsp.protocol import v2_turns as tu

TRACES = sorted(traces_dir().glob("*.jsonl"))


@pytest.fixture(scope="module")
def checker() -> SchemaChecker:
    return SchemaChecker()


# -- the checker itself, on the real server's traffic ----------------------------------------


@pytest.mark.parametrize("trace", TRACES, ids=lambda p: p.name)
def test_real_transcripts_pass(checker: SchemaChecker, trace: Path) -> None:
    transcript = TranscriptChecker(checker)
    assert transcript.feed_all(read_trace(trace)) == []


def test_there_are_transcripts() -> None:
    assert len(TRACES) >= 5


def test_checker_rejects_a_broken_item_with_a_precise_path(checker: SchemaChecker) -> None:
    message = {
        "method": "item/completed",
        "params": {
            "threadId": "t",
            "turnId": "u",
            "completedAtMs": 1,
            "item": {"type": "fileChange", "id": "c", "changes": [], "status": "done"},
        },
    }
    with pytest.raises(SchemaViolation) as caught:
        checker.check_notification(message)
    assert caught.value.errors == [
        "notification item/completed: at $.params.item.status: 'done' is not one of "
        "['inProgress', 'completed', 'failed', 'declined']"
    ]


def test_checker_pairs_responses_with_their_requests(checker: SchemaChecker) -> None:
    transcript = TranscriptChecker(checker, forbid_jsonrpc_from_server=True)
    transcript.feed("client", {"id": 7, "method": "thread/archive", "params": {"threadId": "t"}})
    # `thread/archive` answers `{}`, so a `thread/read`-shaped result is still valid, but a
    # missing `result` is not.
    assert transcript.feed("server", {"id": 7}) != []
    assert transcript.feed("server", {"id": 99, "result": {}}) == [
        "server response with unknown id 99"
    ]
    assert transcript.feed("server", {"jsonrpc": "2.0", "method": "warning", "params": {}}) != []


def test_checker_reads_the_answer_to_a_server_request(checker: SchemaChecker) -> None:
    transcript = TranscriptChecker(checker)
    params = {"threadId": "t", "turnId": "u", "itemId": "i", "startedAtMs": 1}
    transcript.feed(
        "server", {"id": 0, "method": "item/fileChange/requestApproval", "params": params}
    )
    errors = transcript.feed("client", {"id": 0, "result": {"decision": "maybe"}})
    assert errors and "$.decision" in errors[0]


def test_checker_accepts_error_responses(checker: SchemaChecker) -> None:
    checker.check_response("thread/read", {"id": 1, "error": {"code": -32600, "message": "no"}})
    with pytest.raises(SchemaViolation):
        checker.check_response("thread/read", {"id": 1, "error": {"message": "no code"}})


# -- our models, one sample per method -------------------------------------------------------


def _item_variants() -> list[BaseModel]:
    text = it.TextUserInput(
        text="hi", text_elements=[it.TextElement(byte_range=it.ByteRange(start=0, end=2))]
    )
    return [
        it.UserMessageThreadItem(
            id="u1",
            content=[
                text,
                it.ImageUserInput(url="data:image/png;base64,AAAA"),
                it.LocalImageUserInput(path="/tmp/a.png", detail="high"),
                it.SkillUserInput(name="deploy", path="/skills/deploy/SKILL.md"),
                it.MentionUserInput(name="main.py", path="/repo/main.py"),
            ],
            started_at_ms=1,
        ),
        it.AgentMessageThreadItem(id="m1", text="Done.", phase="final_answer"),
        it.PlanThreadItem(id="p1", text="1. look\n2. fix"),
        it.ReasoningThreadItem(id="r1", summary=["**Looking**"], content=["raw"]),
        it.CommandExecutionThreadItem(
            id="call_1",
            command="/bin/bash -lc 'cat a.py'",
            cwd="/repo",
            status="completed",
            command_actions=[
                it.ReadCommandAction(command="cat a.py", name="a.py", path="/repo/a.py"),
                it.ListFilesCommandAction(command="ls"),
                it.SearchCommandAction(command="rg foo", query="foo"),
                it.UnknownCommandAction(command="make"),
            ],
            aggregated_output="x\n",
            exit_code=0,
            duration_ms=12,
            process_id="42",
        ),
        it.FileChangeThreadItem(
            id="call_2",
            status="declined",
            changes=[
                it.FileUpdateChange(path="/repo/n.txt", kind=it.AddPatchChangeKind(), diff="new\n"),
                it.FileUpdateChange(
                    path="/repo/o.txt", kind=it.DeletePatchChangeKind(), diff="old\n"
                ),
                it.FileUpdateChange(
                    path="/repo/a.py",
                    kind=it.UpdatePatchChangeKind(move_path="/repo/b.py"),
                    diff="@@ -1 +1 @@\n-a\n+b\n",
                ),
            ],
        ),
        it.McpToolCallThreadItem(
            id="mcp1",
            server="docs",
            tool="search",
            status="completed",
            arguments={"q": "x"},
            result=it.McpToolCallResult(content=[{"type": "text", "text": "r"}], meta={"k": 1}),
            duration_ms=5,
        ),
        it.McpToolCallThreadItem(
            id="mcp2",
            server="docs",
            tool="search",
            status="failed",
            arguments=None,
            error=it.McpToolCallError(message="boom"),
        ),
        it.WebSearchThreadItem(
            id="w1", query="pydantic", action=it.SearchWebSearchAction(query="pydantic")
        ),
        it.WebSearchThreadItem(
            id="w2", query="", action=it.OpenPageWebSearchAction(url="https://x")
        ),
        it.WebSearchThreadItem(id="w3", query="", action=it.FindInPageWebSearchAction(pattern="p")),
        it.ImageViewThreadItem(id="iv", path="/repo/shot.png"),
        it.EnteredReviewModeThreadItem(id="er", review="current changes"),
        it.ExitedReviewModeThreadItem(id="xr", review="No issues found."),
        it.ContextCompactionThreadItem(id="cc"),
    ]


def _turn(status: tu.TurnStatus = "completed", **extra) -> tu.Turn:
    return tu.Turn(id="turn1", status=status, items=extra.pop("items", []), **extra)


def _thread(**extra) -> th.Thread:
    base = dict(
        id="t1",
        session_id="t1",
        preview="Say hello.",
        ephemeral=False,
        model_provider="openai",
        created_at=1_700_000_000,
        updated_at=1_700_000_001,
        status=th.IdleThreadStatus(),
        cwd="/repo",
        cli_version="0.1.0",
        source="vscode",
    )
    base.update(extra)
    return th.Thread(**base)


def _session(model: type[BaseModel], **extra) -> BaseModel:
    return model(
        thread=_thread(**extra),
        model="gpt-5",
        model_provider="openai",
        cwd="/repo",
        approval_policy="on-request",
        approvals_reviewer="user",
        sandbox=com.WorkspaceWriteSandboxPolicy(writable_roots=["/repo"]),
        reasoning_effort="medium",
    )


def _usage() -> com.ThreadTokenUsage:
    b = com.TokenUsageBreakdown(
        total_tokens=12,
        input_tokens=10,
        cached_input_tokens=2,
        output_tokens=2,
        reasoning_output_tokens=0,
    )
    return com.ThreadTokenUsage(total=b, last=b, model_context_window=272_000)


def _limits() -> acc.RateLimitSnapshot:
    return acc.RateLimitSnapshot(
        limit_id="codex",
        primary=acc.RateLimitWindow(
            used_percent=42, window_duration_mins=300, resets_at=1_700_000_500
        ),
        credits=acc.CreditsSnapshot(has_credits=True, unlimited=False, balance="10"),
        plan_type="plus",
    )


CLIENT_SAMPLES: dict[str, list[tuple[BaseModel, BaseModel]]] = {
    "initialize": [
        (
            ini.InitializeParams(
                client_info=ini.ClientInfo(name="nvim", version="0.10", title="Neovim"),
                capabilities=ini.InitializeCapabilities(experimental_api=True),
            ),
            ini.InitializeResponse(
                user_agent="codex-lsp/0.1.0",
                codex_home="/home/u/.codex-lsp",
                platform_family="unix",
                platform_os="linux",
            ),
        )
    ],
    "thread/start": [
        (
            th.ThreadStartParams(
                cwd="/repo", sandbox="workspace-write", approval_policy="never", config={"k": 1}
            ),
            _session(th.ThreadStartResponse),
        ),
        (
            th.ThreadStartParams(),
            _session(th.ThreadStartResponse, git_info=com.GitInfo(branch="main")),
        ),
    ],
    "thread/resume": [
        (
            th.ThreadResumeParams(thread_id="t1", model="gpt-5"),
            _session(th.ThreadResumeResponse, turns=[_turn(items=_item_variants())]),
        )
    ],
    "thread/fork": [
        (
            th.ThreadForkParams(thread_id="t1", ephemeral=True),
            _session(th.ThreadForkResponse, forked_from_id="t0"),
        )
    ],
    "thread/list": [
        (
            th.ThreadListParams(
                limit=2, sort_key="updated_at", cwd=["/a", "/b"], source_kinds=["vscode"]
            ),
            th.ThreadListResponse(
                data=[
                    _thread(status=th.NotLoadedThreadStatus(), name="named"),
                    _thread(project_id="p"),
                ],
                next_cursor="c2",
            ),
        )
    ],
    "thread/read": [
        (
            th.ThreadReadParams(thread_id="t1", include_turns=True),
            th.ThreadReadResponse(
                thread=_thread(
                    status=th.ActiveThreadStatus(active_flags=["waitingOnApproval"]),
                    turns=[
                        _turn(
                            items=_item_variants(), started_at=1, completed_at=2, duration_ms=1000
                        ),
                        _turn(
                            "failed",
                            error=tu.TurnError(
                                message="ctx", codex_error_info="contextWindowExceeded"
                            ),
                        ),
                        _turn(
                            "failed",
                            error=tu.TurnError(
                                message="502",
                                codex_error_info=tu.http_error_info("httpConnectionFailed", 502),
                            ),
                        ),
                        _turn("interrupted"),
                    ],
                )
            ),
        )
    ],
    "thread/archive": [(th.ThreadArchiveParams(thread_id="t1"), th.ThreadArchiveResponse())],
    "thread/unarchive": [
        (th.ThreadUnarchiveParams(thread_id="t1"), th.ThreadUnarchiveResponse(thread=_thread()))
    ],
    "thread/name/set": [
        (th.ThreadSetNameParams(thread_id="t1", name="Fix"), th.ThreadSetNameResponse())
    ],
    "turn/start": [
        (
            tu.TurnStartParams(
                thread_id="t1",
                input=[it.TextUserInput(text="hi"), it.ImageUserInput(file_id="file_1")],
                sandbox_policy=com.ReadOnlySandboxPolicy(network_access=True),
                effort="high",
                summary="concise",
                approval_policy=com.GranularAskForApproval(
                    granular=com.GranularApproval(
                        sandbox_approval=True, rules=False, mcp_elicitations=False
                    )
                ),
            ),
            tu.TurnStartResponse(turn=_turn("inProgress", items_view="notLoaded")),
        ),
        (
            tu.TurnStartParams(
                thread_id="t1", input=[], sandbox_policy=com.DangerFullAccessSandboxPolicy()
            ),
            tu.TurnStartResponse(turn=_turn("inProgress")),
        ),
        (
            tu.TurnStartParams(
                thread_id="t1", input=[], sandbox_policy=com.ExternalSandboxSandboxPolicy()
            ),
            tu.TurnStartResponse(turn=_turn("inProgress")),
        ),
    ],
    "turn/interrupt": [
        (tu.TurnInterruptParams(thread_id="t1", turn_id="turn1"), tu.TurnInterruptResponse())
    ],
    "review/start": [
        (
            tu.ReviewStartParams(thread_id="t1", target=target, delivery="inline"),
            tu.ReviewStartResponse(turn=_turn("inProgress"), review_thread_id="t1"),
        )
        for target in (
            tu.UncommittedChangesReviewTarget(),
            tu.BaseBranchReviewTarget(branch="main"),
            tu.CommitReviewTarget(sha="abc123", title="Fix"),
            tu.CustomReviewTarget(instructions="Look at auth."),
        )
    ],
    "model/list": [
        (
            cat.ModelListParams(limit=10, include_hidden=True),
            cat.ModelListResponse(
                data=[
                    cat.Model(
                        id="gpt-5",
                        model="gpt-5",
                        display_name="GPT-5",
                        description="Frontier",
                        hidden=False,
                        supported_reasoning_efforts=[
                            cat.ReasoningEffortOption(reasoning_effort="low", description="Fast"),
                            cat.ReasoningEffortOption(reasoning_effort="high", description="Deep"),
                        ],
                        default_reasoning_effort="medium",
                        is_default=True,
                    )
                ]
            ),
        )
    ],
    "config/read": [
        (
            cfg.ConfigReadParams(include_layers=True, cwd="/repo"),
            cfg.ConfigReadResponse(
                config=cfg.Config(
                    model="gpt-5",
                    approval_policy="on-request",
                    sandbox_mode="workspace-write",
                    sandbox_workspace_write=cfg.SandboxWorkspaceWrite(network_access=True),
                    model_reasoning_summary="auto",
                    model_providers={"local": {"base_url": "http://127.0.0.1:1"}},
                ),
                origins={
                    "model": cfg.ConfigLayerMetadata(
                        name=cfg.UserConfigLayerSource(file="/home/u/.codex-lsp/config.toml"),
                        version="v1",
                    )
                },
                layers=[
                    cfg.ConfigLayer(
                        name=cfg.ProjectConfigLayerSource(dot_codex_folder="/repo/.codex"),
                        version="v2",
                        config={"model": "gpt-5"},
                    ),
                    cfg.ConfigLayer(
                        name=cfg.SessionFlagsConfigLayerSource(), version="v3", config={}
                    ),
                    cfg.ConfigLayer(
                        name=cfg.SystemConfigLayerSource(file="/etc/codex/config.toml"),
                        version="v4",
                        config={},
                    ),
                ],
            ),
        )
    ],
    "skills/list": [
        (
            cat.SkillsListParams(cwds=["/repo"], force_reload=True),
            cat.SkillsListResponse(
                data=[
                    cat.SkillsListEntry(
                        cwd="/repo",
                        skills=[
                            cat.SkillMetadata(
                                name="deploy",
                                description="Ship it",
                                path="/repo/.codex/skills/deploy/SKILL.md",
                                scope="repo",
                                enabled=True,
                            )
                        ],
                        errors=[
                            cat.SkillErrorInfo(
                                path="/repo/.codex/skills/bad/SKILL.md", message="no front matter"
                            )
                        ],
                    )
                ]
            ),
        )
    ],
    "account/read": [
        (acc.GetAccountParams(), acc.GetAccountResponse(account=None, requires_openai_auth=True)),
        (
            acc.GetAccountParams(refresh_token=True),
            acc.GetAccountResponse(account=acc.ApiKeyAccount(), requires_openai_auth=True),
        ),
        (
            acc.GetAccountParams(),
            acc.GetAccountResponse(
                account=acc.ChatgptAccount(plan_type="pro"), requires_openai_auth=True
            ),
        ),
    ],
    "account/login/start": [
        (
            acc.LoginAccountParams(acc.ApiKeyLoginAccountParams(api_key="sk-x")),
            acc.LoginAccountResponse(acc.ApiKeyLoginAccountResponse()),
        ),
        (
            acc.LoginAccountParams(acc.ChatgptLoginAccountParams()),
            acc.LoginAccountResponse(
                acc.ChatgptLoginAccountResponse(login_id="l1", auth_url="https://auth")
            ),
        ),
        (
            acc.LoginAccountParams(acc.ChatgptDeviceCodeLoginAccountParams()),
            acc.LoginAccountResponse(
                acc.ChatgptDeviceCodeLoginAccountResponse(
                    login_id="l2", verification_url="https://v", user_code="AB-12"
                )
            ),
        ),
        (
            acc.LoginAccountParams(
                acc.ChatgptAuthTokensLoginAccountParams(access_token="a", chatgpt_account_id="acct")
            ),
            acc.LoginAccountResponse(acc.ChatgptAuthTokensLoginAccountResponse()),
        ),
    ],
    "account/login/cancel": [
        (
            acc.CancelLoginAccountParams(login_id="l1"),
            acc.CancelLoginAccountResponse(status="canceled"),
        )
    ],
    "account/logout": [(acc.LogoutAccountParams(), acc.LogoutAccountResponse())],
    "account/rateLimits/read": [
        (
            acc.GetAccountRateLimitsParams(),
            acc.GetAccountRateLimitsResponse(
                rate_limits=_limits(), rate_limits_by_limit_id={"codex": _limits()}
            ),
        )
    ],
}

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
    "thread/started": [note.ThreadStartedNotification(thread=_thread())],
    "thread/archived": [note.ThreadArchivedNotification(thread_id="t1")],
    "thread/unarchived": [note.ThreadUnarchivedNotification(thread_id="t1")],
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
            thread_id="t1", turn_id="turn1", token_usage=_usage()
        )
    ],
    "turn/started": [note.TurnStartedNotification(thread_id="t1", turn=_turn("inProgress"))],
    "turn/completed": [
        note.TurnCompletedNotification(thread_id="t1", turn=_turn(s))
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
        for item in _item_variants()
    ],
    "item/completed": [
        note.ItemCompletedNotification(
            item=item, thread_id="t1", turn_id="turn1", completed_at_ms=6
        )
        for item in _item_variants()
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
        note.AccountUpdatedNotification(auth_mode="apikey"),
        note.AccountUpdatedNotification(),
    ],
    "account/rateLimits/updated": [
        note.AccountRateLimitsUpdatedNotification(rate_limits=_limits())
    ],
    "account/login/completed": [
        note.AccountLoginCompletedNotification(login_id="l1", success=True),
        note.AccountLoginCompletedNotification(success=False, error="denied"),
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


def test_samples_cover_every_registered_method() -> None:
    assert set(CLIENT_SAMPLES) == set(v2.CLIENT_REQUESTS)
    assert set(NOTIFICATION_SAMPLES) == set(v2.SERVER_NOTIFICATIONS)
    assert set(SERVER_REQUEST_SAMPLES) == set(v2.SERVER_REQUESTS)


def test_every_registered_method_exists_in_the_reference(checker: SchemaChecker) -> None:
    assert set(v2.CLIENT_REQUESTS) <= set(checker.client_requests)
    assert set(v2.SERVER_NOTIFICATIONS) <= set(checker.server_notifications)
    assert set(v2.SERVER_REQUESTS) <= set(checker.server_requests)


def _params_on_wire(method: str, params: BaseModel) -> dict | None:
    wire = v2.dump(params)
    # The reference wants these methods' params absent or null when there are none.
    return None if method in v2.NO_PARAMS_METHODS and wire == {} else wire


@pytest.mark.parametrize("method", sorted(CLIENT_SAMPLES))
def test_client_request_samples_match_the_schema(checker: SchemaChecker, method: str) -> None:
    param_type, result_type = v2.CLIENT_REQUESTS[method]
    for index, (params, result) in enumerate(CLIENT_SAMPLES[method]):
        assert isinstance(params, param_type) and isinstance(result, result_type)
        request = {"id": index, "method": method}
        wire = _params_on_wire(method, params)
        if wire is not None:
            request["params"] = wire
        checker.check_client_request(request)
        checker.check_response(method, {"id": index, "result": v2.dump(result)})
        # What we send, we can read back unchanged.
        assert v2.dump(param_type.model_validate(v2.dump(params))) == v2.dump(params)
        assert v2.dump(result_type.model_validate(v2.dump(result))) == v2.dump(result)


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


# -- our models read the real server's traffic -----------------------------------------------


def _real_messages():
    for trace in TRACES:
        for sender, message in read_trace(trace):
            yield trace.name, sender, message


def test_our_models_read_real_traffic_and_write_it_back_valid(checker: SchemaChecker) -> None:
    """Every real message of a method we model parses, and our re-dump still passes the schema."""
    pending: dict[object, str] = {}
    seen: set[str] = set()
    for name, sender, message in _real_messages():
        method = message.get("method")
        if sender == "client" and method in v2.CLIENT_REQUESTS:
            pending[message["id"]] = method
            parsed = v2.parse_params(method, message.get("params"))
            request = {"id": message["id"], "method": method, "params": v2.dump(parsed)}
            checker.check_client_request(request)
            seen.add(method)
        elif sender == "server" and method in v2.SERVER_NOTIFICATIONS:
            parsed = v2.SERVER_NOTIFICATIONS[method].model_validate(message["params"])
            checker.check_notification({"method": method, "params": v2.dump(parsed)})
            seen.add(method)
        elif sender == "server" and method in v2.SERVER_REQUESTS:
            parsed = v2.SERVER_REQUESTS[method][0].model_validate(message["params"])
            checker.check_server_request({"id": 0, "method": method, "params": v2.dump(parsed)})
            seen.add(method)
        elif sender == "server" and "result" in message and message["id"] in pending:
            answered = pending.pop(message["id"])
            parsed = v2.result_model(answered).model_validate(message["result"])
            checker.check_response(answered, {"id": message["id"], "result": v2.dump(parsed)})
        elif sender == "client" and "result" in message:
            # The answer to a server request; all of those in the traces are approvals.
            parsed = req.CommandExecutionRequestApprovalResponse.model_validate(message["result"])
            assert v2.dump(parsed) == message["result"], name
    assert {
        "thread/start",
        "turn/start",
        "item/started",
        "item/commandExecution/requestApproval",
    } <= seen
