"""A review as plain text, and the messages that tell the thread about a finished review.

The rendered text is what a chat shows and what later turns of the thread read: the overall
explanation, then one `- <title> — <path>:<start>-<end>` line per finding with its body
indented below it.
"""

from __future__ import annotations

from codex_lsp.engine.history import user_message
from codex_lsp.protocol.core.inputs import ReviewFinding, ReviewOutputEvent
from codex_lsp.protocol.core.response_items import MessageItem

NO_OUTPUT = "The reviewer did not produce a review."
NOT_FINISHED = (
    "None. The review did not finish (it was interrupted or failed), so there are no "
    "results; the user can run /review again."
)


def render_review(output: ReviewOutputEvent) -> str:
    """The review for people: explanation first, then the findings."""
    parts: list[str] = []
    explanation = output.overall_explanation.strip()
    if explanation:
        parts.append(explanation)
    if output.findings:
        heading = "Review comment:" if len(output.findings) == 1 else "Review comments:"
        parts.append("\n\n".join([heading, *(render_finding(f) for f in output.findings)]))
    return "\n\n".join(parts) if parts else NO_OUTPUT


def render_finding(finding: ReviewFinding) -> str:
    where = finding.code_location
    lines = where.line_range
    head = f"- {finding.title} — {where.absolute_file_path}:{lines.start}-{lines.end}"
    body = finding.body.strip()
    if not body:
        return head
    return head + "\n" + "\n".join(f"  {line}" if line else "" for line in body.splitlines())


def review_user_action(hint: str, results: str | None) -> MessageItem:
    """The user message that tells later turns a review ran and what it found."""
    text = (
        "<user_action>\n"
        f"  <context>The user asked for a code review of {hint or 'their changes'}. A "
        "separate reviewer produced the results below; the user may ask you to act on some "
        "of its comments.</context>\n"
        "  <action>review</action>\n"
        "  <results>\n"
        f"{results if results is not None else NOT_FINISHED}\n"
        "  </results>\n"
        "</user_action>"
    )
    return user_message(text)


def assistant_message(text: str) -> MessageItem:
    return {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text}],
    }
