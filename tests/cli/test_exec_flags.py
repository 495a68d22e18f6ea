"""`codex-lsp exec`'s options from `codex exec`, run as real processes on a scripted model:
what each changes for the user (the sandbox, the files on disk, the tools offered, what
stdout and stderr show)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.engine import make_git_repo, write_config
from tests.support.scripted_builders import (
    created,
    custom_tool_call_response,
    function_call_response,
    sse,
    text_response,
)
from tests.support.scripted_model import offered_tools


def _setup(scripted_model, tmp_path: Path, **config: str) -> tuple[Path, Path]:
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws", {"app.py": 'print("hi")\n'})
    write_config(home, scripted_model.base_url, **config)
    return home, ws


def _rollouts(home: Path) -> list[Path]:
    return sorted((home / "sessions").rglob("rollout-*.jsonl"))


def test_ephemeral_keeps_no_session_file(scripted_model, tmp_path):
    home, ws = _setup(scripted_model, tmp_path)
    scripted_model.enqueue(text_response("kept"))
    scripted_model.enqueue(text_response("forgotten"))

    kept = run_cli(home, "exec", "-C", str(ws), "hello")
    assert kept.returncode == 0, kept.stderr
    assert len(_rollouts(home)) == 1

    gone = run_cli(home, "exec", "--ephemeral", "-C", str(ws), "hello")

    assert gone.returncode == 0, gone.stderr
    assert gone.stdout == "forgotten\n"
    assert len(_rollouts(home)) == 1


def test_add_dir_lets_commands_write_there_and_nowhere_else(scripted_model, tmp_path):
    home, ws = _setup(scripted_model, tmp_path, approval_policy="never")
    # Outside the system temporary directory, which workspace-write lets commands write in.
    outside = Path(tempfile.mkdtemp(dir=Path.home() / ".cache"))
    extra, other = outside / "extra", outside / "other"
    extra.mkdir()
    other.mkdir()
    for target in (extra, other):
        command = f"echo made > {target}/made.txt"
        scripted_model.enqueue(function_call_response("exec_command", {"cmd": command}))
        scripted_model.enqueue(text_response("tried", response_id="resp_2"))

    for _ in (extra, other):
        result = run_cli(
            home, "exec", "-s", "workspace-write", "--add-dir", str(extra), "-C", str(ws), "write"
        )
        assert result.returncode == 0, result.stderr

    try:
        assert (extra / "made.txt").read_text() == "made\n"
        assert not (other / "made.txt").exists()
    finally:
        shutil.rmtree(outside)


def test_bypass_runs_without_sandbox_or_questions(scripted_model, tmp_path):
    home, ws = _setup(
        scripted_model, tmp_path, approval_policy="untrusted", sandbox_mode="read-only"
    )
    outside = tmp_path / "outside"
    outside.mkdir()
    command = f"echo made > {outside}/made.txt"
    scripted_model.enqueue(function_call_response("exec_command", {"cmd": command}))
    scripted_model.enqueue(text_response("wrote it", response_id="resp_2"))

    result = run_cli(
        home, "exec", "--dangerously-bypass-approvals-and-sandbox", "-C", str(ws), "write"
    )

    assert result.returncode == 0, result.stderr
    assert "[q]uit turn" not in result.stderr
    assert "danger-full-access" in result.stderr and "approval: never" in result.stderr
    assert (outside / "made.txt").read_text() == "made\n"


def test_enable_and_disable_turn_features_on_and_off(scripted_model, tmp_path):
    home, ws = _setup(scripted_model, tmp_path)
    for _ in range(3):
        scripted_model.enqueue(text_response("ok"))

    for args in ([], ["--disable", "request_user_input"], ["--enable", "subagent_tools"]):
        result = run_cli(home, "exec", *args, "-C", str(ws), "hello")
        assert result.returncode == 0, result.stderr

    plain, disabled, enabled = (offered_tools(r.body) for r in scripted_model.requests)
    assert "request_user_input" in plain and "request_user_input" not in disabled
    subagents = {tool for tool in enabled if tool.startswith("subagent_")}
    assert subagents and not any(tool.startswith("subagent_") for tool in plain)


@pytest.mark.parametrize("color", ["always", "never", "auto"])
def test_color_is_accepted(scripted_model, tmp_path, color):
    home, ws = _setup(scripted_model, tmp_path)
    scripted_model.enqueue(text_response("plain"))

    result = run_cli(home, "exec", "--color", color, "-C", str(ws), "hello")

    assert result.returncode == 0, result.stderr
    assert result.stdout == "plain\n"


def test_after_a_retry_stdout_has_only_the_final_answer(scripted_model, tmp_path):
    home, ws = _setup(scripted_model, tmp_path)
    item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress"}
    partial = {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0}
    scripted_model.enqueue(
        [
            created(),
            sse({"type": "response.output_item.added", "output_index": 0, "item": item}),
            sse({**partial, "content_index": 0, "delta": "HALF OF A FIRST TRY"}),
            {"disconnect": True},
        ]
    )
    scripted_model.enqueue(text_response("the whole answer", response_id="resp_2"))

    result = run_cli(home, "exec", "-C", str(ws), "hello")

    assert result.returncode == 0, result.stderr
    assert result.stdout == "the whole answer\n"
    assert len(scripted_model.requests) == 2  # it was retried


def test_on_success_stderr_shows_the_command_output_and_the_diff(scripted_model, tmp_path):
    home, ws = _setup(scripted_model, tmp_path, approval_policy="never")
    patch = (
        '*** Begin Patch\n*** Update File: app.py\n@@\n-print("hi")\n+print("hello")\n*** End Patch'
    )
    scripted_model.enqueue(function_call_response("exec_command", {"cmd": "echo visible-output"}))
    scripted_model.enqueue(custom_tool_call_response("apply_patch", patch, response_id="resp_2"))
    scripted_model.enqueue(text_response("done", response_id="resp_3"))

    result = run_cli(home, "exec", "-s", "workspace-write", "-C", str(ws), "go")

    assert result.returncode == 0, result.stderr
    assert result.stdout == "done\n"
    assert "| visible-output" in result.stderr
    assert '-print("hi")' in result.stderr and '+print("hello")' in result.stderr
    assert (ws / "app.py").read_text() == 'print("hello")\n'
