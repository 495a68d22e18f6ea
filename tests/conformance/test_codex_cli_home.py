"""A Codex CLI user's `~/.codex`, as codex 0.171 writes it, serves codex-lsp too.

The home is made by the real binary: `codex exec` runs a turn against the scripted model with
`HOME` pointing at a fresh user folder. Then codex-lsp's app-server starts with that `HOME` and
no `CODEX_HOME` (and no `~/.codex-lsp` in use): it reads `~/.codex/config.toml`, lists the
thread the terminal wrote, shows its turn and resumes it, the model getting the terminal's
history.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conformance.servers import (
    CLIENT_INFO,
    REPO,
    config_toml,
    peer_binary,
    scratch_root,
)
from tests.conformance.wire import WireClient
from tests.support.scripted_builders import text_response
from tests.support.scripted_model import ScriptedModelServer


def _user_env(user: Path) -> dict[str, str]:
    env = dict(os.environ, HOME=str(user), PYTHONPATH=str(REPO))
    for name in ("CODEX_HOME", "OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY"):
        env.pop(name, None)
    return env


def test_the_terminal_history_is_listed_and_resumed(tmp_path: Path) -> None:
    with scratch_root("cli-home") as root, ScriptedModelServer() as model:
        user, ws = root / "user", root / "ws"
        (user / ".codex").mkdir(parents=True)
        ws.mkdir()
        (user / ".codex" / "config.toml").write_text(config_toml(model.base_url))
        model.enqueue(text_response("Hello from the terminal.", response_id="resp_1"))
        done = subprocess.run(
            [str(peer_binary()), "exec", "--skip-git-repo-check", "say hello"],
            cwd=ws,
            env=_user_env(user),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert done.returncode == 0, done.stderr
        assert list((user / ".codex" / "sessions").rglob("rollout-*.jsonl"))

        model.enqueue(text_response("Hello from the editor.", response_id="resp_2"))
        client = WireClient(
            [sys.executable, "-m", "codex_lsp", "app-server"],
            cwd=ws,
            env=_user_env(user),
            stderr_path=root / "ours.stderr",
            framing="lines",
        )
        try:
            client.call("initialize", {"clientInfo": CLIENT_INFO})
            client.notify("initialized")
            read = client.call("config/read", {})
            listed = client.call("thread/list", {})
            (thread,) = listed["data"]
            resumed = client.call("thread/resume", {"threadId": thread["id"]})
            client.call(
                "turn/start",
                {"threadId": thread["id"], "input": [{"type": "text", "text": "and again"}]},
            )
            client.wait_method("turn/completed")
        finally:
            client.close()
        last = model.requests[-1].body

    assert read["config"]["model_provider"] == "scripted"  # ~/.codex/config.toml
    assert thread["preview"] == "say hello"
    # The terminal's turn, as an editor shows it on resuming.
    (turn,) = resumed["thread"]["turns"]
    shown = [(item["type"], item.get("text") or item.get("content")) for item in turn["items"]]
    assert shown == [
        ("userMessage", [{"type": "text", "text": "say hello", "text_elements": []}]),
        ("agentMessage", "Hello from the terminal."),
    ]
    texts = [
        part.get("text")
        for item in last["input"]
        if item.get("type") == "message"
        for part in item.get("content", [])
    ]
    assert "say hello" in texts and "Hello from the terminal." in texts
    assert texts[-1] == "and again"
