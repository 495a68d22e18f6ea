"""Builders of sample v2 values (threads, turns, every item variant) and checks of the items.

The other `test_v2_*` modules build their per-method samples from these.
"""

from __future__ import annotations

from typing import get_args

from pydantic import BaseModel

from codex_lsp.protocol import common as com, v2
from codex_lsp.protocol.account import models as acc
from codex_lsp.protocol.threads import models as th
from codex_lsp.protocol.turns import items as it, models as tu
from tests.support.schema_check import SchemaChecker


def item_variants() -> list[BaseModel]:
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
        it.CollabAgentToolCallThreadItem(
            id="ca",
            tool="wait",
            status="completed",
            sender_thread_id="t-root",
            receiver_thread_ids=["t-child"],
            agents_states={"t-child": it.CollabAgentState(status="completed", message="done")},
        ),
        it.SubAgentActivityThreadItem(
            id="sa",
            kind="started",
            agent_thread_id="t-child",
            agent_path="/root/helper",
            model="gpt-5.5",
            reasoning_effort="medium",
        ),
        it.EnteredReviewModeThreadItem(id="er", review="current changes"),
        it.ExitedReviewModeThreadItem(id="xr", review="No issues found."),
        it.ContextCompactionThreadItem(id="cc"),
    ]


def turn(status: tu.TurnStatus = "completed", **extra) -> tu.Turn:
    return tu.Turn(id="turn1", status=status, items=extra.pop("items", []), **extra)


def thread(**extra) -> th.Thread:
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


def session(model: type[BaseModel], **extra) -> BaseModel:
    return model(
        thread=thread(**extra),
        model="gpt-5",
        model_provider="openai",
        cwd="/repo",
        approval_policy="on-request",
        approvals_reviewer="user",
        sandbox=com.WorkspaceWriteSandboxPolicy(writable_roots=["/repo"]),
        reasoning_effort="medium",
    )


def usage() -> com.ThreadTokenUsage:
    b = com.TokenUsageBreakdown(
        total_tokens=12,
        input_tokens=10,
        cached_input_tokens=2,
        output_tokens=2,
        reasoning_output_tokens=0,
    )
    return com.ThreadTokenUsage(total=b, last=b, model_context_window=272_000)


def limits() -> acc.RateLimitSnapshot:
    return acc.RateLimitSnapshot(
        limit_id="codex",
        primary=acc.RateLimitWindow(
            used_percent=42, window_duration_mins=300, resets_at=1_700_000_500
        ),
        credits=acc.CreditsSnapshot(has_credits=True, unlimited=False, balance="10"),
        plan_type="plus",
    )


def _variants(alias: object) -> set[type]:
    union = get_args(alias.__value__)[0]  # type: ignore[attr-defined]
    return set(get_args(union))


def test_samples_show_every_thread_item_and_user_input_variant() -> None:
    items = item_variants()
    assert {type(i) for i in items} == _variants(it.ThreadItem)
    content = next(i for i in items if isinstance(i, it.UserMessageThreadItem)).content
    assert {type(c) for c in content} == _variants(it.UserInput)


def test_every_item_variant_matches_the_reference_thread_item(checker: SchemaChecker) -> None:
    pointer = checker.definition_pointer("ThreadItem")
    for item in item_variants():
        assert checker.errors_against(pointer, v2.dump(item), label=type(item).__name__) == []


def test_sandbox_policies_match_the_reference(checker: SchemaChecker) -> None:
    pointer = checker.definition_pointer("SandboxPolicy")
    for policy in (
        com.DangerFullAccessSandboxPolicy(),
        com.ReadOnlySandboxPolicy(network_access=True),
        com.ExternalSandboxSandboxPolicy(network_access="enabled"),
        com.WorkspaceWriteSandboxPolicy(writable_roots=["/r"], exclude_slash_tmp=True),
    ):
        assert checker.errors_against(pointer, v2.dump(policy)) == []
