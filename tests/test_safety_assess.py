"""The approval decision for commands, per approval policy and sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codex_lsp.engine.safety import (
    Allow,
    Forbidden,
    Prompt,
    assess_command,
    session_approval_key,
    should_escalate_on_sandbox_denial,
)
from codex_lsp.protocol.policy import AskForApproval, DangerFullAccess, ReadOnly, WorkspaceWrite

UNTRUSTED = AskForApproval.UNTRUSTED
ON_FAILURE = AskForApproval.ON_FAILURE
ON_REQUEST = AskForApproval.ON_REQUEST
NEVER = AskForApproval.NEVER

FULL = DangerFullAccess()
RO = ReadOnly()
WW = WorkspaceWrite()

SAFE = ["bash", "-lc", "git status && ls"]
PLAIN = ["bash", "-lc", "cargo build"]
DANGEROUS = ["bash", "-lc", "rm -rf build"]
NEVER_REASON = "approval required by policy, but AskForApproval is set to Never"


def assess(argv: list[str], policy: AskForApproval, sandbox: object, perms: str = "use_default"):
    return assess_command(
        argv,
        approval_policy=policy,
        sandbox_policy=sandbox,  # type: ignore[arg-type]
        sandbox_permissions=perms,
    )


@pytest.mark.parametrize("policy", list(AskForApproval))
@pytest.mark.parametrize("sandbox", [FULL, RO, WW])
def test_known_safe_always_allowed(policy: AskForApproval, sandbox: object) -> None:
    assert assess(SAFE, policy, sandbox) == Allow()


@pytest.mark.parametrize(
    ("policy", "sandbox", "expected"),
    [
        (UNTRUSTED, WW, Prompt),
        (UNTRUSTED, FULL, Prompt),
        (ON_FAILURE, WW, Prompt),
        (ON_REQUEST, WW, Prompt),
        (ON_REQUEST, FULL, Prompt),
        (ON_REQUEST, RO, Prompt),
        (NEVER, WW, Forbidden),
        (NEVER, RO, Forbidden),
        (NEVER, FULL, Allow),
    ],
)
def test_dangerous_commands(policy: AskForApproval, sandbox: object, expected: type) -> None:
    decision = assess(DANGEROUS, policy, sandbox)
    assert isinstance(decision, expected)
    if isinstance(decision, Forbidden):
        assert decision.reason == NEVER_REASON
    if isinstance(decision, Prompt):
        assert not decision.run_unsandboxed


@pytest.mark.parametrize(
    ("policy", "sandbox", "perms", "expected"),
    [
        (NEVER, WW, "use_default", Allow()),
        (NEVER, RO, "use_default", Allow()),
        (NEVER, FULL, "use_default", Allow()),
        (ON_FAILURE, WW, "use_default", Allow()),
        (ON_FAILURE, RO, "use_default", Allow()),
        (UNTRUSTED, WW, "use_default", Prompt()),
        (UNTRUSTED, FULL, "use_default", Prompt()),
        (ON_REQUEST, WW, "use_default", Allow()),
        (ON_REQUEST, RO, "use_default", Allow()),
        (ON_REQUEST, FULL, "use_default", Allow()),
        (ON_REQUEST, FULL, "require_escalated", Allow()),
        (ON_REQUEST, WW, "require_escalated", Prompt(run_unsandboxed=True)),
        (ON_REQUEST, RO, "require_escalated", Prompt(run_unsandboxed=True)),
        (ON_REQUEST, WW, "with_additional_permissions", Prompt()),
    ],
)
def test_unmatched_plain_command(
    policy: AskForApproval, sandbox: object, perms: str, expected: object
) -> None:
    assert assess(PLAIN, policy, sandbox, perms) == expected


@pytest.mark.parametrize(
    ("policy", "name"),
    [(NEVER, "Never"), (ON_FAILURE, "OnFailure"), (UNTRUSTED, "UnlessTrusted")],
)
@pytest.mark.parametrize("argv", [PLAIN, SAFE, DANGEROUS])
def test_escalation_rejected_outside_on_request(
    policy: AskForApproval, name: str, argv: list[str]
) -> None:
    decision = assess(argv, policy, WW, "require_escalated")
    assert decision == Forbidden(
        f"approval policy is {name}; reject command — you should not ask for escalated "
        f"permissions if the approval policy is {name}"
    )


def test_escalated_dangerous_command_prompts_to_run_unsandboxed() -> None:
    decision = assess(DANGEROUS, ON_REQUEST, WW, "require_escalated")
    assert isinstance(decision, Prompt)
    assert decision.run_unsandboxed


def test_policy_given_as_wire_string() -> None:
    assert assess(PLAIN, "untrusted", WW) == Prompt()  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("policy", "escalate"),
    [(UNTRUSTED, True), (ON_FAILURE, True), (ON_REQUEST, False), (NEVER, False)],
)
def test_should_escalate_on_sandbox_denial(policy: AskForApproval, escalate: bool) -> None:
    assert should_escalate_on_sandbox_denial(policy) is escalate


def test_session_key_is_canonical_json() -> None:
    key = session_approval_key(["git", "pull"], Path("/repo"), "use_default")
    assert json.loads(key) == {
        "command": [["git", "pull"]],
        "cwd": "/repo",
        "sandbox_permissions": "use_default",
        "additional_permissions": None,
    }
    assert key == session_approval_key(["git", "pull"], "/repo", "use_default")


def test_session_key_treats_shell_wrappers_alike() -> None:
    keys = {
        session_approval_key(argv, "/repo", "use_default")
        for argv in (
            ["bash", "-lc", "git pull"],
            ["zsh", "-c", "git  pull"],
            ["/bin/bash", "-lc", "'git' pull"],
            ["git", "pull"],
        )
    }
    assert len(keys) == 1


@pytest.mark.parametrize(
    "other",
    [
        (["git", "push"], "/repo", "use_default"),
        (["git", "pull"], "/other", "use_default"),
        (["git", "pull"], "/repo", "require_escalated"),
        (["bash", "-lc", "git pull > log"], "/repo", "use_default"),
    ],
)
def test_session_key_distinguishes(other: tuple[list[str], str, str]) -> None:
    assert session_approval_key(["git", "pull"], "/repo", "use_default") != session_approval_key(
        *other
    )
