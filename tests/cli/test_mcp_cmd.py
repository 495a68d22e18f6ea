"""`codex-lsp mcp add|list|get|remove` side by side with the real `codex mcp` 0.171.0: the same
commands leave the same `[mcp_servers]` in config.toml and list the same servers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.exec.peer import REPO, Side, peer_binary, peer_home

COMMANDS = [
    ["add", "docs", "--env", "API_KEY=s3cret", "--", "npx", "-y", "docs-server"],
    ["add", "web", "--url", "https://example.com/mcp", "--bearer-token-env-var", "WEB_TOKEN"],
    ["add", "gone", "--", "true"],
    ["remove", "gone"],
]


def _mcp(side: Side, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [str(peer_binary())] if side == "real" else [sys.executable, "-m", "codex_lsp"]
    env = dict(os.environ, CODEX_HOME=str(home), HOME=str(home), PYTHONPATH=str(REPO))
    return subprocess.run(
        [*argv, "mcp", *args], env=env, capture_output=True, text=True, timeout=60
    )


def _after(side: Side) -> tuple[dict, list, dict, str]:
    with peer_home("http://127.0.0.1:9/v1") as home:
        config = home / "config.toml"
        config.write_text("# my settings\n" + config.read_text())
        for command in COMMANDS:
            done = _mcp(side, home, *command)
            assert done.returncode == 0, (side, command, done.stderr)
        text = config.read_text()
        listed = json.loads(_mcp(side, home, "list", "--json").stdout)
        got = json.loads(_mcp(side, home, "get", "docs", "--json").stdout)
        human = _mcp(side, home, "list").stdout
    return tomllib.loads(text)["mcp_servers"], listed, got, human + text


def test_mcp_commands_edit_and_list_servers_as_codex_does() -> None:
    real, ours = _after("real"), _after("ours")

    assert ours[0] == real[0]
    assert set(ours[0]) == {"docs", "web"}
    # What a program reads from `list --json` and `get --json`.
    for mine, theirs in zip(ours[1], real[1], strict=True):
        assert mine["name"] == theirs["name"] and mine["enabled"] == theirs["enabled"]
        assert mine["transport"] == {k: theirs["transport"][k] for k in mine["transport"]}
        assert mine["auth_status"] == theirs["auth_status"]
    assert ours[2]["transport"] == {k: real[2]["transport"][k] for k in ours[2]["transport"]}
    # The file keeps the user's comment; the list shows no secret.
    assert "# my settings" in ours[3]
    listing = ours[3].split("# my settings")[0]
    assert "s3cret" not in listing and "API_KEY=*****" in listing


def test_mcp_add_refuses_what_codex_refuses(tmp_path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    for args in (
        ["add", "bad name", "--", "x"],
        ["add", "both", "--url", "https://x", "--", "x"],
        ["add", "neither"],
        ["add", "h", "--url", "https://x", "--env", "A=1"],
    ):
        done = _mcp("ours", home, *args)
        assert done.returncode == 2, (args, done.stdout)
    assert not (home / "config.toml").exists()
