"""The reviewer's answer: the JSON schema asked for, tolerant parsing, and the rendered text.

Models do not always obey: the answer may be fenced, wrapped in prose, or not JSON at all.
Parsing tries the whole text, then fenced blocks, then the outermost braces; an answer that
still does not parse becomes a failed review that says so, never an exception. Findings are
checked one by one: a finding that cannot be placed in a file is dropped, numbers are
clamped, and relative paths are resolved against the repository root.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codex_lsp.protocol.core.inputs import (
    ByteRange,
    ReviewCodeLocation,
    ReviewFinding,
    ReviewOutputEvent,
)

CORRECT = "patch is correct"
INCORRECT = "patch is incorrect"
# How much of an unparseable answer is quoted back in the failed review.
MAX_QUOTED_ANSWER_CHARS = 2_000

_FINDING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "description": "Starts with [P0], [P1], [P2] or [P3]."},
        "body": {"type": "string", "description": "One Markdown paragraph."},
        "confidence_score": {"type": "number", "description": "0.0 to 1.0."},
        "priority": {"type": "integer", "description": "0 (highest) to 3."},
        "code_location": {
            "type": "object",
            "properties": {
                "absolute_file_path": {"type": "string"},
                "line_range": {
                    "type": "object",
                    "properties": {"start": {"type": "integer"}, "end": {"type": "integer"}},
                    "required": ["start", "end"],
                    "additionalProperties": False,
                },
            },
            "required": ["absolute_file_path", "line_range"],
            "additionalProperties": False,
        },
    },
    "required": ["title", "body", "confidence_score", "priority", "code_location"],
    "additionalProperties": False,
}

# Strict structured output: every property required, nothing else allowed.
REVIEW_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "findings": {"type": "array", "items": _FINDING_SCHEMA},
        "overall_correctness": {"type": "string", "enum": [CORRECT, INCORRECT]},
        "overall_explanation": {"type": "string"},
        "overall_confidence_score": {"type": "number", "description": "0.0 to 1.0."},
    },
    "required": [
        "findings",
        "overall_correctness",
        "overall_explanation",
        "overall_confidence_score",
    ],
    "additionalProperties": False,
}

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[^\n]*\n(.*?)```", re.DOTALL)
_PRIORITY_TAG = re.compile(r"^\s*\[P([0-3])\]\s*", re.IGNORECASE)
_REVIEW_KEYS = ("findings", "overall_correctness", "overall_explanation")


@dataclass(frozen=True)
class ParsedReview:
    output: ReviewOutputEvent
    # False when the answer was not a review at all (the output then says so).
    ok: bool
    # Findings left out because they could not be placed in a file.
    dropped: int = 0


def parse_review_output(text: str, repo_root: Path) -> ParsedReview:
    """The reviewer's final message as a `ReviewOutputEvent`; never raises."""
    data = _find_json_object(text)
    if data is None:
        return ParsedReview(failed_review(_unparseable(text)), ok=False)
    findings: list[ReviewFinding] = []
    raw_findings = data.get("findings")
    dropped = 0
    for raw in raw_findings if isinstance(raw_findings, list) else []:
        finding = _finding(raw, repo_root)
        if finding is None:
            dropped += 1
        else:
            findings.append(finding)
    correctness = str(data.get("overall_correctness") or "").strip()
    output = ReviewOutputEvent(
        findings=findings,
        overall_correctness=_correctness(correctness),
        overall_explanation=str(data.get("overall_explanation") or "").strip(),
        overall_confidence_score=_unit(data.get("overall_confidence_score")),
    )
    return ParsedReview(output, ok=True, dropped=dropped)


def failed_review(explanation: str) -> ReviewOutputEvent:
    """A review with no verdict: empty `overall_correctness`, no findings."""
    return ReviewOutputEvent(findings=[], overall_correctness="", overall_explanation=explanation)


def _unparseable(text: str) -> str:
    answer = text.strip()
    if not answer:
        return "The review failed: the reviewer gave no answer."
    quoted = answer[:MAX_QUOTED_ANSWER_CHARS]
    cut = "\n[…]" if len(answer) > MAX_QUOTED_ANSWER_CHARS else ""
    return (
        "The review failed: the reviewer's answer could not be parsed as a review "
        f"(expected a JSON object). Its answer was:\n\n{quoted}{cut}"
    )


def _find_json_object(text: str) -> dict[str, Any] | None:
    candidates = [text]
    candidates += [m.group(2) for m in _FENCE.finditer(text) if m.group(1).lower() in ("json", "")]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        # A JSON object that names none of the review's fields is not a review.
        if isinstance(value, dict) and any(key in value for key in _REVIEW_KEYS):
            return value
    return None


def _finding(raw: Any, repo_root: Path) -> ReviewFinding | None:
    if not isinstance(raw, dict):
        return None
    location = raw.get("code_location")
    location = location if isinstance(location, dict) else {}
    path = location.get("absolute_file_path") or location.get("file_path") or location.get("path")
    lines = _line_range(location.get("line_range"))
    if not isinstance(path, str) or not path.strip() or lines is None:
        return None
    title = str(raw.get("title") or "").strip()
    body = str(raw.get("body") or "").strip()
    tag = _PRIORITY_TAG.match(title)
    priority = _priority(raw.get("priority"), int(tag.group(1)) if tag else None)
    title = _PRIORITY_TAG.sub("", title).strip() or _first_line(body) or "Untitled finding"
    return ReviewFinding(
        title=f"[P{priority}] {title}",
        body=body,
        confidence_score=_unit(raw.get("confidence_score")),
        priority=priority,
        code_location=ReviewCodeLocation(
            absolute_file_path=_absolute(path.strip(), repo_root),
            line_range=lines,
        ),
    )


def _line_range(raw: Any) -> ByteRange | None:
    if not isinstance(raw, dict):
        return None
    start, end = _int(raw.get("start")), _int(raw.get("end"))
    if start is None and end is None:
        return None
    start = start if start is not None else end
    end = end if end is not None else start
    assert start is not None and end is not None
    # Lines are 1-based; a reversed range is the same range.
    start, end = max(1, min(start, end)), max(1, max(start, end))
    return ByteRange(start=start, end=end)


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


def _priority(value: Any, from_tag: int | None) -> int:
    number = _int(value)
    if number is None and isinstance(value, str):
        tagged = re.fullmatch(r"\s*P([0-9])\s*", value, re.IGNORECASE)
        number = int(tagged.group(1)) if tagged else None
    if number is None:
        # An untagged, unprioritised finding is treated as worth fixing, not as blocking.
        number = from_tag if from_tag is not None else 2
    return min(3, max(0, number))


def _unit(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    if not math.isfinite(number):
        return 0.0
    return min(1.0, max(0.0, number))


def _correctness(value: str) -> str:
    lowered = value.lower()
    if lowered in (CORRECT, INCORRECT):
        return lowered
    if "incorrect" in lowered:
        return INCORRECT
    if "correct" in lowered:
        return CORRECT
    return value


def _absolute(path: str, repo_root: Path) -> str:
    """Relative paths are anchored at the repository root, never at the process cwd."""
    if os.path.isabs(path):
        return os.path.normpath(path)
    joined = repo_root / path
    # Models sometimes copy the diff's `a/` or `b/` prefix along with the path.
    if path[:2] in ("a/", "b/") and not joined.exists() and (repo_root / path[2:]).exists():
        joined = repo_root / path[2:]
    return os.path.normpath(joined)


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0][:80] if text.strip() else ""
