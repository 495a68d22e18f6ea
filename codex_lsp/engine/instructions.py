"""What the model is told before the conversation: its initial context.

The developer message describes the sandbox and approval policy; the contextual user message
carries AGENTS.md and the environment. The base instructions depend on the turn's tools and
live in `base_instructions`.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Sequence
from pathlib import Path

from codex_lsp.engine.prompts import render
from codex_lsp.engine.turn_context import PROJECT_DOC_MAX_BYTES, TurnContext
from codex_lsp.protocol.core.policy import AskForApproval, DangerFullAccess, ReadOnly
from codex_lsp.protocol.core.response_items import MessageItem
from codex_lsp.sandbox import is_repository_entry
from codex_lsp.store.bounded_read import read_bytes

AGENTS_MD = "AGENTS.md"

_PERSONALITIES = {
    "friendly": "Communicate warmly and encouragingly; explain your reasoning in plain words.",
    "pragmatic": "Communicate tersely and directly; lead with the result, skip pleasantries.",
}


def permissions_instructions(ctx: TurnContext) -> str:
    """Tell the model what its commands may do and when the user will be asked."""
    policy = ctx.sandbox_policy
    if isinstance(policy, DangerFullAccess):
        sandbox = "Commands run without a sandbox: they can read and write anywhere."
    elif isinstance(policy, ReadOnly):
        sandbox = "Commands run in a read-only sandbox: they cannot write files."
    else:
        roots = ", ".join([str(ctx.cwd), *policy.writable_roots])
        sandbox = (
            f"Commands run in a sandbox that allows writes only under: {roots} (and temp "
            "directories). `.git` and `.codex` stay read-only."
        )
    network = "Network access is enabled." if ctx.network_enabled else "Network access is off."
    approvals = {
        AskForApproval.UNTRUSTED: "Commands other than known read-only ones need the user's "
        "approval, and so does every patch.",
        AskForApproval.ON_FAILURE: "Commands run in the sandbox; if the sandbox blocks one, the "
        "user is asked whether to run it without the sandbox.",
        AskForApproval.ON_REQUEST: "Commands run in the sandbox. When one truly needs more, set "
        '`sandbox_permissions` to "require_escalated" with a one-sentence `justification`; the '
        "user will be asked.",
        AskForApproval.NEVER: "The user will never be asked: work within the sandbox, and if "
        "something is blocked, say so in your answer.",
    }[ctx.approval_policy]
    body = "\n".join([sandbox, network, approvals])
    return f"<permissions instructions>\n{body}\n</permissions instructions>"


def developer_message(ctx: TurnContext, *, extra_sections: list[str] | None = None) -> MessageItem:
    sections = [permissions_instructions(ctx)]
    if ctx.collaboration_mode == "plan":
        sections.append(render("plan_mode"))
    if ctx.developer_instructions:
        sections.append(ctx.developer_instructions)
    if ctx.personality and ctx.personality in _PERSONALITIES:
        sections.append(f"<personality>\n{_PERSONALITIES[ctx.personality]}\n</personality>")
    sections.extend(extra_sections or [])
    return {
        "type": "message",
        "role": "developer",
        "content": [{"type": "input_text", "text": text} for text in sections],
    }


def environment_context(ctx: TurnContext) -> str:
    shell = Path(os.environ.get("SHELL") or "/bin/bash").name
    now = _dt.datetime.now().astimezone()
    lines = [
        "<environment_context>",
        f"  <cwd>{ctx.cwd}</cwd>",
        f"  <shell>{shell}</shell>",
        f"  <current_date>{now.date().isoformat()}</current_date>",
        f"  <timezone>{now.tzname()}</timezone>",
    ]
    if not ctx.network_enabled:
        lines.append('  <network enabled="false" />')
    lines.append("</environment_context>")
    return "\n".join(lines)


def project_docs(
    cwd: Path, max_bytes: int = PROJECT_DOC_MAX_BYTES, fallbacks: Sequence[str] = ()
) -> list[tuple[Path, str]]:
    """AGENTS.md files from the repository root down to `cwd`, outermost first.

    In a directory without AGENTS.md, the first of `fallbacks` (`project_doc_fallback_filenames`,
    e.g. CLAUDE.md) found there is read instead, as Codex does.

    As in Codex, `max_bytes` (`project_doc_max_bytes`) is one budget for the whole chain: a
    file is cut to what is left of it, later ones are not read, and 0 reads none. Only that
    much is ever read, however large a file claims to be; what is not a regular file is skipped.
    """
    root = next((c for c in [cwd, *cwd.parents] if is_repository_entry(c / ".git")), cwd)
    parts = cwd.relative_to(root).parts
    chain = [root / Path(*parts[:depth]) for depth in range(len(parts) + 1)]
    docs: list[tuple[Path, str]] = []
    left = max_bytes
    for directory in chain:
        if left <= 0:
            break
        data = b""
        for name in (AGENTS_MD, *fallbacks):
            try:
                data = read_bytes(directory / name, left, prefix=True)
            except OSError:
                continue
            if data.strip():
                break
        if data.strip():
            docs.append((directory, data.decode("utf-8", "replace")))
            left -= len(data)
    return docs


def contextual_user_message(ctx: TurnContext) -> MessageItem:
    parts = [
        f"# AGENTS.md instructions for {directory}\n\n<INSTRUCTIONS>\n{text}\n</INSTRUCTIONS>"
        for directory, text in project_docs(
            ctx.cwd, ctx.project_doc_max_bytes, ctx.project_doc_fallback_filenames
        )
    ]
    if ctx.user_instructions:
        parts.append(f"<user_instructions>\n{ctx.user_instructions}\n</user_instructions>")
    parts.append(environment_context(ctx))
    return {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": text} for text in parts],
    }


def context_update_message(previous: TurnContext, current: TurnContext) -> MessageItem | None:
    """A developer note when cwd or policies changed between turns, else None."""

    def shape(ctx: TurnContext) -> tuple[object, ...]:
        return (
            ctx.cwd,
            ctx.approval_policy,
            ctx.sandbox_policy,
            ctx.personality,
            ctx.collaboration_mode,
        )

    if shape(previous) == shape(current):
        return None
    sections = [environment_context(current)]
    if previous.collaboration_mode == "plan" and current.collaboration_mode != "plan":
        sections.append(render("plan_mode_ended"))
    dropped_style = (
        previous.personality in _PERSONALITIES and current.personality not in _PERSONALITIES
    )
    if dropped_style:
        # Earlier style instructions stay in the history; say plainly that they no longer hold.
        sections.append(
            "<personality>\nUse your default communication style from now on.\n</personality>"
        )
    return developer_message(current, extra_sections=sections)
