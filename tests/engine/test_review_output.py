"""The reviewer's answer: tolerant parsing, finding validation and the rendered review."""

from __future__ import annotations

import json
from pathlib import Path

from codex_lsp.engine.review import REVIEW_OUTPUT_SCHEMA, parse_review_output, render_review
from codex_lsp.engine.review.render import review_user_action

ROOT = Path("/work/repo")


def finding(path: str = "/work/repo/src/app.py", start: int = 3, end: int = 4, **extra):
    base = {
        "title": "[P1] Off-by-one in loop",
        "body": "The loop skips the last item.",
        "confidence_score": 0.8,
        "priority": 1,
        "code_location": {"absolute_file_path": path, "line_range": {"start": start, "end": end}},
    }
    return {**base, **extra}


def answer(*findings, correctness="patch is incorrect", explanation="One bug.", confidence=0.7):
    return json.dumps(
        {
            "findings": list(findings),
            "overall_correctness": correctness,
            "overall_explanation": explanation,
            "overall_confidence_score": confidence,
        }
    )


def test_plain_json_answer():
    parsed = parse_review_output(answer(finding()), ROOT)
    assert parsed.ok
    out = parsed.output
    assert out.overall_correctness == "patch is incorrect"
    assert out.overall_explanation == "One bug." and out.overall_confidence_score == 0.7
    [f] = out.findings
    assert f.title == "[P1] Off-by-one in loop" and f.priority == 1
    assert f.code_location.absolute_file_path == "/work/repo/src/app.py"
    assert (f.code_location.line_range.start, f.code_location.line_range.end) == (3, 4)


def test_fenced_answer_parses():
    text = "Here is my review:\n\n```json\n" + answer(finding()) + "\n```\nThanks!"
    parsed = parse_review_output(text, ROOT)
    assert parsed.ok and len(parsed.output.findings) == 1


def test_answer_surrounded_by_prose_parses():
    text = "I looked carefully. " + answer(finding(), finding(start=9, end=9)) + " That is all."
    parsed = parse_review_output(text, ROOT)
    assert parsed.ok and [f.code_location.line_range.start for f in parsed.output.findings] == [
        3,
        9,
    ]


def test_malformed_answer_is_a_clear_failed_review():
    parsed = parse_review_output("Looks fine to me {but not json", ROOT)
    assert not parsed.ok
    out = parsed.output
    assert out.findings == [] and out.overall_correctness == ""
    assert out.overall_explanation.startswith("The review failed:")
    assert "could not be parsed" in out.overall_explanation
    assert "Looks fine to me" in out.overall_explanation


def test_json_that_is_not_a_review_fails_and_empty_answer_fails():
    assert not parse_review_output('{"hello": "world"}', ROOT).ok
    empty = parse_review_output("   ", ROOT)
    assert not empty.ok and "no answer" in empty.output.overall_explanation


def test_findings_are_validated_and_clamped():
    bad_location = {**finding(), "code_location": {"absolute_file_path": "/x.py"}}
    no_path = finding(path="")
    wild = finding(
        title="Unchecked None",
        priority=9,
        confidence_score=3.5,
        start=12,
        end=10,
    )
    tag_only = {**finding(title="[P0] Deletes user data"), "priority": None}
    parsed = parse_review_output(answer(bad_location, no_path, wild, tag_only), ROOT)

    assert parsed.dropped == 2
    first, second = parsed.output.findings
    assert first.priority == 3 and first.title == "[P3] Unchecked None"
    assert first.confidence_score == 1.0
    assert (first.code_location.line_range.start, first.code_location.line_range.end) == (10, 12)
    assert second.priority == 0 and second.title == "[P0] Deletes user data"


def test_relative_paths_resolve_against_the_repository_root(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src/app.py").write_text("x\n")
    parsed = parse_review_output(
        answer(
            finding(path="src/app.py"), finding(path="b/src/app.py"), finding(path="./a/../x.py")
        ),
        tmp_path,
    )
    paths = [f.code_location.absolute_file_path for f in parsed.output.findings]
    assert paths == [
        str(tmp_path / "src/app.py"),
        str(tmp_path / "src/app.py"),
        str(tmp_path / "x.py"),
    ]


def test_verdict_wording_is_normalised():
    parsed = parse_review_output(answer(correctness="The patch is INCORRECT"), ROOT)
    assert parsed.output.overall_correctness == "patch is incorrect"


def test_schema_is_strict_and_names_every_field():
    assert REVIEW_OUTPUT_SCHEMA["additionalProperties"] is False
    assert set(REVIEW_OUTPUT_SCHEMA["required"]) == set(REVIEW_OUTPUT_SCHEMA["properties"])
    item = REVIEW_OUTPUT_SCHEMA["properties"]["findings"]["items"]
    assert set(item["required"]) == set(item["properties"])
    correctness = REVIEW_OUTPUT_SCHEMA["properties"]["overall_correctness"]["enum"]
    assert correctness == ["patch is correct", "patch is incorrect"]


def test_rendered_review_lists_each_finding_with_its_place_and_body():
    out = parse_review_output(
        answer(finding(body="First line.\nSecond line."), explanation="Needs work."), ROOT
    ).output
    text = render_review(out)
    assert text == (
        "Needs work.\n\n"
        "Review comment:\n\n"
        "- [P1] Off-by-one in loop — /work/repo/src/app.py:3-4\n"
        "  First line.\n"
        "  Second line."
    )
    action = review_user_action("current changes", text)["content"][0]["text"]
    assert action.startswith("<user_action>") and "<action>review</action>" in action
    assert "<results>\nNeeds work." in action and "current changes" in action
    unfinished = review_user_action("current changes", None)["content"][0]["text"]
    assert "<results>\nNone." in unfinished and "/review" in unfinished
