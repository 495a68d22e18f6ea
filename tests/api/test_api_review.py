"""`ApiServer` in-process: the structured findings a door reads after a review
(`last_review`), and `skills/list` with and without a loaded thread."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codex_lsp.api.server import ApiServer
from codex_lsp.engine.bootstrap import load_services
from tests.api.test_api_server import FakeClient
from tests.engine.test_review_git import git, repo_with_history
from tests.support.appserver import make_home
from tests.support.scripted_builders import text_response

SKILL = "---\nname: {name}\ndescription: {description}\n---\nBody of {name}.\n"


@pytest.fixture
async def served(scripted_model, tmp_path):
    home, _ = make_home(tmp_path, scripted_model.base_url)
    repo = repo_with_history(tmp_path / "repo")
    (repo / "src/app.py").write_text("def main():\n    return 2\n")
    git(repo, "add", "src/app.py")
    client = FakeClient()
    server = ApiServer(lambda: load_services(codex_home=home), client)
    yield server, client, repo, home
    await server.aclose()


def answer(path: str) -> str:
    finding = {
        "title": "[P0] main returns 2",
        "body": "It used to return 1.",
        "confidence_score": 0.8,
        "priority": 0,
        "code_location": {"absolute_file_path": path, "line_range": {"start": 2, "end": 2}},
    }
    return json.dumps(
        {
            "findings": [finding],
            "overall_correctness": "patch is incorrect",
            "overall_explanation": "One blocking bug.",
            "overall_confidence_score": 0.7,
        }
    )


async def review(server: ApiServer, client: FakeClient, thread_id: str, **params: object) -> str:
    result = await server.handle(
        "review/start",
        {"threadId": thread_id, "target": {"type": "uncommittedChanges"}, **params},
    )
    review_thread = result["reviewThreadId"]
    await client.until("turn/completed", threadId=review_thread)
    return review_thread


async def test_last_review_holds_the_structured_findings(served, scripted_model):
    server, client, repo, _ = served
    thread = await server.handle("thread/start", {"cwd": str(repo), "sandbox": "read-only"})
    thread_id = thread["thread"]["id"]
    assert server.editor.last_review(thread_id) is None
    assert server.editor.last_review("not-loaded") is None

    scripted_model.enqueue(text_response(answer("src/app.py")))
    await review(server, client, thread_id)
    output = server.editor.last_review(thread_id)
    assert output is not None
    assert output.overall_correctness == "patch is incorrect"
    (finding,) = output.findings
    assert finding.priority == 0 and finding.confidence_score == 0.8
    assert finding.code_location.absolute_file_path == str(repo / "src/app.py")
    assert (finding.code_location.line_range.start, finding.code_location.line_range.end) == (2, 2)

    # A detached review's findings belong to the fork; the reviewed thread keeps its own.
    scripted_model.enqueue(text_response("not json at all"))
    fork_id = await review(server, client, thread_id, delivery="detached")
    assert fork_id != thread_id
    failed = server.editor.last_review(fork_id)
    assert failed is not None and failed.findings == []
    assert failed.overall_explanation.startswith("The review failed:")
    assert server.editor.last_review(thread_id) == output


async def test_skills_list_with_and_without_a_loaded_thread(served, scripted_model):
    server, _, repo, _ = served
    skill_dir = repo / ".agents/skills/lint-fix"
    skill_dir.mkdir(parents=True)
    (skill_dir / "SKILL.md").write_text(
        SKILL.format(name="lint-fix", description="Fix lint errors.")
    )
    broken = repo / ".agents/skills/broken"
    broken.mkdir(parents=True)
    (broken / "SKILL.md").write_text("no frontmatter here\n")

    # No thread yet: the server scans itself.
    alone = await server.handle("skills/list", {"cwds": [str(repo)]})
    (entry,) = alone["data"]
    assert entry["cwd"] == str(repo)
    assert [(s["name"], s["scope"], s["enabled"]) for s in entry["skills"]] == [
        ("lint-fix", "repo", True)
    ]
    assert entry["skills"][0]["path"] == str(skill_dir / "SKILL.md")
    assert [Path(e["path"]) for e in entry["errors"]] == [broken / "SKILL.md"]

    # With a thread, its engine answers; a relative cwd is read from the thread's directory.
    thread = await server.handle("thread/start", {"cwd": str(repo / "src")})
    assert thread["thread"]["cwd"] == str(repo / "src")
    first = await server.handle("skills/list", {"cwds": [".."]})
    new_skill = repo / ".agents/skills/new-one"
    new_skill.mkdir()
    (new_skill / "SKILL.md").write_text(SKILL.format(name="new-one", description="New."))
    cached = await server.handle("skills/list", {"cwds": [".."]})
    reloaded = await server.handle("skills/list", {"cwds": [".."], "forceReload": True})
    default = await server.handle("skills/list", {})
    names = [[s["name"] for s in r["data"][0]["skills"]] for r in (first, cached, reloaded)]
    assert names == [["lint-fix"], ["lint-fix"], ["lint-fix", "new-one"]]
    assert Path(reloaded["data"][0]["cwd"]).resolve() == repo
    # No cwds: the thread's own directory, as its session scanned it when it started.
    assert default["data"][0]["cwd"] == str(repo / "src")
    assert [s["name"] for s in default["data"][0]["skills"]] == ["lint-fix"]
