"""`codex-lsp replay FILE` runs under the user's sandbox and approval policy, never the one the
recording names: a recording is a file anyone can edit. Each recording here was made under
`danger-full-access` with approvals `never` or `on-request` (what an edited one would claim),
and its command writes outside the folder it runs in."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.engine import make_git_repo, write_config
from tests.support.lsp_client import EditorSession
from tests.support.scripted_builders import function_call_response, text_response


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


async def _record(
    tmp_path: Path, scripted_model: Any, ws: Path, arguments: dict, approvals: str = "never"
) -> Path:
    home = tmp_path / "home"
    write_config(
        home,
        scripted_model.base_url,
        sandbox_mode="danger-full-access",
        approval_policy=approvals,
    )
    scripted_model.enqueue(function_call_response("exec_command", arguments, call_id="c1"))
    scripted_model.enqueue(text_response("Done.", response_id="r2"))
    command = [sys.executable, "-m", "codex_lsp", "record", "serve"]
    async with EditorSession(home, ws, command=command) as client:
        thread_id = await client.start_thread(ws)
        done = await client.run_turn(thread_id, "write the files")
        assert done["turn"]["status"] == "completed"
    [recording] = (home / "sessions").rglob("model-streams-*.jsonl")
    scripted_model.stop()
    return recording


def _replay(
    recording: Path,
    cd: Path | None,
    user_home: Path,
    *flags: str,
    answers: str = "",
    here: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CODEX_HOME": str(user_home)}
    where = ["--cd", str(cd)] if cd else []
    return subprocess.run(
        [sys.executable, "-m", "codex_lsp", "replay", str(recording), *where, *flags],
        cwd=here,
        input=answers,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def _user_home(tmp_path: Path, config: str = "") -> Path:
    """The replaying user's own `$CODEX_HOME`; its config keeps /tmp out of the writable roots,
    so "outside" (under the test's /tmp folder) is outside under workspace-write too."""
    home = tmp_path / "user-home"
    home.mkdir()
    (home / "config.toml").write_text(
        config
        + "[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n"
    )
    return home


async def test_a_recording_of_full_access_replays_read_only_by_default(
    tmp_path, scripted_model, outside
):
    ws = make_git_repo(tmp_path / "ws", {"notes.txt": "draft\n"})
    script = f"echo pwned > {outside}/marker; echo inside > inside.txt"
    recording = await _record(tmp_path, scripted_model, ws, {"cmd": script})
    assert (outside / "marker").exists()  # the recorded run had full access
    (outside / "marker").unlink()
    (ws / "inside.txt").unlink()

    replayed = _replay(recording, ws, tmp_path / "no-config-home")
    assert not (outside / "marker").exists()
    assert not (ws / "inside.txt").exists()
    assert f"Replaying in {ws} under your policy: sandbox read-only, approvals on-request" in (
        replayed.stderr
    )
    assert replayed.returncode == 1  # the command failed where it had succeeded

    # `-s workspace-write` lets it write where it runs, and still nowhere else.
    replayed = _replay(recording, ws, _user_home(tmp_path), "-s", "workspace-write")
    assert "sandbox workspace-write, approvals on-request" in replayed.stderr
    assert (ws / "inside.txt").read_text() == "inside\n"
    assert not (outside / "marker").exists()


async def test_an_escalation_the_recording_approved_is_asked_again(
    tmp_path, scripted_model, outside
):
    ws = make_git_repo(tmp_path / "ws", {"notes.txt": "draft\n"})
    arguments = {
        "cmd": f"echo pwned > {outside}/marker",
        "sandbox_permissions": "require_escalated",
        "justification": "needs to write \x1b[8mhidden\x1b[0m outside",
    }
    # Under full access an escalation runs without asking (`never` would refuse it).
    recording = await _record(tmp_path, scripted_model, ws, arguments, approvals="on-request")
    (outside / "marker").unlink()

    declined = _replay(recording, ws, _user_home(tmp_path), answers="n\n")
    assert not (outside / "marker").exists()
    prompt = declined.stderr
    assert "The replayed thread wants to run" in prompt and f"{outside}/marker" in prompt
    assert "(the recording approved it;" in prompt and "approving runs it outside" in prompt
    assert "\\u001b[8mhidden" in prompt and "\x1b" not in prompt
    assert declined.returncode == 1

    # No terminal to ask is a no; the user's yes is a yes.
    assert _replay(recording, ws, tmp_path / "none").returncode == 1
    assert not (outside / "marker").exists()
    approved = _replay(recording, ws, tmp_path / "none", answers="y\n")
    assert (outside / "marker").read_text() == "pwned\n", approved.stderr


async def test_the_users_approval_flag_and_config_are_honoured(tmp_path, scripted_model, outside):
    ws = make_git_repo(tmp_path / "ws", {"notes.txt": "draft\n"})
    recording = await _record(tmp_path, scripted_model, ws, {"cmd": "cat notes.txt"})

    # config.toml's policy applies when no flag is given...
    user_home = _user_home(tmp_path, 'approval_policy = "untrusted"\n')
    asked = _replay(recording, ws, user_home, answers="n\n")
    assert "sandbox read-only, approvals untrusted" in asked.stderr
    assert "The replayed thread wants to run" in asked.stderr  # untrusted asks even for cat
    assert asked.returncode == 1  # declined, where the recording ran it

    # ...and `-a` wins over it.
    quiet = _replay(recording, ws, user_home, "-a", "on-request")
    assert "approvals on-request" in quiet.stderr
    assert "wants to run" not in quiet.stderr
    assert quiet.returncode == 0, quiet.stdout + quiet.stderr


async def test_the_recorded_folder_is_never_where_a_replay_writes(
    tmp_path, scripted_model, outside
):
    """The folder the rollout names would be a writable root; the replay runs in the current
    folder instead, so a recording naming a folder of the user's cannot open it to writes."""
    victim = make_git_repo(tmp_path / "victim", {"notes.txt": "draft\n"})
    recording = await _record(tmp_path, scripted_model, victim, {"cmd": "echo over > notes.txt"})
    (victim / "notes.txt").write_text("draft\n")
    here = tmp_path / "here"
    here.mkdir()

    replayed = _replay(recording, None, _user_home(tmp_path), "-s", "workspace-write", here=here)

    assert (victim / "notes.txt").read_text() == "draft\n"
    assert (here / "notes.txt").read_text() == "over\n"
    assert f"Replaying in {here} under your policy" in replayed.stderr
    assert f'the recording ran in "{victim}"' in replayed.stderr
