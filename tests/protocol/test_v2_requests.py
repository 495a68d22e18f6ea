"""A sample of every client request we serve, params and result, checked against the reference."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from codex_lsp.protocol import common as com, v2
from codex_lsp.protocol.account import models as acc
from codex_lsp.protocol.catalog import models as cat
from codex_lsp.protocol.config import models as cfg
from codex_lsp.protocol.initialize import models as ini
from codex_lsp.protocol.threads import models as th
from codex_lsp.protocol.turns import items as it, models as tu, tasks as ta
from tests.exec.v2_samples import COMMAND_CLIENT_SAMPLES
from tests.protocol import v2_family_samples as family_samples
from tests.protocol.test_v2_items import item_variants, limits, session, thread, turn
from tests.support.schema_check import SchemaChecker

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
            session(th.ThreadStartResponse),
        ),
        (
            th.ThreadStartParams(),
            session(th.ThreadStartResponse, git_info=com.GitInfo(branch="main")),
        ),
    ],
    "thread/resume": [
        (
            th.ThreadResumeParams(thread_id="t1", model="gpt-5"),
            session(th.ThreadResumeResponse, turns=[turn(items=item_variants())]),
        )
    ],
    "thread/fork": [
        (
            th.ThreadForkParams(thread_id="t1", ephemeral=True),
            session(th.ThreadForkResponse, forked_from_id="t0"),
        )
    ],
    "thread/list": [
        (
            th.ThreadListParams(
                limit=2, sort_key="updated_at", cwd=["/a", "/b"], source_kinds=["vscode"]
            ),
            th.ThreadListResponse(
                data=[
                    thread(status=th.NotLoadedThreadStatus(), name="named"),
                    thread(project_id="p"),
                ],
                next_cursor="c2",
            ),
        )
    ],
    "thread/read": [
        (
            th.ThreadReadParams(thread_id="t1", include_turns=True),
            th.ThreadReadResponse(
                thread=thread(
                    status=th.ActiveThreadStatus(active_flags=["waitingOnApproval"]),
                    turns=[
                        turn(items=item_variants(), started_at=1, completed_at=2, duration_ms=1000),
                        turn(
                            "failed",
                            error=tu.TurnError(
                                message="ctx", codex_error_info="contextWindowExceeded"
                            ),
                        ),
                        turn(
                            "failed",
                            error=tu.TurnError(
                                message="502",
                                codex_error_info=tu.http_error_info("httpConnectionFailed", 502),
                            ),
                        ),
                        turn("interrupted"),
                    ],
                )
            ),
        )
    ],
    "thread/archive": [(th.ThreadArchiveParams(thread_id="t1"), th.ThreadArchiveResponse())],
    "thread/unarchive": [
        (th.ThreadUnarchiveParams(thread_id="t1"), th.ThreadUnarchiveResponse(thread=thread()))
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
            tu.TurnStartResponse(turn=turn("inProgress", items_view="notLoaded")),
        ),
        (
            tu.TurnStartParams(
                thread_id="t1", input=[], sandbox_policy=com.DangerFullAccessSandboxPolicy()
            ),
            tu.TurnStartResponse(turn=turn("inProgress")),
        ),
        (
            tu.TurnStartParams(
                thread_id="t1", input=[], sandbox_policy=com.ExternalSandboxSandboxPolicy()
            ),
            tu.TurnStartResponse(turn=turn("inProgress")),
        ),
    ],
    "turn/interrupt": [
        (tu.TurnInterruptParams(thread_id="t1", turn_id="turn1"), tu.TurnInterruptResponse())
    ],
    "review/start": [
        (
            tu.ReviewStartParams(thread_id="t1", target=target, delivery="inline"),
            tu.ReviewStartResponse(turn=turn("inProgress"), review_thread_id="t1"),
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
                rate_limits=limits(), rate_limits_by_limit_id={"codex": limits()}
            ),
        )
    ],
}

CLIENT_SAMPLES.update(COMMAND_CLIENT_SAMPLES)


CLIENT_SAMPLES.update(family_samples.REQUEST_SAMPLES)


def test_samples_cover_every_client_request() -> None:
    # Experimental methods are not in the reference's stable schema to check them against,
    # nor our extensions, which it lacks.
    unchecked = v2.EXPERIMENTAL_METHODS | v2.EXTENSION_REQUESTS
    assert set(CLIENT_SAMPLES) == set(v2.CLIENT_REQUESTS) - unchecked


def test_our_turn_start_task_reads_back_what_it_writes() -> None:
    """`turn/startTask` is ours (the reference has no schema for it): what a client writes in
    each task and context shape, the server reads back unchanged."""
    where = ta.LspRange(
        start=ta.LspPosition(line=1, character=0), end=ta.LspPosition(line=2, character=0)
    )
    finding = ta.TaskFinding(
        title="[P1] x", path="/r/a.py", line_range=ta.FindingLineRange(start=2, end=3)
    )
    tasks = [
        ta.AskTask(text="why?"),
        ta.EditTask(instruction="rename", path="a.py", range=where, text="x = 1\n"),
        ta.FixFindingTask(finding=finding, text="y\n"),
        ta.ExplainFindingTask(finding=finding),
        ta.ApplyCodeTask(path="a.py", code="z = 2\n", language="python"),
    ]
    context = [
        ta.FileContextItem(path="a.py", range=where),
        ta.ProblemsContextItem(
            problems=[ta.EditorProblem(path="a.py", range=where, message="bad", source="ruff")]
        ),
    ]
    for task in tasks:
        params = ta.TurnStartTaskParams(thread_id="t1", task=task, context=context, model="m")
        wire = v2.dump(params)
        assert wire["task"]["type"] == task.type and "threadId" in wire
        assert v2.dump(v2.parse_params("turn/startTask", wire)) == wire


def test_every_registered_method_exists_in_the_reference(checker: SchemaChecker) -> None:
    stable = set(v2.CLIENT_REQUESTS) - v2.EXPERIMENTAL_METHODS - v2.EXTENSION_REQUESTS
    assert stable <= set(checker.client_requests)
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
