"""A cold `codex-lsp app-server` answers `initialize` before it loads the API and the engine.

The early answer must be the one the API would give, must carry the client's options to the
server all the same, and must lose nothing the client sent with or after it; a first line it
cannot answer exactly as the API would is left to the API.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codex_lsp.api.initialize.handshake import initialize_response
from codex_lsp.api.port import INVALID_PARAMS
from codex_lsp.appserver.early_initialize import initialize_answer
from codex_lsp.protocol.common import dump
from codex_lsp.protocol.initialize.models import InitializeParams
from tests.support.appserver import AppServerClient, make_home

ANSWERED_WITH_NOTHING_LOADED = "initialize answered; heavy modules loaded by then: none"


def _line(params: Any, request_id: int | str = 1) -> bytes:
    return json.dumps({"id": request_id, "method": "initialize", "params": params}).encode() + b"\n"


@pytest.mark.parametrize(
    "params",
    [
        {"clientInfo": {"name": "vscode", "version": "1.99.0"}},
        {
            "clientInfo": {"name": "nvim", "title": "Neovim", "version": "0.11"},
            "capabilities": None,
        },
        {"clientInfo": {"name": "ünï", "version": "2", "title": None}, "extra": [1, 2]},
        {
            "clientInfo": {"name": "zed", "version": "0.1", "icon": "ignored"},
            "capabilities": {
                "experimentalApi": True,
                "requestAttestation": False,
                "optOutNotificationMethods": ["thread/started", "item/agentMessage/delta"],
                "extensions": None,
            },
        },
    ],
)
def test_the_early_answer_is_the_apis_answer(params: Any, tmp_path: Path) -> None:
    early = initialize_answer(_line(params, "a-1"), tmp_path)
    assert early is not None
    request_id, result = early
    api = dump(initialize_response(InitializeParams.model_validate(params), tmp_path))
    assert (request_id, result) == ("a-1", api)


@pytest.mark.parametrize(
    "line",
    [
        _line({"clientInfo": {"name": 1, "version": "1"}}),  # the API refuses it
        _line({"clientInfo": {"name": "x"}}),
        _line({"capabilities": {}}),
        _line({"client_info": {"name": "x", "version": "1"}}),  # the API reads snake_case too
        _line(
            {"clientInfo": {"name": "x", "version": "1"}, "capabilities": {"experimentalApi": 1}}
        ),
        _line(
            {
                "clientInfo": {"name": "x", "version": "1"},
                "capabilities": {"opt_out_notification_methods": ["thread/started"]},
            }
        ),
        _line(
            {
                "clientInfo": {"name": "x", "version": "1"},
                "capabilities": {"optOutNotificationMethods": "thread/started"},
            }
        ),
        _line({"clientInfo": {"name": "x", "version": "1"}, "capabilities": {"extensions": {}}}),
        _line({"clientInfo": {"name": "x", "version": "1"}}, request_id=True),  # type: ignore[arg-type]
        b'{"id": 1, "method": "thread/list", "params": {}}\n',
        b'{"id": 1, "method": "initialize", "params": []}\n',
        b"{not json\n",
        b"\n",
    ],
)
def test_a_first_line_the_api_might_read_otherwise_is_left_to_it(
    line: bytes, tmp_path: Path
) -> None:
    assert initialize_answer(line, tmp_path) is None


def test_initialize_is_answered_before_the_api_loads_and_the_session_then_works(
    scripted_model, tmp_path: Path
) -> None:
    home, ws = make_home(tmp_path, scripted_model.base_url)
    client = AppServerClient(home, ws, env={"CODEX_LSP_LOG": "debug"})
    try:
        result = client.initialize(optOutNotificationMethods=["thread/started"])
        assert result["codexHome"] == str(home.resolve())
        assert "(pytest; 1.0)" in result["userAgent"]
        thread = client.start_thread()
        assert thread["id"]
        # A request answered after thread/start: its thread/started would have come first.
        assert client.result("thread/list", {})["data"] is not None
        assert client.notifications("thread/started") == [], "the client opted out of it"
        assert ANSWERED_WITH_NOTHING_LOADED in client.stderr()
        # One answer to initialize, not two.
        assert [m for m in client.received if m.get("id") == 1] == [client.response(1)]
    finally:
        assert client.close() == 0


def test_lines_sent_with_initialize_are_served_in_order(scripted_model, tmp_path: Path) -> None:
    home, ws = make_home(tmp_path, scripted_model.base_url)
    client = AppServerClient(home, ws, env={"CODEX_LSP_LOG": "debug"})
    try:
        first = _line({"clientInfo": {"name": "batch", "version": "1"}}, request_id=1)
        # In one write: the server must not lose what came after the line it answered early.
        client.send_raw(
            (
                first + b'{"method":"initialized"}\n{"id":2,"method":"model/list","params":{}}'
            ).decode()
        )
        assert "(batch; 1)" in client.response(1)["result"]["userAgent"]
        assert client.response(2)["result"]["data"]
        ids = [m["id"] for m in client.received if "id" in m and "method" not in m]
        assert ids == [1, 2]
        assert ANSWERED_WITH_NOTHING_LOADED in client.stderr()
    finally:
        assert client.close() == 0


def test_an_initialize_the_api_refuses_is_refused_by_it_and_a_good_one_then_served(
    scripted_model, tmp_path: Path
) -> None:
    home, ws = make_home(tmp_path, scripted_model.base_url)
    client = AppServerClient(home, ws)
    try:
        refused = client.call("initialize", {"clientInfo": {"name": 7, "version": "1"}})
        assert refused["error"]["code"] == INVALID_PARAMS
        assert "clientInfo" in refused["error"]["message"]
        assert "(pytest; 1.0)" in client.initialize()["userAgent"]
        assert client.start_thread()["id"]
    finally:
        assert client.close() == 0
