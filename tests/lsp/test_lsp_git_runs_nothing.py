"""The language server's door to the engine's git: `codex/review/start` and
`codex/fuzzyFileSearch` in a package folder of a repository configured to run a program at
every chance git has (see tests/appserver/test_appserver_git_runs_nothing.py) run none."""

from __future__ import annotations

from tests.appserver.test_appserver_git_runs_nothing import Trap
from tests.appserver.test_appserver_review import review_answer, user_text
from tests.engine.test_review_git import repo_with_history
from tests.support.engine import write_config
from tests.support.lsp_client import EditorSession
from tests.support.scripted_builders import text_response


async def test_review_and_search_through_the_language_server_run_nothing(tmp_path, scripted_model):
    repo = repo_with_history(tmp_path / "repo")
    (repo / "src/app.py").write_text("def main():\n    return 2  # UNSTAGED-CHANGE\n")
    (repo / "src/new_module.py").write_text("UNTRACKED_CHANGE = True\n")
    package = repo / "src"
    trap = Trap(tmp_path)
    trap.arm(repo, package / "included.gitconfig")
    home = tmp_path / "home"
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(text_response(review_answer()))

    async with EditorSession(home, package) as client:
        found = await client.codex("fuzzyFileSearch", {"query": "newmod", "roots": [str(package)]})
        thread_id = await client.start_thread(package)
        review = await client.codex(
            "review/start", {"threadId": thread_id, "target": {"type": "uncommittedChanges"}}
        )
        done = await client.turn_completed(thread_id, review["turn"]["id"])

    assert trap.fired() == []
    assert [f["path"] for f in found["files"]] == ["new_module.py"]
    assert done["turn"]["status"] == "completed"
    prompt = user_text(scripted_model.requests[0].body)
    assert "UNSTAGED-CHANGE" in prompt and "UNTRACKED_CHANGE = True" in prompt
