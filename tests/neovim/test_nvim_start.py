"""`scripts/start`, the README's first command: Neovim opens on the current folder with the
plugin loaded, the chat open and the server connected there; with no key it says what is
missing (and offers sign-in on a terminal) before opening the editor."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.support.engine import make_git_repo, write_config

REPO = Path(__file__).resolve().parents[2]
START = REPO / "scripts" / "start"

# Waits for the plugin's client, then writes what it is connected to and quits.
_PROBE = """lua
local ok = vim.wait(30000, function() return #vim.lsp.get_clients({ name = "codex" }) > 0 end, 50)
local client = vim.lsp.get_clients({ name = "codex" })[1]
local seen = { ok = ok, root = client and client.config.root_dir or vim.NIL,
  cmd = client and client.config.cmd or vim.NIL, chat = vim.api.nvim_buf_get_name(0) }
vim.fn.writefile({ vim.json.encode(seen) }, vim.env.CODEX_START_PROBE)
vim.cmd("qa!")
"""


def _env(home: Path, probe: Path) -> dict[str, str]:
    env = {**os.environ, "CODEX_HOME": str(home), "CODEX_START_PROBE": str(probe)}
    env.pop("OPENAI_API_KEY", None)
    # Not on PATH: the plugin must find the server without it.
    env["PATH"] = os.pathsep.join(
        part for part in env["PATH"].split(os.pathsep) if not (Path(part) / "codex-lsp").exists()
    )
    return env


def test_start_opens_neovim_connected_on_the_current_folder(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "project")
    write_config(home, scripted_model.base_url)
    probe = tmp_path / "probe.json"
    done = subprocess.run(
        [str(START), "--headless", "-c", _PROBE.replace("\n", " ").strip()],
        cwd=ws,
        env=_env(home, probe),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(probe.read_text())
    assert seen["ok"] is True, (seen, done.stderr)
    assert seen["root"] == str(ws.resolve())
    # The checkout's server (warm: through its launcher), found without PATH.
    assert seen["cmd"][0].startswith(str(REPO / ".venv" / "bin")), seen["cmd"]
    assert "codex" in seen["chat"].lower(), seen  # the chat is the window in front


def test_start_says_what_is_missing_without_a_key(tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "project")
    home.mkdir()
    done = subprocess.run(
        [str(START)],
        cwd=ws,
        env={**_env(home, tmp_path / "unused"), "CODEX_LSP_START_NO_EDITOR": "1"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "key: ERROR OPENAI_API_KEY is not set; set it or run `codex-lsp login`" in done.stderr
