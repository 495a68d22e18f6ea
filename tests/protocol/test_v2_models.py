"""Behaviour of the v2 models that the schema alone does not pin down: None handling, naming,
parsing of what clients send, and the bridges to the core policy types."""

from __future__ import annotations

import json

import pytest
from pydantic import TypeAdapter, ValidationError

from codex_lsp.protocol import common as com, v2
from codex_lsp.protocol.account import models as acc
from codex_lsp.protocol.approvals import models as req
from codex_lsp.protocol.config import models as cfg
from codex_lsp.protocol.core import policy
from codex_lsp.protocol.threads import models as th, notifications as note
from codex_lsp.protocol.turns import items as it, models as tu


def test_optional_none_is_left_out_and_required_nullable_is_written_as_null() -> None:
    thread = th.Thread(
        id="t",
        session_id="t",
        preview="",
        ephemeral=False,
        model_provider="openai",
        created_at=1,
        updated_at=2,
        status=th.IdleThreadStatus(),
        cwd="/r",
        cli_version="0.1.0",
        source="cli",
    )
    wire = v2.dump(thread)
    # What the reference bindings declare `T | null` is written as null, never left out.
    assert wire["projectId"] is None
    assert wire["forkedFromId"] is None and wire["name"] is None and wire["gitInfo"] is None
    assert wire["turns"] == []
    # What they declare optional (`T?`) is left out while unset.
    item = it.McpToolCallThreadItem(id="c", server="s", tool="t", status="completed", arguments={})
    assert "mcpAppResourceUri" not in v2.dump(item) and v2.dump(item)["result"] is None
    assert v2.dump(acc.ChatgptAccount())["email"] is None
    assert v2.dump(note.ThreadNameUpdatedNotification(thread_id="t")) == {"threadId": "t"}


def test_camel_case_out_and_both_spellings_in() -> None:
    delta = note.AgentMessageDeltaNotification(thread_id="t", turn_id="u", item_id="i", delta="d")
    assert v2.dump(delta) == {"threadId": "t", "turnId": "u", "itemId": "i", "delta": "d"}
    camel = note.AgentMessageDeltaNotification.model_validate(v2.dump(delta))
    snake = note.AgentMessageDeltaNotification.model_validate(delta.model_dump(by_alias=False))
    assert camel == snake == delta
    # Plain `model_dump` is camelCase too, so nobody leaks snake_case onto the wire by accident.
    assert "threadId" in delta.model_dump()


def test_dump_json_is_dump_as_text() -> None:
    turn = tu.Turn(id="1", status="failed", error=tu.TurnError(message="boom"))
    assert json.loads(v2.dump_json(turn)) == v2.dump(turn)


def test_the_snake_case_spots_of_the_reference_are_kept() -> None:
    text = v2.dump(it.TextUserInput(text="x"))
    assert text == {"type": "text", "text": "x", "text_elements": []}
    move = v2.dump(it.UpdatePatchChangeKind(move_path="/b"))
    assert move == {"type": "update", "move_path": "/b"}
    decision = req.AcceptWithExecpolicyAmendmentDecision(
        accept_with_execpolicy_amendment=req.ExecpolicyAmendment(execpolicy_amendment=["ls"])
    )
    assert v2.dump(decision) == {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["ls"]}}
    config = cfg.Config(model_provider="local", sandbox_mode="read-only", profiles={"p": {}})
    wire = v2.dump(config)
    assert (wire["model_provider"], wire["sandbox_mode"]) == ("local", "read-only")
    assert wire["profiles"] == {"p": {}} and wire["model_reasoning_effort"] is None
    assert v2.dump(it.McpToolCallResult(content=[], meta={"a": 1})) == {
        "content": [],
        "structuredContent": None,
        "_meta": {"a": 1},
    }


def test_params_read_what_real_clients_send() -> None:
    params = v2.parse_params(
        "turn/start",
        {
            "threadId": "t",
            "input": [
                {"type": "text", "text": "hi", "text_elements": []},
                {"type": "localImage", "path": "/a.png"},
                {"type": "image", "url": "data:image/png;base64,AA"},
            ],
            "sandboxPolicy": {"type": "workspaceWrite", "writableRoots": ["/r"]},
            "approvalPolicy": "untrusted",
            "someFutureField": 1,
        },
    )
    assert isinstance(params, tu.TurnStartParams)
    assert [type(i) for i in params.input] == [
        it.TextUserInput,
        it.LocalImageUserInput,
        it.ImageUserInput,
    ]
    assert params.sandbox_policy == com.WorkspaceWriteSandboxPolicy(writable_roots=["/r"])
    assert params.approval_policy == "untrusted"


def test_absent_params_read_as_empty() -> None:
    assert isinstance(v2.parse_params("account/logout", None), acc.LogoutAccountParams)
    assert isinstance(
        v2.parse_params("account/rateLimits/read", None), acc.GetAccountRateLimitsParams
    )
    with pytest.raises(ValidationError, match="threadId"):
        v2.parse_params("thread/read", None)


def test_unknown_method_is_its_own_error() -> None:
    with pytest.raises(v2.UnknownMethodError):
        v2.parse_params("thread/teleport", {})
    assert v2.is_known_method("item/started") and not v2.is_known_method("thread/teleport")


def test_login_params_are_a_tagged_union() -> None:
    parsed = v2.parse_params("account/login/start", {"type": "apiKey", "apiKey": "sk"})
    assert parsed.root == acc.ApiKeyLoginAccountParams(api_key="sk")
    with pytest.raises(ValidationError):
        v2.parse_params("account/login/start", {"type": "password"})
    out = acc.LoginAccountResponse(acc.ChatgptLoginAccountResponse(login_id="l", auth_url="u"))
    assert v2.dump(out) == {"type": "chatgpt", "loginId": "l", "authUrl": "u"}


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(ValidationError, match="url"):
        it.ImageUserInput()
    with pytest.raises(ValidationError):
        v2.parse_params("turn/start", {"threadId": "t", "input": [{"type": "video"}]})
    with pytest.raises(ValidationError):
        v2.parse_params("thread/start", {"approvalPolicy": "sometimes"})
    with pytest.raises(ValidationError):
        v2.parse_params("turn/start", {"threadId": "t", "input": [], "effort": ""})


def test_thread_items_parse_by_their_tag() -> None:
    adapter = TypeAdapter(it.ThreadItem)
    item = adapter.validate_python(
        {
            "type": "commandExecution",
            "id": "c",
            "command": "ls",
            "cwd": "/",
            "status": "inProgress",
            "commandActions": [{"type": "listFiles", "command": "ls", "path": None}],
            "pluginId": None,
        }
    )
    assert isinstance(item, it.CommandExecutionThreadItem)
    assert item.command_actions == [it.ListFilesCommandAction(command="ls")]
    assert item.source == "agent"
    review = adapter.validate_python({"type": "exitedReviewMode", "id": "r", "review": "ok"})
    assert isinstance(review, it.ExitedReviewModeThreadItem)


def test_decisions_parse_as_strings_or_objects() -> None:
    model = req.CommandExecutionRequestApprovalResponse
    assert model.model_validate({"decision": "acceptForSession"}).decision == "acceptForSession"
    amended = model.model_validate(
        {"decision": {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["git", "status"]}}}
    )
    assert isinstance(amended.decision, req.AcceptWithExecpolicyAmendmentDecision)
    with pytest.raises(ValidationError):
        req.FileChangeRequestApprovalResponse.model_validate({"decision": "approve"})


def test_sandbox_policies_cross_between_core_and_v2() -> None:
    core = policy.WorkspaceWrite(
        writable_roots=("/r",), network_access=True, exclude_slash_tmp=True
    )
    wire = com.sandbox_policy_to_v2(core)
    assert v2.dump(wire) == {
        "type": "workspaceWrite",
        "writableRoots": ["/r"],
        "networkAccess": True,
        "excludeTmpdirEnvVar": False,
        "excludeSlashTmp": True,
    }
    assert com.sandbox_policy_from_v2(wire) == core
    read_only = policy.ReadOnly(network_access=False)
    assert com.sandbox_policy_from_v2(com.sandbox_policy_to_v2(read_only)) == read_only
    full = com.sandbox_policy_to_v2(policy.DangerFullAccess())
    assert v2.dump(full) == {"type": "dangerFullAccess"}
    external = com.ExternalSandboxSandboxPolicy()
    assert com.sandbox_policy_from_v2(external) == policy.DangerFullAccess()


def test_approval_policy_maps_the_deprecated_core_value() -> None:
    assert com.approval_policy_to_v2(policy.AskForApproval.ON_FAILURE) == "on-request"
    assert com.approval_policy_to_v2(policy.AskForApproval.NEVER) == "never"
    assert com.approval_policy_to_v2("untrusted") == "untrusted"
    with pytest.raises(ValueError):
        com.approval_policy_to_v2("sometimes")


def test_http_error_info_shape() -> None:
    error = tu.TurnError(
        message="bad gateway",
        codex_error_info=tu.http_error_info("httpConnectionFailed", 502),
    )
    assert v2.dump(error) == {
        "message": "bad gateway",
        "codexErrorInfo": {"httpConnectionFailed": {"httpStatusCode": 502}},
        "additionalDetails": None,
        "misalignment": None,
    }


def test_registries_hold_model_classes() -> None:
    for params, result in [*v2.CLIENT_REQUESTS.values(), *v2.SERVER_REQUESTS.values()]:
        assert hasattr(params, "model_validate") and hasattr(result, "model_validate")
    for model in v2.SERVER_NOTIFICATIONS.values():
        assert hasattr(model, "model_validate")
    assert v2.result_model("thread/start") is th.ThreadStartResponse
    assert v2.params_model("turn/interrupt") is tu.TurnInterruptParams
