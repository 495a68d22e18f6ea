"""Command safety: which commands may run without asking, and the approval decision.

Pure functions, no I/O. `is_dangerous_command` is the short list that always asks (or is
refused), `assess_command` the decision for a command no exec-policy rule matched, per approval
policy and sandbox (its docstring states the rule), and `is_known_safe_command` the read-only
allow-list (Codex's `is_safe_command`), which says whether a command only reads; no policy
runs a command unasked for that alone any more (`untrusted` asks before `ls` too). Scripts
given as `bash -lc '…'` are judged per command, but only when `parse_shell_script` can read
them without doubt.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from codex_lsp.engine.shell import command_name, parse_shell_script, shell_script_of
from codex_lsp.protocol.core.policy import (
    AskForApproval,
    DangerFullAccess,
    ReadOnly,
    WorkspaceWrite,
)

__all__ = [
    "Allow",
    "CommandAssessment",
    "Forbidden",
    "Prompt",
    "assess_command",
    "dangerous_rejection",
    "is_dangerous_command",
    "is_known_safe_command",
    "parse_shell_script",
    "session_approval_key",
    "should_escalate_on_sandbox_denial",
]

_ALWAYS_SAFE = frozenset(
    {
        "cat", "cd", "cut", "echo", "expr", "false", "grep", "head", "id", "ls", "nl", "paste",
        "pwd", "rev", "seq", "stat", "tail", "tr", "true", "uname", "uniq", "wc", "which",
        "whoami",
    }
)  # fmt: skip
_LINUX_SAFE = frozenset({"numfmt", "tac"})

_FIND_UNSAFE = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0", "-fprintf"}
)
_RG_UNSAFE = frozenset({"--pre", "--hostname-bin", "--search-zip", "-z"})
_GIT_SAFE_SUBCOMMANDS = frozenset({"status", "log", "diff", "show", "branch"})
_GIT_UNSAFE_GLOBALS = (
    "--config-env", "--exec-path", "--git-dir", "--namespace", "--super-prefix", "--work-tree",
)  # fmt: skip
# Global options that are harmless; `-C <dir>` only changes where git looks.
_GIT_HARMLESS_GLOBALS = frozenset(
    {
        "--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--glob-pathspecs",
        "--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects", "--bare",
    }
)  # fmt: skip
_GIT_UNSAFE_ARGS = frozenset({"--output", "--ext-diff", "--textconv", "--exec", "--paginate"})
_GIT_BRANCH_READ_ONLY = frozenset(
    {"--list", "-l", "--show-current", "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose"}
)
_SED_PRINT = re.compile(r"^\d+(,\d+)?p$")


def _short_cluster_has(arg: str, letter: str) -> bool:
    return arg.startswith("-") and not arg.startswith("--") and letter in arg[1:]


def _is_safe_git(args: Sequence[str]) -> bool:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        arg = args[i]
        if arg == "-C":
            i += 2
            continue
        if arg.startswith("-c") or arg.startswith(_GIT_UNSAFE_GLOBALS):
            return False
        if arg not in _GIT_HARMLESS_GLOBALS:
            return False  # an option we don't know (e.g. -p, the pager) is not assumed safe
        i += 1
    if i >= len(args) or args[i] not in _GIT_SAFE_SUBCOMMANDS:
        return False
    subcommand, rest = args[i], args[i + 1 :]
    for arg in rest:
        if arg in _GIT_UNSAFE_ARGS or arg.startswith(("--output=", "--exec=")):
            return False
    if subcommand == "branch":
        # Any other flag or a bare name would create, delete, move or configure a branch.
        return all(a in _GIT_BRANCH_READ_ONLY or a.startswith("--format=") for a in rest)
    return True


def _is_safe_single(argv: Sequence[str]) -> bool:
    name = command_name(argv[0])
    if name is None:
        return False
    args = argv[1:]
    if name in _ALWAYS_SAFE or (name in _LINUX_SAFE and sys.platform.startswith("linux")):
        return True
    if name == "base64":
        return not any(
            a in ("-o", "--output") or a.startswith("--output=") or _short_cluster_has(a, "o")
            for a in args
        )
    if name == "find":
        return not any(a in _FIND_UNSAFE for a in args)
    if name == "rg":
        return not any(
            a in _RG_UNSAFE
            or a.startswith(("--pre=", "--hostname-bin="))
            or _short_cluster_has(a, "z")
            for a in args
        )
    if name == "git":
        return _is_safe_git(args)
    if name == "sed":
        return 3 <= len(argv) <= 4 and argv[1] == "-n" and bool(_SED_PRINT.match(argv[2]))
    return False


def is_known_safe_command(argv: Sequence[str]) -> bool:
    """True if `argv` only reads: an allow-listed tool used without its writing options, or a
    `bash -lc` / `zsh -lc` / `sh -c` script of nothing but such commands."""
    if not argv:
        return False
    script = shell_script_of(argv)
    if script is not None:
        commands = parse_shell_script(script)
        return commands is not None and all(is_known_safe_command(c) for c in commands)
    return _is_safe_single(argv)


# sudo options that take a value, so the value isn't mistaken for the command.
_SUDO_VALUE_OPTIONS = frozenset({"-u", "-g", "-U", "-C", "-D", "-h", "-p", "-r", "-t", "-T"})


def _is_dangerous_single(argv: Sequence[str]) -> bool:
    # Any path to rm or sudo counts here: erring towards a prompt is the safe direction.
    name = posixpath.basename(argv[0])
    args = argv[1:]
    if name == "rm":
        for arg in args:
            if arg == "--":
                break
            if arg == "--force" or _short_cluster_has(arg, "f"):
                return True
        return False
    if name == "sudo":
        i = 0
        while i < len(args) and args[i].startswith("-"):
            if args[i] == "--":
                i += 1
                break
            i += 2 if args[i] in _SUDO_VALUE_OPTIONS else 1
        return i < len(args) and is_dangerous_command(args[i:])
    return False


def is_dangerous_command(argv: Sequence[str]) -> bool:
    """True for `rm -f` / `rm -rf` (force in any flag spelling) and `sudo` of such, also as any
    command of a readable `bash -lc` script."""
    if not argv:
        return False
    script = shell_script_of(argv)
    if script is not None:
        commands = parse_shell_script(script)
        return commands is not None and any(is_dangerous_command(c) for c in commands)
    return _is_dangerous_single(argv)


@dataclass(frozen=True)
class Allow:
    """Run without asking; sandboxed unless `bypass_sandbox`."""

    bypass_sandbox: bool = False


@dataclass(frozen=True)
class Prompt:
    """Ask the user first. If approved, run unsandboxed when `run_unsandboxed` (the model asked
    for escalated permissions), else sandboxed. `reason` is what the model gave as its
    justification, shown to the user with the question."""

    reason: str | None = None
    run_unsandboxed: bool = False


@dataclass(frozen=True)
class Forbidden:
    """Don't run; `reason` goes back to the model. `rejected` marks a command refused for what
    it is (not for the policy's sake), which `exec_command` reports as a failure to start it."""

    reason: str
    rejected: bool = False


CommandAssessment = Allow | Prompt | Forbidden
AnySandboxPolicy = DangerFullAccess | ReadOnly | WorkspaceWrite

# Codex names policies in these messages by their Rust variant names; the model has seen those.
_POLICY_NAMES = {
    AskForApproval.UNTRUSTED: "UnlessTrusted",
    AskForApproval.ON_FAILURE: "OnFailure",
    AskForApproval.ON_REQUEST: "OnRequest",
    AskForApproval.NEVER: "Never",
}
NEVER_PROMPT_REASON = "approval required by policy, but AskForApproval is set to Never"
DANGEROUS_REJECTION = "rm -f style commands are not permitted. Use a safer approach"


def _escalation_rejected(policy: AskForApproval) -> str:
    name = _POLICY_NAMES[policy]
    return (
        f"approval policy is {name}; reject command — you cannot ask for escalated "
        f"permissions if the approval policy is {name}"
    )


def dangerous_rejection(argv: Sequence[str]) -> str:
    """Why a dangerous command is refused under `never`, naming the command as it would run."""
    return f"`{shlex.join(argv)}` rejected: {DANGEROUS_REJECTION}"


def assess_command(
    argv: Sequence[str],
    *,
    approval_policy: AskForApproval,
    sandbox_policy: AnySandboxPolicy,
    sandbox_permissions: str = "use_default",
    justification: str | None = None,
) -> CommandAssessment:
    """Whether `argv` runs, prompts or is refused (no exec-policy rule matched it).

    The rule, the same for `exec_command` and `shell_command` (it matches what the reference
    server decides for each policy and sandbox):

    1. Asking for escalated permissions (`require_escalated`) is refused under `never` and
       `on-failure`. Under `untrusted` and `on-request` it asks, and an approved command runs
       without the sandbox (an unrestricted sandbox needs no escalation: it just runs).
    2. `untrusted` asks before every command, read-only ones (`ls`, `pwd`, `echo`) included:
       the model is not trusted to judge what is harmless.
    3. A dangerous command (`rm -f`, `rm -rf`, `sudo` of those) asks under `on-request` and
       `on-failure`, and is refused under `never` whatever the sandbox.
    4. Otherwise the command runs in the sandbox without asking: under `on-failure` a denial
       by the sandbox is offered for an unsandboxed rerun, under `on-request` and `never` the
       denial goes back to the model. Other additional permissions than escalation ask under
       `on-request` in a restricted sandbox.
    """
    policy = AskForApproval(approval_policy)
    unrestricted = isinstance(sandbox_policy, DangerFullAccess)
    escalated = sandbox_permissions == "require_escalated"
    if escalated and policy in (AskForApproval.NEVER, AskForApproval.ON_FAILURE):
        return Forbidden(_escalation_rejected(policy))
    escalate = escalated and not unrestricted
    if policy == AskForApproval.UNTRUSTED:
        return Prompt(reason=justification, run_unsandboxed=escalate)
    if is_dangerous_command(argv):
        if policy == AskForApproval.NEVER:
            return Forbidden(dangerous_rejection(argv), rejected=True)
        return Prompt(reason=justification, run_unsandboxed=escalate)
    if policy == AskForApproval.ON_REQUEST and not unrestricted:
        if escalated:
            return Prompt(reason=justification, run_unsandboxed=True)
        if sandbox_permissions != "use_default":
            return Prompt(reason=justification)
    return Allow()


def should_escalate_on_sandbox_denial(approval_policy: AskForApproval) -> bool:
    """Whether a shell command the sandbox denied is offered to the user for an unsandboxed
    retry. Under on-request and never the denial goes back to the model instead."""
    return AskForApproval(approval_policy) in (AskForApproval.ON_FAILURE, AskForApproval.UNTRUSTED)


def _canonical_commands(argv: Sequence[str]) -> list[list[str]]:
    # `bash -lc 'git status'`, `zsh -c 'git status'` and `git status` are one approval.
    script = shell_script_of(argv)
    if script is not None:
        commands = parse_shell_script(script)
        if commands is not None:
            return commands
    return [list(argv)]


def session_approval_key(
    argv: Sequence[str], cwd: Path | str, sandbox_permissions: str, *, tty: bool | None = None
) -> str:
    """Canonical JSON key under which an `approved_for_session` decision is remembered.

    `exec_command` passes `tty`: approving a command on pipes does not approve it on a PTY.
    """
    key: dict[str, object] = {
        "command": _canonical_commands(argv),
        "cwd": str(cwd),
        "sandbox_permissions": sandbox_permissions,
        "additional_permissions": None,
    }
    if tty is not None:
        key["tty"] = tty
    return json.dumps(key, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
