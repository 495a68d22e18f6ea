"""The engine's words for editor requests (`engine.editor_tasks`, `engine/prompts/`)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import pytest

from codex_lsp.engine.editor_tasks import (
    MAX_ATTACHED_CHARS,
    fenced,
    request_text,
    shown_path,
    turn_instructions,
)
from codex_lsp.engine.goal_turns import (
    budget_limit_prompt,
    continuation_prompt,
    objective_updated_prompt,
)
from codex_lsp.engine.prompts import render
from codex_lsp.engine.workspace import DiskWorkspace
from codex_lsp.protocol.core.editor_tasks import (
    ApplyCodeTask,
    EditTask,
    FileAttachment,
    FindingTask,
    LineSpan,
)
from codex_lsp.protocol.core.inputs import ByteRange, ReviewCodeLocation, ReviewFinding


def test_a_fence_is_longer_than_any_run_of_backticks_in_the_code():
    assert fenced("x = 1", "py") == "```py\nx = 1\n```"
    assert fenced("a ```` b\n") == "`````\na ```` b\n`````"


def test_paths_under_the_working_directory_are_shown_relative():
    assert shown_path("/ws/src/a.py", Path("/ws")) == "src/a.py"
    assert shown_path("/other/a.py", Path("/ws")) == "/other/a.py"
    assert shown_path("/wsx/a.py", Path("/ws")) == "/wsx/a.py"


def test_a_template_value_is_never_read_as_template_syntax():
    code = fenced("print('$where ${path} {x}')")
    text = render("attached_file", path="a.py", code=code)
    assert "$where ${path} {x}" in text


def test_every_prompt_file_renders_with_the_values_its_caller_gives(tmp_path):
    (tmp_path / "a.py").write_text("one\ntwo\nthree\n")
    finding = ReviewFinding(
        title="[P2] Wrong",
        body="Because.",
        code_location=ReviewCodeLocation(
            absolute_file_path=str(tmp_path / "a.py"), line_range=ByteRange(start=2, end=3)
        ),
    )
    tasks = [
        EditTask(path=str(tmp_path / "a.py"), lines=LineSpan(start=1, end=1)),
        FindingTask(type="fix_finding", finding=finding),
        FindingTask(type="explain_finding", finding=finding),
        ApplyCodeTask(path=str(tmp_path / "a.py"), code="ONE\n"),
    ]
    for task in tasks:
        text = turn_instructions(task, [], DiskWorkspace(), tmp_path)
        assert text and "$" not in text, text
    told = turn_instructions(tasks[1], [], DiskWorkspace(), tmp_path)
    assert told is not None and "```py\ntwo\nthree\n```" in told
    assert request_text(tasks[1], tmp_path) == "Fix: [P2] Wrong (a.py:2-3)"
    assert request_text(tasks[3], tmp_path) == "Apply the code block to a.py"
    assert request_text(tasks[0], tmp_path) is None
    used = {"attached_context", "attached_file", "attached_lines", "attached_problems"}
    used |= {"edit_selection", "fix_finding", "explain_finding", "apply_code"}
    used |= {"fix_finding_request", "explain_finding_request", "apply_code_request"}
    used |= {"attachment_label"}
    # Plan mode's instructions, as the developer message carries them.
    for name in ("plan_mode", "plan_mode_ended"):
        assert "<collaboration_mode>" in render(name) and "$" not in render(name)
    used |= {"plan_mode", "plan_mode_ended"}
    # A goal's prompts, with the values the goal gives them.
    goal = {"objective": "Port it", "tokensUsed": 5, "tokenBudget": 100, "timeUsedSeconds": 7}
    for text in (
        continuation_prompt(goal, update_plan=True),
        continuation_prompt(goal, update_plan=False),
        objective_updated_prompt(goal),
        budget_limit_prompt(goal),
    ):
        assert "Tokens used: 5" in text and "$" not in text, text
    used |= {"goal_continuation", "goal_objective_updated", "goal_budget_limit"}
    shipped = {p.name.removesuffix(".md") for p in files("codex_lsp.engine.prompts").iterdir()}
    assert shipped - {"__init__.py", "__pycache__"} == used


def test_an_unreadable_file_says_so_instead_of_failing_the_turn(tmp_path):
    missing = FileAttachment(path=str(tmp_path / "gone.py"), lines=LineSpan(start=1, end=2))
    text = turn_instructions(None, [missing], DiskWorkspace(), tmp_path)
    assert text is not None and "gone.py could not be read: No such file or directory" in text


def test_a_huge_attachment_is_cut_and_says_how_much_was_left_out(tmp_path):
    big = "x" * (MAX_ATTACHED_CHARS + 10)
    text = turn_instructions(
        None, [FileAttachment(path="/ws/big.txt", text=big)], DiskWorkspace(), Path("/ws")
    )
    assert text is not None and "[… 10 more characters]" in text


def test_no_task_and_no_attachment_means_no_instructions():
    assert turn_instructions(None, [], DiskWorkspace(), Path("/")) is None


@pytest.mark.parametrize("name", ["edit_selection", "fix_finding", "apply_code"])
def test_the_change_making_prompts_ask_for_apply_patch(name):
    text = (files("codex_lsp.engine.prompts") / f"{name}.md").read_text()
    assert "apply_patch" in text
