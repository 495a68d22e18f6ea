"""`thread/sessionApprovals/list` and `/revoke` (ours) through `codex-lsp app-server`: what was
allowed for the session is listed as the user saw it, and once taken back the agent asks again."""

from __future__ import annotations

from tests.support.appserver import app_server, make_home
from tests.support.engine import make_git_repo
from tests.support.scripted_builders import function_call_response, text_response

APPROVAL = "item/commandExecution/requestApproval"


def _asked(client) -> list[dict]:
    return [m for m in list(client.received) if m.get("method") == APPROVAL]


def _touch_turn(scripted_model, marker: str, ws) -> None:
    touch = {"cmd": "touch allowed.flag", "workdir": str(ws)}
    scripted_model.enqueue(
        function_call_response("exec_command", touch, call_id=f"c_{marker}"), when=marker
    )
    scripted_model.enqueue(text_response(f"done {marker}"), when=marker)


def test_an_approval_for_the_session_is_listed_and_once_revoked_is_asked_again(
    scripted_model, tmp_path
):
    home, _ = make_home(tmp_path, scripted_model.base_url, approval_policy="untrusted")
    ws = make_git_repo(tmp_path / "repo")
    for marker in ("first-turn", "second-turn", "third-turn"):
        _touch_turn(scripted_model, marker, ws)

    with app_server(home, ws) as client:
        thread_id = client.start_thread()["id"]
        assert client.result("thread/sessionApprovals/list", {"threadId": thread_id}) == {
            "approvals": []
        }
        client.request(
            "turn/start",
            {"threadId": thread_id, "input": [{"type": "text", "text": "first-turn"}]},
        )
        asked = client.wait_method(APPROVAL, threadId=thread_id)
        client.answer(asked, {"decision": "acceptForSession"})
        client.wait_method("turn/completed", threadId=thread_id)

        listed = client.result("thread/sessionApprovals/list", {"threadId": thread_id})
        [approval] = listed["approvals"]
        assert approval["kind"] == "command"
        assert approval["description"].startswith("touch allowed.flag")

        # Allowed: the same command runs without asking.
        _, done = client.run_turn(thread_id, "second-turn")
        assert done["params"]["turn"]["status"] == "completed"
        assert len(_asked(client)) == 1

        revoked = client.result(
            "thread/sessionApprovals/revoke", {"threadId": thread_id, "id": approval["id"]}
        )
        assert revoked == {"revoked": approval}
        assert client.result("thread/sessionApprovals/list", {"threadId": thread_id}) == {
            "approvals": []
        }
        again = client.result(
            "thread/sessionApprovals/revoke", {"threadId": thread_id, "id": approval["id"]}
        )
        assert again == {"revoked": None}

        # Taken back: the next run asks again.
        client.request(
            "turn/start",
            {"threadId": thread_id, "input": [{"type": "text", "text": "third-turn"}]},
        )
        client.wait(
            lambda m: m.get("method") == APPROVAL and m["params"]["itemId"] == "c_third-turn"
        )
        [_, second_ask] = _asked(client)
        client.answer(second_ask, {"decision": "decline"})
        client.wait_method("turn/completed", threadId=thread_id)


def test_an_unknown_thread_is_refused(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    with app_server(home, ws) as client:
        reply = client.call("thread/sessionApprovals/list", {"threadId": "no-such-thread"})
    assert "thread not found" in reply["error"]["message"]


def test_an_always_allowed_prefix_is_listed_and_revoking_it_removes_the_saved_rule(
    scripted_model, tmp_path
):
    home, _ = make_home(tmp_path, scripted_model.base_url, approval_policy="untrusted")
    ws = make_git_repo(tmp_path / "repo")
    rules = home / "rules" / "default.rules"
    for marker in ("first-turn", "second-turn", "third-turn"):
        _touch_turn(scripted_model, marker, ws)

    with app_server(home, ws) as client:
        thread_id = client.start_thread()["id"]
        client.request(
            "turn/start",
            {"threadId": thread_id, "input": [{"type": "text", "text": "first-turn"}]},
        )
        asked = client.wait_method(APPROVAL, threadId=thread_id)
        # "Always allow commands starting with …", sent back as the server proposed it.
        offered = asked["params"]["availableDecisions"]
        amendment = next(d for d in offered if isinstance(d, dict))
        client.answer(asked, {"decision": amendment})
        client.wait_method("turn/completed", threadId=thread_id)

        [approval] = client.result("thread/sessionApprovals/list", {"threadId": thread_id})[
            "approvals"
        ]
        assert approval["kind"] == "command"
        assert approval["description"] == "commands starting with touch allowed.flag"
        assert rules.read_text() == (
            'prefix_rule(pattern=["touch", "allowed.flag"], decision="allow")\n'
        )
        # Another thread lists the saved rule too: it holds there as well.
        other = client.start_thread()["id"]
        listed = client.result("thread/sessionApprovals/list", {"threadId": other})
        assert listed == {"approvals": [approval]}

        client.run_turn(thread_id, "second-turn")
        assert len(_asked(client)) == 1

        revoked = client.result(
            "thread/sessionApprovals/revoke", {"threadId": thread_id, "id": approval["id"]}
        )
        assert revoked == {"revoked": approval}
        # Gone from the file Codex reads too, so no later session allows it either.
        assert rules.read_text() == ""
        for thread in (thread_id, other):
            listed = client.result("thread/sessionApprovals/list", {"threadId": thread})
            assert listed == {"approvals": []}

        client.request(
            "turn/start",
            {"threadId": thread_id, "input": [{"type": "text", "text": "third-turn"}]},
        )
        client.wait(
            lambda m: m.get("method") == APPROVAL and m["params"]["itemId"] == "c_third-turn"
        )
        [_, second_ask] = _asked(client)
        client.answer(second_ask, {"decision": "decline"})
        client.wait_method("turn/completed", threadId=thread_id)
