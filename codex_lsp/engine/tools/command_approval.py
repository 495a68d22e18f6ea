"""Whether a command the model asked for may run, and how: the gate both shell tools share.

`gate_command` applies the approval rule (`safety.assess_command`), remembers
"approved for this session" answers, asks the user when the rule says so, and reports a
declined command the way a client shows it. `ask_exec_approval` is also how a command the
sandbox denied is offered for an unsandboxed rerun.
"""

from __future__ import annotations

import logging
import shlex
from dataclasses import dataclass
from pathlib import Path

from codex_lsp.engine.approvals import TurnAbortRequested
from codex_lsp.engine.command_parse import parse_command
from codex_lsp.engine.exec_rules import simple_command
from codex_lsp.engine.safety import (
    NEVER_PROMPT_REASON,
    Allow,
    Forbidden,
    Prompt,
    assess_command,
    session_approval_key,
    should_escalate_on_sandbox_denial,
)
from codex_lsp.engine.shell import shell_script_of
from codex_lsp.engine.tools.base import ToolCall, ToolOutput
from codex_lsp.protocol.core.decisions import ReviewDecision
from codex_lsp.protocol.core.events import Duration, ExecApprovalRequestEvent, ExecCommandEndEvent
from codex_lsp.protocol.core.policy import AskForApproval, DangerFullAccess

log = logging.getLogger(__name__)

REJECTED_BY_USER = "exec command rejected by user"
RETRY_WITHOUT_SANDBOX = "command failed; retry without sandbox?"
RULE_FORBIDS = "blocked by policy: a prefix_rule in the rules file forbids commands starting with"


@dataclass(frozen=True, slots=True)
class Approved:
    """Run it: in the sandbox unless `sandboxed` is false; `asked_user` when the user said yes
    to this very run (a sandbox denial then goes back to the model, not to the user again)."""

    sandboxed: bool
    asked_user: bool


@dataclass(frozen=True, slots=True)
class Refused:
    """Don't run it; `output` is what the model reads. `forbidden` holds the rule's reason when
    the policy refused it (as opposed to the user declining)."""

    output: ToolOutput
    forbidden: Forbidden | None = None


async def gate_command(
    call: ToolCall,
    argv: list[str],
    cwd: Path,
    *,
    sandbox_permissions: str,
    justification: str | None,
    tty: bool | None = None,
) -> Approved | Refused:
    """Decide on `argv` (run in `cwd`), asking the user if the approval rule says so.

    `tty` is part of what an "approved for this session" answer covers for `exec_command`.
    """
    ctx = call.ctx
    if ctx.collaboration_mode == "plan" and sandbox_permissions == "require_escalated":
        refusal = Forbidden(PLAN_MODE_COMMANDS)
        return Refused(ToolOutput(refusal.reason, success=False), forbidden=refusal)
    unsandboxed = isinstance(ctx.sandbox_policy, DangerFullAccess)
    ruled, rule = call.session.exec_rules.verdict(argv)
    if ruled == "forbidden" and rule is not None:
        refusal = Forbidden(f"{RULE_FORBIDS} `{rule.shown()}`", rejected=True)
        return Refused(ToolOutput(refusal.reason, success=False), forbidden=refusal)
    if ruled == "allow" and sandbox_permissions == "use_default":
        # Unlike Codex, a rule lifts only the question, never the sandbox.
        return Approved(sandboxed=not unsandboxed, asked_user=False)
    assessment = assess_command(
        argv,
        approval_policy=ctx.approval_policy,
        sandbox_policy=ctx.sandbox_policy,
        sandbox_permissions=sandbox_permissions,
        justification=justification,
    )
    if ruled == "prompt" and isinstance(assessment, Allow):
        never = ctx.approval_policy == AskForApproval.NEVER
        assessment = Forbidden(NEVER_PROMPT_REASON) if never else Prompt(reason=justification)
    if isinstance(assessment, Forbidden):
        return Refused(ToolOutput(assessment.reason, success=False), forbidden=assessment)
    if not isinstance(assessment, Prompt):
        return Approved(sandboxed=not (unsandboxed or assessment.bypass_sandbox), asked_user=False)
    key = session_approval_key(argv, cwd, sandbox_permissions, tty=tty)
    remembered = call.session.approval_cache.command_approved(key)
    outside = unsandboxed or assessment.run_unsandboxed
    if not remembered and not await ask_exec_approval(
        call, argv, cwd, assessment.reason, cache_key=key, run_unsandboxed=outside
    ):
        return Refused(declined(call, argv, cwd))
    return Approved(sandboxed=not outside, asked_user=True)


PLAN_MODE_COMMANDS = (
    "Plan mode is read-only: commands run in a read-only sandbox and cannot leave it. Explore "
    "with commands that only read; put changes in your plan"
)


def offer_rerun_without_sandbox(call: ToolCall, approved: Approved) -> bool:
    """Whether a run the sandbox denied may be offered to the user to rerun unsandboxed."""
    return (
        approved.sandboxed
        and not approved.asked_user
        and should_escalate_on_sandbox_denial(call.ctx.approval_policy)
    )


async def ask_exec_approval(
    call: ToolCall,
    argv: list[str],
    cwd: Path,
    reason: str | None,
    *,
    cache_key: str | None,
    run_unsandboxed: bool,
) -> bool:
    """Ask the user; True to run. `abort` ends the whole turn. `run_unsandboxed` says that a
    yes runs the command outside the sandbox, which the prompt tells the user."""
    session = call.session
    session.emit(
        call.sub_id,
        ExecApprovalRequestEvent(
            call_id=call.call_id,
            turn_id=call.sub_id,
            command=argv,
            cwd=str(cwd),
            reason=reason,
            parsed_cmd=parse_command(argv),
            run_unsandboxed=run_unsandboxed or None,
        ),
    )
    decision = await session.approvals.ask(call.call_id)
    if decision is ReviewDecision.ABORT:
        raise TurnAbortRequested
    if decision is ReviewDecision.APPROVED_FOR_SESSION and cache_key is not None:
        shown = shell_script_of(argv) or shlex.join(argv)
        session.approval_cache.approve_command(cache_key, f"{shown} (in {cwd})")
    amendment = session.exec_amendments.pop(call.call_id, None)
    if decision.approves and amendment is not None:
        _save_prefix_rule(call, argv, amendment)
    return decision.approves


def _save_prefix_rule(call: ToolCall, argv: list[str], amendment: list[str]) -> None:
    """Allow commands starting with `amendment` from now on, if it starts the approved command:
    an answer can narrow what the user saw, never widen it (an empty rule would allow all)."""
    words = simple_command(argv)
    if not amendment or words is None or words[: len(amendment)] != amendment:
        log.warning("ignored a command prefix rule that does not start the approved command")
        return
    call.session.exec_rules.allow(amendment)


def declined(call: ToolCall, argv: list[str], cwd: Path) -> ToolOutput:
    """The user said no: the item ends as declined and the model reads why."""
    call.session.emit(
        call.sub_id,
        ExecCommandEndEvent(
            call_id=call.call_id,
            turn_id=call.sub_id,
            command=argv,
            cwd=str(cwd),
            parsed_cmd=parse_command(argv),
            exit_code=-1,
            duration=Duration(secs=0, nanos=0),
            formatted_output=REJECTED_BY_USER,
            status="declined",
        ),
    )
    return ToolOutput(REJECTED_BY_USER, success=False)
