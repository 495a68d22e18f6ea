"""Several threads in one `codex-lsp app-server`: turns run side by side, and an approval the
client leaves unanswered holds up only the turn that asked for it."""

from __future__ import annotations

from tests.support.appserver import app_server, make_home, text_input
from tests.support.scripted_builders import function_call_response, text_response


def test_two_threads_run_turns_at_once_and_an_unanswered_approval_blocks_only_its_own(
    scripted_model, tmp_path
):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(
        function_call_response(
            "exec_command",
            {"cmd": "printf alpha-ran > alpha.txt; cat alpha.txt", "workdir": str(ws)},
            call_id="call_alpha",
        ),
        when="alpha task",
    )
    scripted_model.enqueue(text_response("beta done", response_id="resp_beta"), when="beta task")
    scripted_model.enqueue(text_response("alpha done", response_id="resp_alpha2"), when="alpha-ran")
    with app_server(home, ws) as client:
        alpha = client.start_thread(approvalPolicy="untrusted")
        beta = client.start_thread()
        assert alpha["id"] != beta["id"]
        client.result("turn/start", {"threadId": alpha["id"], "input": [text_input("alpha task")]})
        request = client.wait_method("item/commandExecution/requestApproval", threadId=alpha["id"])
        alpha_waiting = client.notifications("thread/status/changed", threadId=alpha["id"])[-1]
        assert alpha_waiting["params"]["status"] == {
            "type": "active",
            "activeFlags": ["waitingOnApproval"],
        }

        # While alpha waits on the client, beta runs a whole turn.
        _, beta_done = client.run_turn(beta["id"], "beta task")
        assert beta_done["params"]["turn"]["status"] == "completed"
        assert not client.notifications("turn/completed", threadId=alpha["id"])
        assert not (ws / "alpha.txt").exists()
        listed = {t["id"]: t["status"] for t in client.result("thread/list", {})["data"]}
        assert listed[alpha["id"]]["type"] == "active"

        client.answer(request, {"decision": "accept"})
        alpha_done = client.wait_method("turn/completed", threadId=alpha["id"])
        assert alpha_done["params"]["turn"]["status"] == "completed"
        assert alpha_done["params"]["turn"]["items"][0]["text"] == "alpha done"
    assert (ws / "alpha.txt").read_text() == "alpha-ran"
    # Each thread's notifications carry its own id only.
    for thread, text in ((alpha, "alpha done"), (beta, "beta done")):
        deltas = client.notifications("item/agentMessage/delta", threadId=thread["id"])
        assert "".join(note["params"]["delta"] for note in deltas) == text


def test_turns_stream_concurrently_on_two_threads(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    # The first answer stalls mid-stream until the second thread's turn has finished.
    slow = text_response("slow answer", response_id="resp_slow")
    slow.insert(3, {"stall_s": 60})
    scripted_model.enqueue(slow, when="first thread")
    scripted_model.enqueue(
        text_response("fast answer", response_id="resp_fast"), when="second thread"
    )
    with app_server(home, ws) as client:
        first, second = client.start_thread(), client.start_thread()
        slow_turn = client.result(
            "turn/start", {"threadId": first["id"], "input": [text_input("first thread")]}
        )
        client.wait_method("item/agentMessage/delta", threadId=first["id"])
        _, fast = client.run_turn(second["id"], "second thread")
        assert fast["params"]["turn"]["items"][0]["text"] == "fast answer"
        assert not client.notifications("turn/completed", threadId=first["id"])
        client.result(
            "turn/interrupt", {"threadId": first["id"], "turnId": slow_turn["turn"]["id"]}
        )
        stopped = client.wait_method("turn/completed", threadId=first["id"])
        assert stopped["params"]["turn"]["status"] == "interrupted"
