"""`codex-lsp record` saves a thread's model streams next to its rollout, secrets removed;
`codex-lsp replay FILE` runs the thread again offline against them and reaches the same items."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codex_lsp.model.recording import read_recording, rollout_path
from tests.support.engine import make_git_repo, write_config
from tests.support.lsp_client import EditorSession
from tests.support.scripted_builders import (
    custom_tool_call_response,
    function_call_response,
    text_response,
)

API_KEY = "sk-test-recorded-secret-0123456789"
NOTES = "*** Begin Patch\n*** Update File: notes.txt\n@@\n-draft\n+final\n*** End Patch"


@pytest.fixture
def home(tmp_path: Path, scripted_model: Any) -> Path:
    home = tmp_path / "home"
    config = write_config(home, scripted_model.base_url)
    # The provider table is the last one in the file: its key comes from the environment.
    config.write_text(config.read_text() + 'env_key = "SCRIPTED_API_KEY"\n')
    return home


def _script(scripted_model: Any, ws: Path) -> None:
    scripted_model.enqueue(
        function_call_response("exec_command", {"cmd": "cat notes.txt"}, call_id="c1")
    )
    scripted_model.enqueue(text_response("The notes say draft.", response_id="r2"))
    scripted_model.enqueue(
        custom_tool_call_response("apply_patch", NOTES, call_id="p1", response_id="r3")
    )
    scripted_model.enqueue(text_response("Now final.", response_id="r4", item_id="m2"))


async def _record(home: Path, ws: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SCRIPTED_API_KEY", API_KEY)
    command = [sys.executable, "-m", "codex_lsp", "record", "serve"]
    async with EditorSession(home, ws, command=command) as client:
        thread_id = await client.start_thread(ws)
        first = await client.run_turn(thread_id, "what do the notes say?")
        second = await client.run_turn(thread_id, "make them final")
        assert first["turn"]["status"] == second["turn"]["status"] == "completed"
    [recording] = (home / "sessions").rglob("model-streams-*.jsonl")
    return recording


def _replay(file: Path, cwd: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CODEX_HOME": str(tmp_path / "elsewhere")}
    env.pop("SCRIPTED_API_KEY", None)
    # The thread's patch writes in its folder: the replaying user lets it.
    policy = ["-s", "workspace-write"]
    return subprocess.run(
        [sys.executable, "-m", "codex_lsp", "replay", str(file), "--cd", str(cwd), *policy],
        input="",
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


async def test_a_recorded_thread_replays_offline_to_the_same_items(
    tmp_path, home, scripted_model, monkeypatch
):
    ws = make_git_repo(tmp_path / "ws", {"notes.txt": "draft\n"})
    pristine = tmp_path / "pristine"
    shutil.copytree(ws, pristine)
    _script(scripted_model, ws)

    recording = await _record(home, ws, monkeypatch)
    assert rollout_path(recording).exists()  # next to its rollout
    text = recording.read_text()
    assert API_KEY not in text
    recorded = read_recording(recording)
    assert len(recorded.exchanges) == 4
    assert all("authorization" not in e.request.headers for e in recorded.exchanges)
    assert recorded.exchanges[0].request.path == "/responses"
    assert "response.completed" in recorded.exchanges[0].response.body
    requests_seen = len(scripted_model.requests)
    scripted_model.stop()  # offline from here on

    replayed = _replay(recording, pristine, tmp_path)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "Replayed 2 turn(s) against the recording: " in replayed.stdout
    assert "4 model request(s) answered from it" in replayed.stdout
    assert "The replay reached the same items as the recorded thread." in replayed.stdout
    assert "note:" not in replayed.stdout
    assert (pristine / "notes.txt").read_text() == "final\n"  # the patch ran for real
    assert len(scripted_model.requests) == requests_seen


async def test_a_replay_that_goes_another_way_says_where(
    tmp_path, home, scripted_model, monkeypatch
):
    ws = make_git_repo(tmp_path / "ws", {"notes.txt": "draft\n"})
    changed = tmp_path / "changed"
    shutil.copytree(ws, changed)
    (changed / "notes.txt").write_text("something else\n")
    _script(scripted_model, ws)
    recording = await _record(home, ws, monkeypatch)
    scripted_model.stop()

    # The same recording, replayed from the rollout, where the notes are not what they were.
    replayed = _replay(rollout_path(recording), changed, tmp_path)
    assert replayed.returncode == 1, replayed.stdout + replayed.stderr
    assert "note: request 2: the output of tool call c1 differs from the recording" in (
        replayed.stdout
    )
    assert "Turn 1 differs from the recording." in replayed.stdout
    assert '"command": ' in replayed.stdout and "something else" in replayed.stdout


def test_replay_says_what_is_missing(tmp_path):
    missing = tmp_path / "model-streams-x.jsonl"
    replayed = _replay(missing, tmp_path, tmp_path)
    assert replayed.returncode == 2
    assert f"no recording at {missing}" in replayed.stderr
    missing.write_text(json.dumps({"type": "something"}) + "\n")
    replayed = _replay(missing, tmp_path, tmp_path)
    assert replayed.returncode == 2
    assert "not a model-stream recording" in replayed.stderr


BASE_URL_PASSWORD = "baseurl-pw-4711-secret"
HEADER_SECRET = "static-header-secret-0815"
QUERY_SECRET = "query-secret-value-2342"


async def test_configured_secrets_never_reach_the_record_file_the_rollout_or_an_error(
    tmp_path, scripted_model, monkeypatch
):
    # Secrets the config holds, not ones shaped like keys: a password in base_url, a static
    # header, a query parameter. The server echoes them back, as servers do in errors.
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws", {"notes.txt": "draft\n"})
    base_url = scripted_model.base_url.replace("://", f"://codex:{BASE_URL_PASSWORD}@")
    config = write_config(home, base_url)
    config.write_text(
        config.read_text()
        + 'env_key = "SCRIPTED_API_KEY"\n'
        + f'http_headers = {{ "x-team-key" = "{HEADER_SECRET}" }}\n'
        + f'query_params = {{ "api-key" = "{QUERY_SECRET}" }}\n'
    )
    echoed = f"bad request for codex:{BASE_URL_PASSWORD} {HEADER_SECRET} {QUERY_SECRET}"
    scripted_model.enqueue([{"status": 400, "body": {"error": {"message": echoed}}}])
    monkeypatch.setenv("SCRIPTED_API_KEY", API_KEY)
    command = [sys.executable, "-m", "codex_lsp", "record", "serve"]
    async with EditorSession(home, ws, command=command) as client:
        thread_id = await client.start_thread(ws)
        ended = await client.run_turn(thread_id, "hello")
    assert scripted_model.requests[0].headers["x-team-key"] == HEADER_SECRET  # it was used
    assert ended["turn"]["status"] == "failed"
    message = json.dumps(ended)
    assert "Server said: bad request for codex:[REDACTED] [REDACTED] [REDACTED]" in message
    [recording] = (home / "sessions").rglob("model-streams-*.jsonl")
    written = {
        "the turn's error": message,
        "the record file": recording.read_text(),
        "the rollout": rollout_path(recording).read_text(),
    }
    assert "bad request for" in written["the record file"]
    assert "bad request for" in written["the rollout"]
    for where, text in written.items():
        for secret in (BASE_URL_PASSWORD, HEADER_SECRET, QUERY_SECRET, API_KEY):
            assert secret not in text, f"{where} holds {secret}"
