""" "Always allow commands starting with …" through `codex-lsp app-server`: the answer saves a
prefix rule in `$CODEX_HOME/rules/default.rules`, the model is told, and later commands that
start the same way run without asking, in this thread, in a new one and after a restart; a
script that does more than the rule says is asked about. Rules in the file at start are
honoured, and a line this server does not read is reported once and ignored."""

from __future__ import annotations

from pathlib import Path

from tests.support.appserver import AppServerClient, app_server, make_home
from tests.support.scripted_builders import function_call_response, text_response

APPROVAL = "item/commandExecution/requestApproval"
RULE = 'prefix_rule(pattern=["touch", "one.flag"], decision="allow")\n'


def _command_turn(model, marker: str, script: str, ws: Path) -> None:
    args = {"cmd": script, "workdir": str(ws)}
    model.enqueue(function_call_response("exec_command", args, call_id=f"c_{marker}"), when=marker)
    model.enqueue(text_response(f"done {marker}"), when=marker)


def _asked(client: AppServerClient) -> list[str]:
    return [m["params"]["itemId"] for m in client.received if m.get("method") == APPROVAL]


def _statuses(client: AppServerClient) -> dict[str, str]:
    return {
        m["params"]["item"]["id"]: m["params"]["item"]["status"]
        for m in client.received
        if m.get("method") == "item/completed" and m["params"]["item"]["type"] == "commandExecution"
    }


def test_always_allow_saves_a_rule_later_commands_threads_and_sessions_honour(
    scripted_model, tmp_path
):
    home, ws = make_home(tmp_path, scripted_model.base_url, approval_policy="untrusted")
    _command_turn(scripted_model, "first", "touch one.flag", ws)
    _command_turn(scripted_model, "second", "touch one.flag two.flag", ws)
    _command_turn(scripted_model, "other-thread", "touch one.flag three.flag", ws)
    _command_turn(scripted_model, "restarted", "touch one.flag four.flag", ws)

    with app_server(home, ws) as client:
        thread_id = client.start_thread()["id"]
        client.request(
            "turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "first"}]}
        )
        asked = client.wait_method(APPROVAL, threadId=thread_id)
        assert asked["params"]["proposedExecpolicyAmendment"] == ["touch", "one.flag"]
        rule = {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["touch", "one.flag"]}}
        client.answer(asked, {"decision": rule})
        client.wait_method("turn/completed", threadId=thread_id)
        assert (home / "rules" / "default.rules").read_text() == RULE
        # The model reads, after the command's output, what was saved.
        follow_up = scripted_model.requests[1].body["input"]
        [output_at] = [
            i
            for i, item in enumerate(follow_up)
            if item.get("type") == "function_call_output" and item["call_id"] == "c_first"
        ]
        assert follow_up[output_at + 1] == {
            "type": "message",
            "role": "developer",
            "content": [
                {
                    "type": "input_text",
                    "text": 'Approved command prefix saved:\n- ["touch", "one.flag"]',
                }
            ],
        }

        # More arguments after the prefix: no question.
        client.run_turn(thread_id, "second")
        other = client.start_thread()["id"]
        client.run_turn(other, "other-thread")
        assert _asked(client) == ["c_first"]
        assert _statuses(client)["c_second"] == "completed"
        assert _statuses(client)["c_other-thread"] == "completed"

    with app_server(home, ws) as client:
        client.run_turn(client.start_thread()["id"], "restarted")
        assert _asked(client) == []
    assert all((ws / name).exists() for name in ("two.flag", "three.flag", "four.flag"))
    assert (home / "rules" / "default.rules").read_text() == RULE


# A few of the shapes `tests/engine/test_exec_rules.py` tries in full, through the door.
ESCAPES = {
    "separator": "touch one.flag; touch evil.flag",
    "and": "touch one.flag && touch evil.flag",
    "newline": "touch one.flag\ntouch evil.flag",
    "substitution": "touch one.flag $(touch evil.flag)",
    "redirection": "touch one.flag > evil.flag",
    "env-prefix": "PATH=. touch one.flag",
    "wrapper": "bash -c 'touch one.flag; touch evil.flag'",
}


def test_a_script_that_does_more_than_the_rule_is_asked_about(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, approval_policy="untrusted")
    (home / "rules").mkdir()
    (home / "rules" / "default.rules").write_text(RULE)
    for name, script in ESCAPES.items():
        _command_turn(scripted_model, name, script, ws)

    with app_server(home, ws) as client:
        thread_id = client.start_thread()["id"]
        for name in ESCAPES:
            client.request(
                "turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": name}]}
            )
            asked = client.wait_method(APPROVAL, threadId=thread_id)
            assert asked["params"]["itemId"] == f"c_{name}"
            client.answer(asked, {"decision": "decline"})
            client.wait_method("turn/completed", threadId=thread_id)
    assert not (ws / "evil.flag").exists()


def test_rules_in_the_file_at_start_are_honoured_and_other_lines_reported_once(
    scripted_model, tmp_path
):
    home, ws = make_home(tmp_path, scripted_model.base_url, approval_policy="on-request")
    (home / "rules").mkdir()
    (home / "rules" / "default.rules").write_text(
        "# my rules\n"
        'prefix_rule(pattern=["touch", ["ask.flag", "asked.flag"]], decision="prompt")\n'
        'prefix_rule(pattern=["rm"], decision="forbidden")\n'
        'host_executable(name="rm", paths=["/bin/rm"])\n'
    )
    (ws / "keep.txt").write_text("keep\n")
    _command_turn(scripted_model, "prompted", "touch asked.flag", ws)
    _command_turn(scripted_model, "forbidden", "rm keep.txt", ws)
    _command_turn(scripted_model, "plain", "touch plain.flag", ws)

    with app_server(home, ws) as client:
        thread_id = client.start_thread()["id"]
        client.request(
            "turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "prompted"}]}
        )
        asked = client.wait_method(APPROVAL, threadId=thread_id)
        client.answer(asked, {"decision": "accept"})
        client.wait_method("turn/completed", threadId=thread_id)
        client.run_turn(thread_id, "forbidden")
        client.run_turn(client.start_thread()["id"], "plain")
        assert _asked(client) == ["c_prompted"]
        statuses = _statuses(client)
        assert (statuses["c_prompted"], statuses["c_plain"]) == ("completed", "completed")
        stderr = client.stderr()
    refused = next(
        item["output"]
        for request in scripted_model.requests
        for item in request.body["input"]
        if item.get("type") == "function_call_output" and item["call_id"] == "c_forbidden"
    )
    assert "a prefix_rule in the rules file forbids commands starting with `rm`" in str(refused)
    assert (ws / "keep.txt").exists()
    assert stderr.count("line 4 is not a prefix_rule this server reads; ignored") == 1
