"""`codex-lsp app-server`: the handshake, and bad input that must not take it down."""

from __future__ import annotations

import json

from codex_lsp.api.port import INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR
from tests.support.appserver import app_server, make_home


def test_requests_before_initialize_are_refused_and_a_second_initialize_too(
    scripted_model, tmp_path
):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    with app_server(home, ws, initialize=False) as client:
        early = client.call("thread/list", {})
        assert early["error"]["code"] == INVALID_REQUEST
        assert early["error"]["message"] == "Not initialized"

        result = client.result("initialize", {"clientInfo": {"name": "pytest", "version": "1"}})
        assert set(result) == {"userAgent", "codexHome", "platformFamily", "platformOs"}
        assert result["codexHome"] == str(home.resolve())
        assert result["platformFamily"] == "unix" and result["platformOs"] == "linux"
        assert "(pytest; 1)" in result["userAgent"]

        again = client.call("initialize", {"clientInfo": {"name": "pytest", "version": "1"}})
        assert again["error"] == {"code": INVALID_REQUEST, "message": "Already initialized"}
        # Still serving after both refusals.
        assert client.result("thread/list", {})["data"] == []
        assert client.close() == 0

    # Nothing on stdout but protocol messages, none with a `jsonrpc` member.
    assert all("jsonrpc" not in message for message in client.received)


def test_bad_input_gets_json_rpc_errors_and_the_server_stays_up(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    with app_server(home, ws) as client:
        client.send_raw("{this is not json")
        parse = client.wait(lambda m: "error" in m and m["error"]["code"] == PARSE_ERROR)
        assert parse["id"] is None

        client.send_raw(json.dumps([1, 2, 3]))
        invalid = client.wait(lambda m: "error" in m and m["error"]["code"] == INVALID_REQUEST)
        assert invalid["id"] is None

        unknown = client.call("thread/teleport", {})
        assert unknown["error"]["code"] == METHOD_NOT_FOUND
        assert "thread/teleport" in unknown["error"]["message"]
        later = client.call("thread/rollback", {})
        assert later["error"]["code"] == METHOD_NOT_FOUND
        assert "not served" in later["error"]["message"]

        bad_cwd = client.call("thread/start", {"cwd": 42})
        assert bad_cwd["error"]["code"] == INVALID_PARAMS
        assert "cwd" in bad_cwd["error"]["message"]
        no_input = client.call("turn/start", {"threadId": "t-1"})
        assert no_input["error"]["code"] == INVALID_PARAMS
        assert "input" in no_input["error"]["message"]
        bad_login = client.call("account/login/start", {"type": "apiKey"})
        assert bad_login["error"]["code"] == INVALID_PARAMS
        assert "apiKey" in bad_login["error"]["message"]

        # A client that sends the `jsonrpc` member is served all the same.
        client.send({"jsonrpc": "2.0", "id": "with-member", "method": "model/list", "params": {}})
        assert client.response("with-member")["result"]["data"]
        assert client.process.poll() is None
    assert client.process.returncode == 0


def test_opted_out_notifications_are_not_sent(scripted_model, tmp_path):
    from tests.support.scripted_builders import text_response

    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("quiet please"))
    with app_server(home, ws, initialize=False) as client:
        client.initialize(optOutNotificationMethods=["item/agentMessage/delta"])
        thread = client.start_thread()
        client.run_turn(thread["id"], "hello")
        assert not client.notifications("item/agentMessage/delta")
        assert client.notifications("item/completed")
