"""OpenAI's TypeScript SDK (`@openai/codex-sdk`, installed by `scripts/setup-editors`) with
codex-lsp as its codex executable: a thread, then a resumed turn, as with the real codex.

The SDK runs `exec --experimental-json` with the prompt on stdin and `exec
--experimental-json ... resume ID` for the next turn, and reads the thread events back.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.exec.peer import CACHE, REPO, peer_binary, peer_home
from tests.support.scripted_builders import text_response
from tests.support.scripted_model import ScriptedModelServer

SDK_DIR = CACHE / "codex-sdk"
SCRIPT = REPO / "tests" / "exec" / "sdk" / "thread.mjs"
NODE = REPO / ".venv" / "bin" / "node"


def _require_sdk() -> None:
    if not (SDK_DIR / "node_modules" / "@openai" / "codex-sdk").is_dir() or not NODE.exists():
        pytest.fail(
            f"@openai/codex-sdk is not installed in {SDK_DIR} (or Node is missing): run "
            "scripts/setup-editors"
        )


def _ours(home: Path) -> Path:
    """An executable that is `codex-lsp`, as an SDK user would point codexPathOverride at."""
    launcher = home / "codex-lsp"
    launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m codex_lsp "$@"\n')
    launcher.chmod(0o755)
    return launcher


@pytest.mark.parametrize("side", ["ours", "real"])
def test_the_sdk_runs_a_thread_and_resumes_it(side: str) -> None:
    _require_sdk()
    with ScriptedModelServer() as model, peer_home(model.base_url) as home:
        model.enqueue(text_response("first answer"))
        model.enqueue(text_response("second answer", response_id="resp_2"))
        binary = _ours(home) if side == "ours" else peer_binary()
        env = dict(
            os.environ,
            CODEX_HOME=str(home),
            HOME=str(home),
            RUST_LOG="error",
            PYTHONPATH=str(REPO),
            SDK_DIR=str(SDK_DIR),
            CODEX_BIN=str(binary),
            WORKSPACE=str(home / "ws"),
        )
        env.pop("OPENAI_API_KEY", None)
        done = subprocess.run(
            [str(NODE), str(SCRIPT)],
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
            start_new_session=True,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        result = json.loads(done.stdout.strip().splitlines()[-1])
        second_request = model.requests[-1].body
        shutil.rmtree(home / "ws", ignore_errors=True)

    assert result["first"] == "first answer" and result["second"] == "second answer"
    assert result["threadId"] and result["resumedId"] == result["threadId"]
    assert result["items"] == ["agent_message"]
    assert set(result["usage"]) >= {"input_tokens", "cached_input_tokens", "output_tokens"}
    # The resumed turn carries the whole conversation.
    sent = json.dumps(second_request["input"])
    assert "first question" in sent and "first answer" in sent and "second question" in sent
