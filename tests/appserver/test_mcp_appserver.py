"""MCP tools through `codex-lsp app-server`, as a client sees them: `mcpToolCall` items and a
warning for a server that did not start."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.support.appserver import app_server, items_of, make_home
from tests.support.scripted_builders import function_call_response, text_response

MCP_SERVER = Path(__file__).parents[1] / "support" / "mcp_server.py"
TABLES = (
    f"[mcp_servers.tests]\ncommand = {json.dumps(sys.executable)}\n"
    f"args = [{json.dumps(str(MCP_SERVER))}]\n"
    '[mcp_servers.ghost]\ncommand = "/nonexistent/mcp-server"\n'
)


def test_mcp_tool_calls_are_items(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, extra=TABLES)
    scripted_model.enqueue(
        function_call_response("mcp__tests__add", {"a": 5, "b": 6}, call_id="c1")
    )
    scripted_model.enqueue(
        function_call_response("mcp__tests__fail", {"message": "no"}, call_id="c2")
    )
    scripted_model.enqueue(text_response("Eleven.", response_id="resp_3"))

    with app_server(home, ws) as client:
        thread = client.start_thread()
        _, done = client.run_turn(thread["id"], "add 5 and 6")
        stream = client.since(client.first("turn/started", threadId=thread["id"]))

    assert done["params"]["turn"]["status"] == "completed"
    started = items_of(stream, "item/started", "mcpToolCall")
    assert [(i["id"], i["server"], i["tool"], i["status"]) for i in started] == [
        ("c1", "tests", "add", "inProgress"),
        ("c2", "tests", "fail", "inProgress"),
    ]
    assert started[0]["arguments"] == {"a": 5, "b": 6}
    added, failed = items_of(stream, "item/completed", "mcpToolCall")
    assert added["status"] == "completed"
    assert added["result"]["content"] == [{"type": "text", "text": "11"}]
    assert added["result"]["structuredContent"] == {"result": 11}
    assert failed["status"] == "failed"
    assert "no" in failed["error"]["message"]


def test_a_server_that_did_not_start_is_a_warning_notification(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, extra=TABLES)

    with app_server(home, ws) as client:
        thread = client.start_thread()
        assert thread["status"] == {"type": "idle"}
        client.wait_method("warning", timeout=5.0)
        warnings = [m["params"]["message"] for m in client.notifications("warning")]

    assert warnings == [
        "MCP server `ghost` failed to start: command `/nonexistent/mcp-server` not found"
    ]
