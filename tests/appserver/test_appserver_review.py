"""`review/start` through `codex-lsp app-server`, on git repositories the tests create: the diff
in the reviewer's request, the review items, a failed review, refused targets and a detached
review on a fork. Every message of the inline reviews is checked against the reference schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.engine.test_review_git import git, repo_with_history
from tests.support.appserver import AppServerClient, app_server, items_of, make_home
from tests.support.schema_check import SchemaChecker, TranscriptChecker
from tests.support.scripted_builders import created, text_response

INVALID_PARAMS = -32602


def review_answer(*findings: dict[str, Any], correctness: str = "patch is incorrect") -> str:
    return json.dumps(
        {
            "findings": list(findings),
            "overall_correctness": correctness,
            "overall_explanation": "The staged change breaks main.",
            "overall_confidence_score": 0.6,
        }
    )


def finding(title: str, path: str, start: int, end: int, priority: int) -> dict[str, Any]:
    return {
        "title": title,
        "body": f"Why: {title}.",
        "confidence_score": 0.9,
        "priority": priority,
        "code_location": {"absolute_file_path": path, "line_range": {"start": start, "end": end}},
    }


def changed_repo(tmp_path: Path) -> Path:
    """A repository with a staged, an unstaged and an untracked change."""
    repo = repo_with_history(tmp_path / "repo")
    (repo / "src/app.py").write_text("def main():\n    return 2  # STAGED-CHANGE\n")
    git(repo, "add", "src/app.py")
    (repo / "README.md").write_text("hi\nUNSTAGED-CHANGE\n")
    (repo / "src/untracked_mod.py").write_text("UNTRACKED_CHANGE = True\n")
    return repo


def start_review(client: AppServerClient, thread_id: str, target: dict[str, Any], **extra: Any):
    return client.call("review/start", {"threadId": thread_id, "target": target, **extra})


def review_items(client: AppServerClient, turn_id: str) -> dict[str, list[dict[str, Any]]]:
    stream = [m for m in client.received if (m.get("params") or {}).get("turnId") == turn_id]
    return {
        kind: items_of(stream, "item/completed", kind)
        for kind in ("enteredReviewMode", "exitedReviewMode", "agentMessage")
    }


def assert_schema_valid(client: AppServerClient) -> None:
    errors = TranscriptChecker(SchemaChecker(), forbid_jsonrpc_from_server=True).feed_all(
        client.transcript
    )
    assert errors == [], "\n".join(errors[:20])


def user_text(body: dict[str, Any]) -> str:
    return "\n".join(
        part.get("text", "")
        for item in body["input"]
        if item.get("type") == "message" and item.get("role") == "user"
        for part in item["content"]
    )


def test_uncommitted_changes_review_streams_items_and_tells_the_thread(scripted_model, tmp_path):
    repo = changed_repo(tmp_path)
    home, _ = make_home(tmp_path, scripted_model.base_url)
    app_py = str(repo / "src/app.py")
    scripted_model.enqueue(
        text_response(
            review_answer(
                finding("[P1] main returns the wrong value", app_py, 2, 2, 1),
                finding("[P3] Unused flag", "src/untracked_mod.py", 1, 1, 3),
            )
        )
    )
    scripted_model.enqueue(text_response("I will fix main.", response_id="resp_2"))

    with app_server(home, repo) as client:
        thread = client.start_thread()
        answer = start_review(client, thread["id"], {"type": "uncommittedChanges"})
        result = answer["result"]
        turn_id = result["turn"]["id"]
        assert result["reviewThreadId"] == thread["id"]
        assert result["turn"]["status"] == "inProgress"
        started = client.wait_method("turn/started", threadId=thread["id"])
        done = client.wait_method("turn/completed", threadId=thread["id"])
        # The response comes first; the turn it names follows it on the wire.
        assert client.received.index(answer) < client.received.index(started)
        assert started["params"]["turn"]["id"] == done["params"]["turn"]["id"] == turn_id
        assert done["params"]["turn"]["status"] == "completed"
        found = review_items(client, turn_id)
        client.run_turn(thread["id"], "Fix the first finding.")

    # The reviewer saw the diff of all three kinds of change, and the output schema.
    review_request = scripted_model.requests[0].body
    prompt = user_text(review_request)
    for marker in ("STAGED-CHANGE", "UNSTAGED-CHANGE", "UNTRACKED_CHANGE"):
        assert marker in prompt
    assert review_request["text"]["format"]["type"] == "json_schema"

    assert [i["review"] for i in found["enteredReviewMode"]] == ["current changes"]
    (exited,) = found["exitedReviewMode"]
    text = exited["review"]
    assert text.startswith("The staged change breaks main.")
    assert f"[P1] main returns the wrong value — {app_py}:2-2" in text
    assert f"[P3] Unused flag — {repo / 'src/untracked_mod.py'}:1-1" in text
    assert "Why: [P1] main returns the wrong value." in text
    # The reviewer's raw JSON is not chat; the rendered review is the turn's answer.
    assert [m["text"] for m in found["agentMessage"]] == [text]

    # appendToOriginalThread defaults to true: the next turn knows what the review found.
    follow_up = json.dumps(scripted_model.requests[1].body["input"])
    assert "<action>review</action>" in follow_up and "main returns the wrong value" in follow_up
    assert_schema_valid(client)


def test_custom_review_without_appending_to_the_thread(scripted_model, tmp_path):
    repo = changed_repo(tmp_path)
    home, _ = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response(review_answer(correctness="patch is correct")))
    scripted_model.enqueue(text_response("Hello again.", response_id="resp_2"))

    with app_server(home, repo) as client:
        thread = client.start_thread()
        target = {"type": "custom", "instructions": "  Look only at error handling.  "}
        result = start_review(client, thread["id"], target, appendToOriginalThread=False)
        turn_id = result["result"]["turn"]["id"]
        done = client.wait_method("turn/completed", threadId=thread["id"])
        found = review_items(client, turn_id)
        client.run_turn(thread["id"], "Hi.")

    assert done["params"]["turn"]["status"] == "completed"
    assert "Look only at error handling." in user_text(scripted_model.requests[0].body)
    assert [i["review"] for i in found["enteredReviewMode"]] == ["Look only at error handling."]
    assert found["exitedReviewMode"][0]["review"] == "The staged change breaks main."
    assert "<action>review</action>" not in json.dumps(scripted_model.requests[1].body["input"])
    assert_schema_valid(client)


def test_a_malformed_answer_is_a_failed_review_turn(scripted_model, tmp_path):
    repo = changed_repo(tmp_path)
    home, _ = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("Looks fine to me, ship it!"))

    with app_server(home, repo) as client:
        thread = client.start_thread()
        result = start_review(client, thread["id"], {"type": "uncommittedChanges"})["result"]
        done = client.wait_method("turn/completed", threadId=thread["id"])
        error = client.first("error", threadId=thread["id"])
        found = review_items(client, result["turn"]["id"])
        read = client.result("thread/read", {"threadId": thread["id"], "includeTurns": True})
        assert client.process.poll() is None

    turn = done["params"]["turn"]
    assert turn["status"] == "failed"
    assert turn["error"]["message"].startswith("The review failed:")
    assert "Looks fine to me, ship it!" in turn["error"]["message"]
    assert error["params"]["willRetry"] is False
    assert error["params"]["turnId"] == turn["id"]
    assert found["exitedReviewMode"][0]["review"].startswith("The review failed:")
    # Read back from the rollout, the turn is the same failed review.
    (stored,) = read["thread"]["turns"]
    assert stored["status"] == "failed"
    assert stored["error"]["message"] == turn["error"]["message"]
    assert [i["type"] for i in stored["items"]] == [
        "enteredReviewMode",
        "userMessage",
        "exitedReviewMode",
    ]
    assert_schema_valid(client)


def test_an_interrupted_review_says_it_did_not_finish(scripted_model, tmp_path):
    repo = changed_repo(tmp_path)
    home, _ = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue([created("resp_slow"), {"stall_s": 60}])

    with app_server(home, repo) as client:
        thread = client.start_thread()
        result = start_review(client, thread["id"], {"type": "uncommittedChanges"})["result"]
        turn_id = result["turn"]["id"]
        client.wait_method("turn/started", threadId=thread["id"])
        scripted_model.wait_for_requests(1)
        client.result("turn/interrupt", {"threadId": thread["id"], "turnId": turn_id})
        done = client.wait_method("turn/completed", threadId=thread["id"])
        found = review_items(client, turn_id)

    assert done["params"]["turn"]["status"] == "interrupted"
    assert [i["review"] for i in found["exitedReviewMode"]] == ["The review did not finish."]
    assert_schema_valid(client)


def test_targets_the_engine_refuses_are_invalid_params_and_start_no_turn(scripted_model, tmp_path):
    repo = changed_repo(tmp_path)
    home, plain = make_home(tmp_path, scripted_model.base_url)

    with app_server(home, repo) as client:
        thread = client.start_thread()
        outside = client.start_thread(cwd=str(plain))
        empty = start_review(client, thread["id"], {"type": "custom", "instructions": "   "})
        no_repo = start_review(client, outside["id"], {"type": "uncommittedChanges"})
        no_branch = start_review(client, thread["id"], {"type": "baseBranch", "branch": "nope"})
        no_commit = start_review(client, thread["id"], {"type": "commit", "sha": "deadbeef"})
        bad_shape = start_review(client, thread["id"], {"type": "pullRequest"})
        unknown = start_review(client, "no-such-thread", {"type": "uncommittedChanges"})
        # The thread is still usable afterwards.
        scripted_model.enqueue(text_response("Still here."))
        client.run_turn(thread["id"], "Are you there?")

    for answer in (empty, no_repo, no_branch, no_commit, bad_shape):
        assert answer["error"]["code"] == INVALID_PARAMS, answer
    assert empty["error"]["message"] == "Invalid params: target: Review prompt cannot be empty"
    assert "not inside a git repository" in no_repo["error"]["message"]
    assert "nope" in no_branch["error"]["message"]
    assert "deadbeef" in no_commit["error"]["message"]
    assert "error" in unknown
    started = client.notifications("turn/started")
    assert len(started) == 1  # only the turn that followed
    assert client.notifications("warning") == []


def test_detached_review_runs_on_a_fork(scripted_model, tmp_path):
    repo = changed_repo(tmp_path)
    home, _ = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("Noted.", response_id="resp_1"))
    scripted_model.enqueue(text_response(review_answer(), response_id="resp_2"))

    with app_server(home, repo) as client:
        thread = client.start_thread()
        client.run_turn(thread["id"], "Remember the word PARROT.")
        answer = start_review(
            client, thread["id"], {"type": "uncommittedChanges"}, delivery="detached"
        )
        result = answer["result"]
        fork_id = result["reviewThreadId"]
        announced = client.wait_method("thread/started")
        done = client.wait_method("turn/completed", threadId=fork_id)
        ephemeral = client.start_thread(ephemeral=True)
        refused = start_review(
            client, ephemeral["id"], {"type": "uncommittedChanges"}, delivery="detached"
        )
        listed = client.result("thread/list", {"limit": 20})["data"]

    assert fork_id != thread["id"]
    assert announced["params"]["thread"]["id"] == fork_id
    assert announced["params"]["thread"]["forkedFromId"] == thread["id"]
    started = client.first("turn/started", threadId=fork_id)
    order = [client.received.index(m) for m in (answer, announced, started, done)]
    assert order == sorted(order)
    assert done["params"]["turn"]["id"] == result["turn"]["id"]
    assert done["params"]["turn"]["status"] == "completed"
    # The original thread ran no review turn.
    assert len(client.notifications("turn/started", threadId=thread["id"])) == 1
    assert refused["error"]["code"] == INVALID_PARAMS
    assert "delivery" in refused["error"]["message"]
    assert {t["id"] for t in listed} >= {thread["id"], fork_id}


def test_a_refused_detached_review_leaves_no_fork_behind(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)  # not a git repository
    scripted_model.enqueue(text_response("Hi."))

    with app_server(home, ws) as client:
        thread = client.start_thread()
        client.run_turn(thread["id"], "Hello.")
        refused = start_review(
            client, thread["id"], {"type": "uncommittedChanges"}, delivery="detached"
        )
        listed = client.result("thread/list", {"limit": 20})["data"]

    assert refused["error"]["code"] == INVALID_PARAMS
    assert [t["id"] for t in listed] == [thread["id"]]
    assert len(client.notifications("thread/started")) == 1


def test_review_of_a_commit_and_a_branch(scripted_model, tmp_path):
    repo = repo_with_history(tmp_path / "repo")
    home, _ = make_home(tmp_path, scripted_model.base_url)
    sha = git(repo, "rev-parse", "HEAD")
    scripted_model.enqueue(text_response(review_answer(), response_id="resp_1"))
    scripted_model.enqueue(text_response(review_answer(), response_id="resp_2"))

    with app_server(home, repo) as client:
        thread = client.start_thread()
        for target in (
            {"type": "commit", "sha": sha, "title": "feature work"},
            {"type": "baseBranch", "branch": "main"},
        ):
            assert "result" in start_review(client, thread["id"], target)
            client.wait_method("turn/completed", threadId=thread["id"])

    hints = [
        m["params"]["item"]["review"]
        for m in client.notifications("item/completed")
        if m["params"]["item"]["type"] == "enteredReviewMode"
    ]
    assert hints == [f"commit {sha[:7]}: feature work", "changes against 'main'"]
    for request in scripted_model.requests:
        assert "FEATURE_FLAG = True" in user_text(request.body)
    assert_schema_valid(client)
