"""`codex.review` with each target: the reviewer model receives the right diff.

The repository has real history (see `repo_with_history`): `main` and a `feature` branch that
each moved on after they split; the feature branch is checked out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.engine.test_review_git import git, repo_with_history
from tests.lsp.test_lsp_review import review, user_text
from tests.support.lsp_client import EditorSession
from tests.support.scripted_builders import text_response

CLEAN = json.dumps(
    {
        "findings": [],
        "overall_correctness": "patch is correct",
        "overall_explanation": "Fine.",
        "overall_confidence_score": 0.9,
    }
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return repo_with_history(tmp_path / "repo")


def _uncommitted(repo: Path) -> tuple[dict[str, Any], str, list[str], list[str]]:
    (repo / "src/app.py").write_text("def main():\n    return 2\n")
    return (
        {"type": "uncommittedChanges"},
        "current changes",
        ["-    return 1", "+    return 2"],
        ["FEATURE_FLAG", "def helper"],
    )


def _base_branch(repo: Path) -> tuple[dict[str, Any], str, list[str], list[str]]:
    base = git(repo, "merge-base", "HEAD", "main")
    return (
        {"type": "baseBranch", "branch": "main"},
        "changes against 'main'",
        [f"The merge base of HEAD and 'main' is {base}", "+FEATURE_FLAG = True"],
        ["MAINLINE_ONLY", "def helper"],  # main's own later commit and the shared history
    )


def _commit(repo: Path) -> tuple[dict[str, Any], str, list[str], list[str]]:
    sha = git(repo, "rev-parse", "feature~1")  # "add helper", shared by both branches
    return (
        {"type": "commit", "sha": sha, "title": "add helper"},
        f"commit {sha[:7]}: add helper",
        [f'commit {sha} ("add helper")', "+def helper(x):"],
        ["FEATURE_FLAG", "MAINLINE_ONLY"],
    )


def _custom(repo: Path) -> tuple[dict[str, Any], str, list[str], list[str]]:
    instructions = "Look for off-by-one errors in src/helper.py only."
    return (
        {"type": "custom", "instructions": f"  {instructions}\n"},
        instructions,
        [instructions],
        ["<diff>"],
    )


@pytest.mark.parametrize("case", [_uncommitted, _base_branch, _commit, _custom])
async def test_each_target_reaches_the_model_with_its_diff(home, repo, scripted_model, case):
    target, hint, present, absent = case(repo)
    scripted_model.enqueue(text_response(CLEAN))
    async with EditorSession(home, repo) as client:
        verdict = await review(client, target)
        entered = next(
            p["item"]
            for p in client.notifications("item/completed")
            if p["item"]["type"] == "enteredReviewMode"
        )
        assert entered["review"] == hint
        assert verdict["overallCorrectness"] == "patch is correct"
        assert client.messages[-1].type == types.MessageType.Info

    [request] = scripted_model.requests
    prompt = user_text(request)
    for text in present:
        assert text in prompt
    for text in absent:
        assert text not in prompt


async def test_review_on_a_given_thread_and_targets_that_cannot_be_reviewed(
    home, repo, scripted_model
):
    (repo / "src/app.py").write_text("def main():\n    return 3\n")
    scripted_model.enqueue(text_response(CLEAN))
    async with EditorSession(home, repo) as client:
        thread = await client.command("codex.newThread", {"cwd": str(repo)})
        thread_id = thread["thread"]["id"]
        verdict = await review(client, threadId=thread_id)
        assert verdict["threadId"] == thread_id

        for target, complaint in [
            ({"type": "bogus"}, "'target' must be an object of type uncommittedChanges"),
            ({"type": "baseBranch"}, "branch"),
            ({"type": "baseBranch", "branch": "no-such-branch"}, "no-such-branch"),
            ({"type": "custom", "instructions": "   "}, "Review prompt cannot be empty"),
        ]:
            with pytest.raises(JsonRpcException, match=complaint):
                await client.command("codex.review", {"target": target, "threadId": thread_id})
        assert client.diagnostics == {}
    assert len(scripted_model.requests) == 1, "a refused target never reaches the model"
