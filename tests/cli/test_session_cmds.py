"""`codex-lsp resume`, `fork` and `review` at the top level, as a Codex user types them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import run_cli
from tests.support.engine import make_git_repo, write_config
from tests.support.scripted_builders import text_response


def _setup(scripted_model, tmp_path: Path) -> tuple[Path, Path]:
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws", {"a.py": "x = 1\n"})
    write_config(home, scripted_model.base_url)
    return home, ws


def _user_texts(body: dict) -> list[str]:
    return [
        part["text"]
        for item in body["input"]
        if item.get("role") == "user"
        for part in item["content"]
        if part.get("type") == "input_text" and not part["text"].startswith("<")
    ]


def test_resume_lists_sessions_then_continues_the_newest(scripted_model, tmp_path):
    home, ws = _setup(scripted_model, tmp_path)
    scripted_model.enqueue(text_response("first answer"))
    scripted_model.enqueue(text_response("second answer", response_id="resp_2"))

    nothing = run_cli(home, "resume", cwd=ws)
    assert nothing.returncode == 1 and "no recorded sessions" in nothing.stderr

    started = run_cli(home, "exec", "--json", "-C", str(ws), "remember the number 7")
    thread_id = json.loads(started.stdout.splitlines()[0])["thread_id"]

    listed = run_cli(home, "resume", cwd=ws)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith(thread_id) and "remember the number 7" in listed.stdout

    resumed = run_cli(home, "resume", "--last", "-C", str(ws), "which number?", cwd=ws)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == "second answer\n"
    assert _user_texts(scripted_model.requests[-1].body)[-2:] == [
        "remember the number 7",
        "which number?",
    ]


def test_fork_leaves_the_original_as_it_was(scripted_model, tmp_path):
    home, ws = _setup(scripted_model, tmp_path)
    for n in range(3):
        scripted_model.enqueue(text_response(f"answer {n}", response_id=f"resp_{n}"))

    started = run_cli(home, "exec", "--json", "-C", str(ws), "start")
    thread_id = json.loads(started.stdout.splitlines()[0])["thread_id"]
    forked = run_cli(home, "fork", "--json", thread_id, "-C", str(ws), "in the copy")
    assert forked.returncode == 0, forked.stderr
    assert json.loads(forked.stdout.splitlines()[0])["thread_id"] != thread_id
    resumed = run_cli(home, "resume", thread_id, "-C", str(ws), "back in the original")

    assert resumed.returncode == 0, resumed.stderr
    assert _user_texts(scripted_model.requests[-1].body)[-2:] == ["start", "back in the original"]


def test_review_at_the_top_level_is_exec_review(scripted_model, tmp_path):
    home, ws = _setup(scripted_model, tmp_path)
    (ws / "a.py").write_text("x = 2\n")
    review = {
        "findings": [],
        "overall_correctness": "patch is correct",
        "overall_explanation": "Looks right.",
        "overall_confidence_score": 0.9,
    }
    scripted_model.enqueue(text_response(json.dumps(review)))

    result = run_cli(home, "review", "--uncommitted", "-C", str(ws))

    assert result.returncode == 0, result.stderr
    assert result.stdout == "Looks right.\n"
    assert "x = 2" in json.dumps(scripted_model.requests[0].body["input"])
