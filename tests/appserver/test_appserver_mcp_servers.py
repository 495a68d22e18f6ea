"""MCP servers through `codex-lsp app-server`, against a real MCP server process that has tools
and resources: the status list, direct tool calls and resource reads, startup status as a
thread connects its servers, the resource tools the model is offered, and
`config/mcpServer/reload` restarting the servers of a loaded thread."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

from codex_lsp.api.port import INTERNAL_ERROR, INVALID_PARAMS
from tests.support.appserver import app_server, items_of, make_home
from tests.support.scripted_builders import function_call_response, text_response

MCP_SERVER = Path(__file__).parents[1] / "support" / "mcp_server.py"
TESTS_TABLE = (
    f"[mcp_servers.tests]\ncommand = {json.dumps(sys.executable)}\n"
    f"args = [{json.dumps(str(MCP_SERVER))}]\n"
)
GHOST_TABLE = '[mcp_servers.ghost]\ncommand = "/nonexistent/mcp-server"\n'
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _by_name(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["name"]: entry for entry in result["data"]}


def _function_output(body: dict[str, Any], call_id: str) -> str:
    return next(
        item["output"]
        for item in body["input"]
        if item.get("type") == "function_call_output" and item.get("call_id") == call_id
    )


def _wait_ready(client: Any, names: set[str]) -> None:
    """Wait until each of `names` has (again) reported `ready`, in whatever order."""
    pending = set(names)
    while pending:
        ready = client.wait_method("mcpServer/startupStatus/updated", status="ready")
        pending.discard(ready["params"]["name"])


def _tool_names(body: dict[str, Any]) -> set[str]:
    return {tool.get("name") for tool in body.get("tools", [])}


def test_status_list_without_a_thread_connects_the_servers_just_to_ask(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, extra=TESTS_TABLE + GHOST_TABLE)
    with app_server(home, ws) as client:
        listed = client.result("mcpServerStatus/list", {})
        first = client.result("mcpServerStatus/list", {"limit": 1})
        second = client.result("mcpServerStatus/list", {"cursor": first["nextCursor"]})
        bad = client.call("mcpServerStatus/list", {"cursor": "nine"})

    servers = _by_name(listed)
    assert list(servers) == ["ghost", "tests"]
    assert servers["tests"]["runtimeStatus"] is None
    tests = servers["tests"]
    assert tests["authStatus"] == "unsupported"
    assert tests["serverInfo"]["name"] == "tests"
    assert tests["tools"]["add"]["description"] == "Add two integers."
    assert tests["tools"]["add"]["inputSchema"]["required"] == ["a", "b"]
    assert {r["uri"] for r in tests["resources"]} == {"memo://greeting", "memo://pixel"}
    assert [t["uriTemplate"] for t in tests["resourceTemplates"]] == ["memo://notes/{name}"]
    ghost = servers["ghost"]
    assert ghost["tools"] == {} and "/nonexistent/mcp-server" in ghost["toolsError"]
    assert [e["name"] for e in first["data"]] == ["ghost"] and first["nextCursor"] == "1"
    assert [e["name"] for e in second["data"]] == ["tests"] and second["nextCursor"] is None
    assert bad["error"]["code"] == INVALID_PARAMS and "nine" in bad["error"]["message"]


def test_a_thread_reports_its_servers_startup_and_their_runtime_status(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, extra=TESTS_TABLE + GHOST_TABLE)
    with app_server(home, ws) as client:
        thread = client.start_thread()
        client.wait_method("mcpServer/startupStatus/updated", name="tests", status="ready")
        client.wait_method("warning")
        statuses = client.notifications("mcpServer/startupStatus/updated", threadId=thread["id"])
        started = client.first("thread/started")
        listed = client.result(
            "mcpServerStatus/list", {"threadId": thread["id"], "detail": "toolsAndAuthOnly"}
        )

    # Every status update follows `thread/started`: the client knows the thread by then.
    assert client.received.index(started) < client.received.index(statuses[0])
    seen = [(m["params"]["name"], m["params"]["status"]) for m in statuses]
    assert sorted(seen) == [
        ("ghost", "failed"),
        ("ghost", "starting"),
        ("tests", "ready"),
        ("tests", "starting"),
    ]
    assert [status for _name, status in seen[:2]] == ["starting", "starting"]
    failed = next(m["params"] for m in statuses if m["params"]["status"] == "failed")
    assert failed["error"] == (
        "MCP server `ghost` failed to start: command `/nonexistent/mcp-server` not found"
    )
    servers = _by_name(listed)
    assert servers["tests"]["runtimeStatus"] == "connected"
    assert servers["ghost"]["runtimeStatus"] == "failed"
    # `toolsAndAuthOnly` leaves the resources unlisted.
    assert servers["tests"]["resources"] == [] and "add" in servers["tests"]["tools"]


def test_tool_calls_and_resource_reads_go_to_the_threads_server(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, extra=TESTS_TABLE)
    with app_server(home, ws) as client:
        thread_id = client.start_thread()["id"]

        def call(tool: str, arguments: dict[str, Any], server: str = "tests") -> dict[str, Any]:
            params = {"threadId": thread_id, "server": server, "tool": tool}
            return client.call("mcpServer/tool/call", {**params, "arguments": arguments})

        def read(uri: str, **extra: Any) -> dict[str, Any]:
            return client.call("mcpServer/resource/read", {"server": "tests", "uri": uri, **extra})

        added = call("add", {"a": 2, "b": 3})["result"]
        failed = call("fail", {"message": "boom"})["result"]
        unknown_server = call("add", {}, server="nope")["error"]
        text = read("memo://greeting", threadId=thread_id)["result"]
        blob = read("memo://pixel", threadId=thread_id)["result"]
        templated = read("memo://notes/ada", threadId=thread_id)["result"]
        missing = read("memo://nope", threadId=thread_id)["error"]
        without_thread = read("memo://notes/bob")["result"]
        missing_without_thread = read("memo://nope")["error"]
        not_loaded = read("memo://greeting", threadId="no-such-thread")["error"]
        # The thread's model saw none of this: no items, no turn.
        assert client.notifications("item/started") == []

    assert added["content"] == [{"type": "text", "text": "5"}]
    assert added["structuredContent"] == {"result": 5} and added["isError"] is False
    assert failed["isError"] is True and "boom" in failed["content"][0]["text"]
    assert unknown_server == {"code": INTERNAL_ERROR, "message": "unknown MCP server 'nope'"}
    assert text["contents"] == [
        {"uri": "memo://greeting", "mimeType": "text/plain", "text": "hello from the memo server"}
    ]
    (pixel,) = blob["contents"]
    assert pixel["mimeType"] == "image/png"
    assert base64.b64decode(pixel["blob"]).startswith(PNG_MAGIC)
    assert templated["contents"][0]["text"] == "a note about ada"
    assert missing["code"] == INVALID_PARAMS and missing["data"] == {"uri": "memo://nope"}
    assert "memo://nope" in missing["message"]
    assert without_thread["contents"][0]["text"] == "a note about bob"
    assert missing_without_thread["data"] == {"uri": "memo://nope"}
    assert "no-such-thread" in not_loaded["message"]


def test_the_model_lists_and_reads_resources_as_codex_offers_them(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, extra=TESTS_TABLE)
    calls = [
        ("r1", "list_mcp_resources", {}),
        ("r2", "list_mcp_resource_templates", {"server": "tests"}),
        ("r3", "read_mcp_resource", {"server": "tests", "uri": "memo://greeting"}),
        ("r4", "read_mcp_resource", {"server": "tests", "uri": "memo://nope"}),
        ("r5", "list_mcp_resources", {"cursor": "abc"}),
        ("r6", "read_mcp_resource", {"server": "elsewhere", "uri": "memo://greeting"}),
    ]
    for call_id, name, arguments in calls:
        scripted_model.enqueue(function_call_response(name, arguments, call_id=call_id))
    scripted_model.enqueue(text_response("Read them.", response_id="resp_done"))

    with app_server(home, ws) as client:
        thread = client.start_thread()
        _, done = client.run_turn(thread["id"], "what resources are there?")
        stream = client.since(client.first("turn/started", threadId=thread["id"]))

    assert done["params"]["turn"]["status"] == "completed"
    first = scripted_model.requests[0].body
    assert {"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"} <= (
        _tool_names(first)
    )
    read_spec = next(t for t in first["tools"] if t["name"] == "read_mcp_resource")
    assert read_spec["parameters"]["required"] == ["server", "uri"]

    finished = {i["id"]: i for i in items_of(stream, "item/completed", "mcpToolCall")}
    assert finished["r1"]["server"] == "codex" and finished["r1"]["tool"] == "list_mcp_resources"
    assert finished["r2"]["server"] == "tests"
    assert [finished[c]["status"] for c in ("r1", "r2", "r3")] == ["completed"] * 3
    assert [finished[c]["status"] for c in ("r4", "r5", "r6")] == ["failed"] * 3

    last = scripted_model.requests[-1].body
    listing = json.loads(_function_output(last, "r1"))
    assert [(r["server"], r["uri"]) for r in listing["resources"]] == [
        ("tests", "memo://greeting"),
        ("tests", "memo://pixel"),
    ]
    templates = json.loads(_function_output(last, "r2"))
    assert templates["server"] == "tests"
    assert templates["resourceTemplates"][0]["uriTemplate"] == "memo://notes/{name}"
    greeting = json.loads(_function_output(last, "r3"))
    assert greeting["server"] == "tests" and greeting["uri"] == "memo://greeting"
    assert greeting["contents"][0]["text"] == "hello from the memo server"
    assert "Unknown resource: memo://nope" in _function_output(last, "r4")
    assert finished["r4"]["error"]["message"] == _function_output(last, "r4")
    assert _function_output(last, "r5") == "cursor can only be used when a server is specified"
    assert _function_output(last, "r6") == "unknown MCP server 'elsewhere'"


def test_resource_tools_are_offered_only_when_mcp_servers_are_configured(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("Hi."))
    with app_server(home, ws) as client:
        client.run_turn(client.start_thread()["id"], "hello")
    assert "list_mcp_resources" not in _tool_names(scripted_model.requests[0].body)


def test_mcp_reload_restarts_the_servers_of_a_loaded_thread(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, extra=TESTS_TABLE)
    config = home / "config.toml"
    with app_server(home, ws) as client:
        thread_id = client.start_thread()["id"]
        client.wait_method("mcpServer/startupStatus/updated", name="tests", status="ready")

        def call(server: str, tool: str) -> dict[str, Any]:
            params = {"threadId": thread_id, "server": server, "tool": tool, "arguments": {}}
            return client.call("mcpServer/tool/call", params)

        before = call("tests", "pid")["result"]["structuredContent"]["result"]
        # A second server appears in the config; the loaded thread does not know it yet.
        config.write_text(config.read_text() + TESTS_TABLE.replace("tests]", "second]"))
        assert call("second", "pid")["error"]["message"] == "unknown MCP server 'second'"

        assert client.result("config/mcpServer/reload") == {}
        _wait_ready(client, {"tests", "second"})
        after = call("tests", "pid")["result"]["structuredContent"]["result"]
        second = call("second", "pid")["result"]["structuredContent"]["result"]

    assert after != before  # a new process: the server was restarted
    assert second not in (before, after)
