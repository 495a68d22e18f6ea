"""The `review` op end to end: real git repositories, the engine, the scripted model server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio

from codex_lsp.engine.review import REVIEW_OUTPUT_SCHEMA, last_review
from codex_lsp.protocol.core.events import Event
from codex_lsp.protocol.core.inputs import (
    BaseBranchTarget,
    CommitTarget,
    CustomTarget,
    ReviewRequest,
    UncommittedChangesTarget,
)
from codex_lsp.protocol.core.ops import Interrupt, Review
from tests.engine.test_review_git import commit_file, git, repo_with_history
from tests.support.engine import EngineDriver, running_engine, write_config
from tests.support.scripted_builders import function_call_response, http_error, text_response

END_KINDS = ("task_complete", "turn_aborted")


def review_answer(*findings: dict[str, Any], correctness: str = "patch is incorrect") -> str:
    return json.dumps(
        {
            "findings": list(findings),
            "overall_correctness": correctness,
            "overall_explanation": "Checked the change.",
            "overall_confidence_score": 0.6,
        }
    )


def finding(title: str, path: str, start: int, end: int, priority: int) -> dict[str, Any]:
    return {
        "title": title,
        "body": f"Body of {title}.",
        "confidence_score": 0.9,
        "priority": priority,
        "code_location": {"absolute_file_path": path, "line_range": {"start": start, "end": end}},
    }


async def review(engine: EngineDriver, target: Any, **fields: Any) -> list[Event]:
    """Submit a review; its events up to the end of its task, or its lone `error`."""
    start = len(engine.events)
    sub_id = await engine.codex.submit(
        Review(review_request=ReviewRequest(target=target, **fields))
    )
    first = await engine.until(("task_started", "error"), sub_id=sub_id)
    if first.msg.type == "error":
        return [first]
    await engine.until(END_KINDS, sub_id=sub_id)
    return [event for event in engine.events[start:] if event.id == sub_id]


def user_text(body: dict[str, Any]) -> str:
    return "\n".join(
        part["text"]
        for item in body["input"]
        if item.get("type") == "message" and item.get("role") == "user"
        for part in item["content"]
    )


def engine_for(scripted_model: Any, tmp_path: Path) -> running_engine:
    home = tmp_path / "home"
    write_config(home, scripted_model.base_url)
    return running_engine(home)


async def test_uncommitted_review_reports_findings_without_chatting(scripted_model, tmp_path):
    repo = repo_with_history(tmp_path / "repo")
    (repo / "src/app.py").write_text("def main():\n    return 2  # STAGED\n")
    git(repo, "add", "src/app.py")
    (repo / "README.md").write_text("hi\nUNSTAGED line\n")
    (repo / "src/new_module.py").write_text("UNTRACKED = True\n")
    scripted_model.enqueue(
        text_response(
            review_answer(
                finding("[P1] main returns the wrong value", "src/app.py", 2, 2, 1),
                finding("[P3] Untracked flag is unused", str(repo / "src/new_module.py"), 1, 1, 3),
            )
        )
    )
    async with engine_for(scripted_model, tmp_path) as engine:
        await engine.configure(cwd=str(repo / "src"))
        events = await review(engine, UncommittedChangesTarget())
        stored = last_review(engine.codex.session)

    kinds = [e.msg.type for e in events]
    # Review mode is entered before the turn starts, which opens with what was asked.
    assert kinds[:3] == ["entered_review_mode", "task_started", "user_message"]
    assert events[2].msg.message.startswith("Review the uncommitted changes")
    assert kinds[-2:] == ["exited_review_mode", "task_complete"]
    assert "agent_message" not in kinds and "agent_message_delta" not in kinds
    entered = events[0].msg
    assert entered.user_facing_hint == "current changes"
    assert entered.target.type == "uncommittedChanges"

    output = events[-2].msg.review_output
    assert output.overall_correctness == "patch is incorrect"
    places = [
        (
            f.code_location.absolute_file_path,
            f.code_location.line_range.start,
            f.code_location.line_range.end,
            f.priority,
        )
        for f in output.findings
    ]
    assert places == [
        (str(repo / "src/app.py"), 2, 2, 1),
        (str(repo / "src/new_module.py"), 1, 1, 3),
    ]
    assert stored == output
    done = events[-1].msg.last_agent_message
    assert f"- [P1] main returns the wrong value — {repo / 'src/app.py'}:2-2" in done

    [request] = scripted_model.requests
    body = request.body
    assert request.headers.get("x-openai-subagent") == "review"
    assert body["text"]["format"]["type"] == "json_schema"
    assert body["text"]["format"]["schema"] == REVIEW_OUTPUT_SCHEMA
    assert "[P0]" in body["instructions"] and "patch is incorrect" in body["instructions"]
    assert [item["role"] for item in body["input"]] == ["user"], "the diff is the only message"
    prompt = user_text(body)
    assert "+    return 2  # STAGED" in prompt
    assert "+UNSTAGED line" in prompt
    assert "+UNTRACKED = True" in prompt
    assert str(repo) in prompt
    assert [tool["name"] for tool in body["tools"]] == ["shell_command"]


async def test_each_target_puts_its_own_change_in_the_prompt(scripted_model, tmp_path):
    repo = repo_with_history(tmp_path / "repo")
    helper_sha = git(repo, "rev-parse", "main~1")
    for _ in range(3):
        scripted_model.enqueue(text_response(review_answer(correctness="patch is correct")))
    async with engine_for(scripted_model, tmp_path) as engine:
        await engine.configure(cwd=str(repo))
        branch = await review(engine, BaseBranchTarget(branch="main"))
        commit = await review(engine, CommitTarget(sha=helper_sha, title="add helper"))
        custom = await review(engine, CustomTarget(instructions="  Look for SQL injection.  "))

    hints = [events[0].msg.user_facing_hint for events in (branch, commit, custom)]
    assert hints == [
        "changes against 'main'",
        f"commit {helper_sha[:7]}: add helper",
        "Look for SQL injection.",
    ]
    branch_prompt, commit_prompt, custom_prompt = (
        user_text(r.body) for r in scripted_model.requests
    )
    assert "+FEATURE_FLAG = True" in branch_prompt
    assert "MAINLINE_ONLY" not in branch_prompt and "def helper" not in branch_prompt
    assert "+def helper(x):" in commit_prompt and helper_sha in commit_prompt
    assert "FEATURE_FLAG" not in commit_prompt
    assert custom_prompt.startswith("Look for SQL injection.")
    assert "diff --git" not in custom_prompt
    for r in scripted_model.requests:
        assert r.body["text"]["format"]["schema"] == REVIEW_OUTPUT_SCHEMA


async def test_appended_review_is_what_the_next_turn_knows(scripted_model, tmp_path):
    repo = repo_with_history(tmp_path / "repo")
    commit_file(repo, "src/feature.py", "FEATURE_FLAG = False\n", "flip the flag")
    for append in (True, False):
        scripted_model.enqueue(
            text_response(review_answer(finding("[P2] Flag flipped", "src/feature.py", 1, 1, 2)))
        )
        scripted_model.enqueue(text_response("Fixed it."))
        async with engine_for(scripted_model, tmp_path) as engine:
            await engine.configure(cwd=str(repo))
            await review(engine, CommitTarget(sha="HEAD"), append_to_original_thread=append)
            await engine.run_turn("please fix the review findings")

    with_review, without_review = scripted_model.requests[1].body, scripted_model.requests[3].body
    seen = json.dumps(with_review["input"])
    assert "<user_action>" in seen and "<action>review</action>" in seen
    assert "[P2] Flag flipped" in seen
    assistant = [i for i in with_review["input"] if i.get("role") == "assistant"]
    assert "[P2] Flag flipped" in assistant[0]["content"][0]["text"]
    # The review's own request (the diff) never enters the thread.
    assert "diff --git" not in seen
    not_seen = json.dumps(without_review["input"])
    assert "<user_action>" not in not_seen and "Flag flipped" not in not_seen
    assert [i.get("role") for i in without_review["input"]] == ["developer", "user", "user"]


async def test_malformed_answer_fails_the_review_and_the_session_goes_on(scripted_model, tmp_path):
    repo = repo_with_history(tmp_path / "repo")
    (repo / "README.md").write_text("changed\n")
    scripted_model.enqueue(text_response("Honestly it looks fine, no JSON from me."))
    scripted_model.enqueue(text_response("Still here."))
    async with engine_for(scripted_model, tmp_path) as engine:
        await engine.configure(cwd=str(repo))
        events = await review(engine, UncommittedChangesTarget())
        turn = await engine.run_turn("hello again")

    output = next(e.msg for e in events if e.msg.type == "exited_review_mode").review_output
    assert output.findings == [] and output.overall_correctness == ""
    assert "could not be parsed" in output.overall_explanation
    assert "looks fine, no JSON" in output.overall_explanation
    assert events[-1].msg.type == "task_complete"
    assert engine.of_type("task_complete", turn)[0].last_agent_message == "Still here."


async def test_interrupt_during_review(scripted_model, tmp_path):
    repo = repo_with_history(tmp_path / "repo")
    (repo / "README.md").write_text("changed\n")
    scripted_model.enqueue([{"stall_s": 30}])
    scripted_model.enqueue(text_response("After the interrupt."))
    async with engine_for(scripted_model, tmp_path) as engine:
        await engine.configure(cwd=str(repo))
        sub_id = await engine.codex.submit(
            Review(review_request=ReviewRequest(target=UncommittedChangesTarget()))
        )
        await engine.until("entered_review_mode", sub_id=sub_id)
        while not scripted_model.requests:
            await anyio.sleep(0.01)
        await engine.codex.submit(Interrupt())
        aborted = await engine.until("turn_aborted", sub_id=sub_id)
        stored = last_review(engine.codex.session)
        turn = await engine.run_turn("what happened?")

    review_events = [e.msg for e in engine.events if e.id == sub_id]
    exited = [m for m in review_events if m.type == "exited_review_mode"]
    assert len(exited) == 1 and exited[0].review_output is None
    assert review_events.index(exited[0]) < review_events.index(aborted.msg)
    assert aborted.msg.reason == "interrupted"
    assert "task_complete" not in [m.type for m in review_events]
    assert stored is None
    assert engine.of_type("task_complete", turn)[0].last_agent_message == "After the interrupt."
    next_request = json.dumps(scripted_model.requests[1].body["input"])
    assert "<action>review</action>" in next_request and "None." in next_request


async def test_model_error_ends_the_review_without_output(scripted_model, tmp_path):
    repo = repo_with_history(tmp_path / "repo")
    (repo / "README.md").write_text("changed\n")
    scripted_model.enqueue(http_error(400, {"error": {"message": "bad schema, sorry"}}))
    async with engine_for(scripted_model, tmp_path) as engine:
        await engine.configure(cwd=str(repo))
        events = await review(engine, UncommittedChangesTarget())

    kinds = [e.msg.type for e in events]
    assert kinds.index("error") < kinds.index("exited_review_mode") < kinds.index("task_complete")
    assert next(e.msg for e in events if e.msg.type == "exited_review_mode").review_output is None
    assert "bad schema" in next(e.msg for e in events if e.msg.type == "error").message


async def test_unreviewable_targets_are_one_error_and_no_task(scripted_model, tmp_path):
    repo = repo_with_history(tmp_path / "repo")
    scripted_model.enqueue(text_response("normal turn"))
    async with engine_for(scripted_model, tmp_path) as engine:
        await engine.configure(cwd=str(repo))
        empty = await review(engine, CustomTarget(instructions="   "))
        missing = await review(engine, BaseBranchTarget(branch="no-such-branch"))
        nothing = await review(engine, UncommittedChangesTarget())
        turn = await engine.run_turn("still works?")

    assert [e.msg.type for e in empty] == ["error"]
    assert empty[0].msg.message == "Review prompt cannot be empty"
    assert "Branch 'no-such-branch' was not found" in missing[0].msg.message
    assert "no uncommitted changes" in nothing[0].msg.message
    assert not any(e.msg.type == "entered_review_mode" for e in engine.events)
    assert engine.of_type("task_complete", turn)[0].last_agent_message == "normal turn"
    assert len(scripted_model.requests) == 1


async def test_reviewer_reads_files_but_cannot_write(scripted_model, tmp_path):
    repo = repo_with_history(tmp_path / "repo")
    (repo / "README.md").write_text("changed\n")
    scripted_model.enqueue(
        function_call_response(
            "shell_command",
            {"command": "cat src/helper.py; echo pwned > written.txt", "workdir": str(repo)},
            call_id="call_read",
        )
    )
    scripted_model.enqueue(text_response(review_answer(correctness="patch is correct")))
    async with engine_for(scripted_model, tmp_path) as engine:
        await engine.configure(cwd=str(repo))
        events = await review(engine, UncommittedChangesTarget())

    assert not (repo / "written.txt").exists(), "the reviewer must not change the workspace"
    assert not any(e.msg.type == "exec_approval_request" for e in events)
    second = scripted_model.requests[1].body
    [output] = [i["output"] for i in second["input"] if i.get("type") == "function_call_output"]
    assert "def helper(x):" in output or "refused" in output
    assert events[-2].msg.review_output.overall_correctness == "patch is correct"
