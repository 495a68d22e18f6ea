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
from codex_lsp.protocol.core.policy import (
    AskForApproval,
    DangerFullAccess,
    ReadOnly,
    WorkspaceWrite,
)

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


def assess(argv: list[str], policy: AskForApproval, sandbox: object, perms: str = "use_default"):
    return assess_command(
        argv,
        approval_policy=policy,
        sandbox_policy=sandbox,  # type: ignore[arg-type]
        sandbox_permissions=perms,
    )


@pytest.mark.parametrize("sandbox", [FULL, RO, WW])
@pytest.mark.parametrize("argv", [SAFE, PLAIN, DANGEROUS, ["echo", "hi"], ["pwd"]])
def test_untrusted_asks_before_every_command(argv: list[str], sandbox: object) -> None:
    # The reference server asks before `echo hi`, `ls` and `pwd` under untrusted.
    assert assess(argv, UNTRUSTED, sandbox) == Prompt()


@pytest.mark.parametrize("policy", [ON_REQUEST, ON_FAILURE, NEVER])
@pytest.mark.parametrize("sandbox", [FULL, RO, WW])
def test_read_only_commands_run_unasked_elsewhere(policy: AskForApproval, sandbox: object) -> None:
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
        (NEVER, FULL, Forbidden),
    ],
)
def test_dangerous_commands(policy: AskForApproval, sandbox: object, expected: type) -> None:
    decision = assess(DANGEROUS, policy, sandbox)
    assert isinstance(decision, expected)
    if isinstance(decision, Forbidden):
        assert decision.reason == (
            "`bash -lc 'rm -rf build'` rejected: rm -f style commands are not permitted. "
            "Use a safer approach"
        )
        assert decision.rejected
    if isinstance(decision, Prompt):
        assert not decision.run_unsandboxed
        assert decision.reason is None


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
        (UNTRUSTED, WW, "require_escalated", Prompt(run_unsandboxed=True)),
        (UNTRUSTED, FULL, "require_escalated", Prompt()),
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


@pytest.mark.parametrize(("policy", "name"), [(NEVER, "Never"), (ON_FAILURE, "OnFailure")])
@pytest.mark.parametrize("argv", [PLAIN, SAFE, DANGEROUS])
def test_escalation_rejected_under_never_and_on_failure(
    policy: AskForApproval, name: str, argv: list[str]
) -> None:
    decision = assess(argv, policy, WW, "require_escalated")
    assert decision == Forbidden(
        f"approval policy is {name}; reject command — you cannot ask for escalated "
        f"permissions if the approval policy is {name}"
    )


@pytest.mark.parametrize("argv", [PLAIN, SAFE, DANGEROUS])
@pytest.mark.parametrize("policy", [ON_REQUEST, UNTRUSTED])
def test_escalation_asks_with_the_justification(argv: list[str], policy: AskForApproval) -> None:
    decision = assess_command(
        argv,
        approval_policy=policy,
        sandbox_policy=WW,
        sandbox_permissions="require_escalated",
        justification="Run the tests against the network?",
    )
    assert decision == Prompt(reason="Run the tests against the network?", run_unsandboxed=True)


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
