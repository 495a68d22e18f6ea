"""OAuth sign-in to a streamable HTTP MCP server that requires it: `codex-lsp mcp login`
against a real authorization server and MCP server on 127.0.0.1, the test following the
authorization URL as the browser would; then the engine's requests carry the token."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from codex_lsp.store.config import load_config
from codex_lsp.store.secrets import Redactor, configured_secrets
from tests.support.appserver import REPO, app_server, make_home
from tests.support.engine import make_git_repo, running_engine, write_config
from tests.support.scripted_builders import function_call_response, text_response

OAUTH_SERVER = Path(__file__).parents[1] / "support" / "oauth_mcp_server.py"


@pytest.fixture
def oauth_mcp_server() -> Iterator[str]:
    proc = subprocess.Popen([sys.executable, str(OAUTH_SERVER)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("READY "), line
        yield line.split()[1]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _cli(home: Path, *args: str, **kwargs: Any) -> subprocess.Popen[str]:
    env = dict(os.environ, CODEX_HOME=str(home), PYTHONPATH=str(REPO))
    return subprocess.Popen(
        [sys.executable, "-m", "codex_lsp", "mcp", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def _outputs(body: dict[str, Any]) -> dict[str, str]:
    return {
        item["call_id"]: item["output"]
        for item in body["input"]
        if item.get("type") == "function_call_output"
    }


async def test_login_then_the_tool_is_callable_and_logout_forgets(
    scripted_model, tmp_path, oauth_mcp_server, monkeypatch
):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(
        home,
        scripted_model.base_url,
        extra=f"[mcp_servers.web]\nurl = {json.dumps(oauth_mcp_server)}\n",
    )
    monkeypatch.setenv("CODEX_HOME", str(home))

    # Before signing in the server refuses the engine.
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
    assert any("web" in w.message for w in engine.of_type("warning"))

    login = _cli(home, "login", "web", "--no-browser")
    assert login.stdout is not None
    login.stdout.readline()
    url = login.stdout.readline().strip()
    # The browser: the authorization server redirects to the loopback listener.
    answer = httpx.get(url, follow_redirects=True, timeout=30)
    assert answer.status_code == 200 and "Signed in" in answer.text
    out, err = login.communicate(timeout=60)
    assert login.returncode == 0, err
    assert "Successfully logged in to MCP server 'web'." in out
    stored = home / "mcp-credentials.json"
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    token = json.loads(stored.read_text())["web"]["access_token"]
    assert token not in out + err, "the token is never printed"
    # The redactor knows the token, wherever it would appear (a bare token has no telltale).
    redactor = Redactor(configured_secrets(load_config(home), home))
    assert token not in redactor.text(f"the server said {token} back")

    scripted_model.enqueue(function_call_response("mcp__web__whoami", {}, call_id="c1"))
    scripted_model.enqueue(text_response("Authenticated.", response_id="resp_2"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("who am I")
    assert not engine.of_type("warning")
    tools = [tool["name"] for tool in scripted_model.requests[0].body["tools"]]
    assert "mcp__web__whoami" in tools
    assert _outputs(scripted_model.requests[1].body) == {"c1": f"Bearer {token}"}

    logout = _cli(home, "logout", "web")
    out, _ = logout.communicate(timeout=60)
    assert "Removed OAuth credentials for 'web'." in out
    assert "web" not in json.loads(stored.read_text())


def test_login_to_a_server_that_is_not_there_says_so_without_a_token(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('[mcp_servers.gone]\nurl = "http://127.0.0.1:9/mcp"\n')
    login = _cli(home, "login", "gone", "--no-browser")
    _, err = login.communicate(timeout=60)
    assert login.returncode == 1
    assert "sign-in to 'gone' failed: " in err and "no OAuth metadata" in err


def test_the_v2_request_signs_in_and_the_server_starts(scripted_model, tmp_path, oauth_mcp_server):
    table = f"[mcp_servers.web]\nurl = {json.dumps(oauth_mcp_server)}\n"
    home, ws = make_home(tmp_path, scripted_model.base_url, extra=table)
    with app_server(home, ws) as client:
        refused = client.call("mcpServer/oauth/login", {"name": "nobody"})
        assert "no MCP server named 'nobody'" in refused["error"]["message"]
        started = client.result("mcpServer/oauth/login", {"name": "web"})
        assert started["loginId"]
        answer = httpx.get(started["authorizationUrl"], follow_redirects=True, timeout=30)
        assert answer.status_code == 200
        done = client.wait_method("mcpServer/oauthLogin/completed")["params"]
        assert done == {
            "name": "web",
            "success": True,
            "loginId": started["loginId"],
            "threadId": None,
        }
        token = json.loads((home / "mcp-credentials.json").read_text())["web"]["access_token"]
        assert token not in json.dumps(client.received) + client.stderr()
        status = client.result("mcpServerStatus/list", {})
        web = next(s for s in status["data"] if s["name"] == "web")
        assert "whoami" in web["tools"]
