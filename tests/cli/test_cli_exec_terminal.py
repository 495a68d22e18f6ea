"""`codex-lsp exec` at a terminal: bad input, pipes, failures, patches, git checks.

Each test runs the real process against the scripted model server and asserts on what the user
sees: the exit status, stdout and stderr, and what ended up on disk.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

from tests.support.cli import CLI, cli_env, run_cli, run_on_a_terminal
from tests.support.engine import make_git_repo, write_config
from tests.support.scripted_builders import (
    custom_tool_call_response,
    function_call_response,
    text_response,
)

PATCH = '*** Begin Patch\n*** Update File: app.py\n@@\n-print("hi")\n+print("hello")\n*** End Patch'


def _setup(scripted_model, tmp_path: Path, **config: str) -> tuple[Path, Path]:
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws", {"app.py": 'print("hi")\n'})
    write_config(home, scripted_model.base_url, **config)
    return home, ws


def test_a_missing_working_directory_is_an_error_and_nothing_is_created(scripted_model, tmp_path):
    home, _ = _setup(scripted_model, tmp_path)
    missing = tmp_path / "no" / "such" / "dir"
    scripted_model.enqueue(text_response("should never be asked"))

    result = run_cli(home, "exec", "-C", str(missing), "write a file")

    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert str(missing) in result.stderr and "does not exist" in result.stderr
    assert not (tmp_path / "no").exists()
    assert scripted_model.requests == []


def test_a_working_directory_that_is_a_file_is_an_error(scripted_model, tmp_path):
    home, _ = _setup(scripted_model, tmp_path)
    a_file = tmp_path / "passwd"
    a_file.write_text("root:x:0:0::/root:/bin/sh\n")

    result = run_cli(home, "exec", "-C", str(a_file), "hello")

    assert result.returncode == 2
    assert "not a directory" in result.stderr and "Traceback" not in result.stderr
    assert a_file.read_text() == "root:x:0:0::/root:/bin/sh\n"
    assert scripted_model.requests == []


def test_a_closed_stdout_ends_the_run_quietly(scripted_model, tmp_path):
    home, ws = _setup(scripted_model, tmp_path)
    # Far more than a pipe holds, so the writer is still writing when `head` has gone.
    answer = "\n".join(f"line {n}: " + "x" * 60 for n in range(5000))
    scripted_model.enqueue(text_response(answer))
    exec_line = shlex.join([*CLI, "exec", "-C", str(ws), "print a lot"])
    script = f'{exec_line} | head -1; echo "exec-status=${{PIPESTATUS[0]}}" >&2'

    result = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        env=cli_env(home),
        timeout=60,
        stdin=subprocess.DEVNULL,
    )

    assert result.stdout == "line 0: " + "x" * 60 + "\n"
    assert "Traceback" not in result.stderr and "BrokenPipe" not in result.stderr
    assert "exec-status=141" in result.stderr


def test_a_failed_command_shows_its_output_and_a_sandbox_denial_says_how_to_allow_it(
    scripted_model, tmp_path
):
    home, ws = _setup(scripted_model, tmp_path, sandbox_mode="read-only")
    scripted_model.enqueue(
        function_call_response(
            "exec_command", {"cmd": "touch made.txt", "workdir": str(ws)}, call_id="c1"
        )
    )
    scripted_model.enqueue(
        function_call_response(
            "exec_command",
            {"cmd": "ls no-such-file-here", "workdir": str(ws)},
            call_id="c2",
            response_id="resp_2",
        )
    )
    scripted_model.enqueue(text_response("could not write", response_id="resp_3"))

    result = run_cli(home, "exec", "-C", str(ws), "make a file")

    assert result.returncode == 0, result.stderr
    err = result.stderr
    # The policies in force come first.
    header = err[: err.index("$ touch made.txt")]
    assert "sandbox: read-only" in header and "approval: on-request" in header
    # The command's own words, and what to do about the sandbox.
    touch_part = err[err.index("$ touch made.txt") : err.index("$ ls no-such-file-here")]
    assert "Read-only file system" in touch_part
    assert "sandbox" in touch_part and "-s workspace-write" in touch_part
    assert "--full-auto" in touch_part
    # A failure of the command itself shows its output and no sandbox advice.
    ls_part = err[err.index("$ ls no-such-file-here") :]
    assert "No such file or directory" in ls_part
    assert "-s workspace-write" not in ls_part
    assert not (ws / "made.txt").exists()


def test_a_long_failure_output_is_cut_to_its_tail(scripted_model, tmp_path):
    home, ws = _setup(scripted_model, tmp_path)
    command = "for i in $(seq 1 500); do echo noise-$i; done; echo the-real-cause >&2; exit 3"
    scripted_model.enqueue(
        function_call_response("exec_command", {"cmd": command, "workdir": str(ws)})
    )
    scripted_model.enqueue(text_response("it failed", response_id="resp_2"))

    result = run_cli(home, "exec", "-C", str(ws), "run it")

    assert result.returncode == 0, result.stderr
    assert "the-real-cause" in result.stderr and "noise-500" in result.stderr
    assert "noise-1\n" not in result.stderr and "exit 3" in result.stderr


def test_the_patch_prompt_shows_the_diff_and_declining_says_declined(scripted_model, tmp_path):
    home, ws = _setup(scripted_model, tmp_path, approval_policy="untrusted")
    scripted_model.enqueue(custom_tool_call_response("apply_patch", PATCH, call_id="p1"))
    scripted_model.enqueue(text_response("left it alone", response_id="resp_2"))

    result = run_cli(home, "exec", "-C", str(ws), "fix the greeting", stdin="n\n")

    assert result.returncode == 0, result.stderr
    err = result.stderr
    asked = err.index("Apply this patch?")
    assert '-print("hi")' in err[:asked] and '+print("hello")' in err[:asked]
    assert "declined" in err[asked:]
    assert "patch failed" not in err
    assert (ws / "app.py").read_text() == 'print("hi")\n'


def test_a_new_file_in_a_patch_prompt_shows_its_content(scripted_model, tmp_path):
    home, ws = _setup(scripted_model, tmp_path, approval_policy="untrusted")
    patch = "*** Begin Patch\n*** Add File: notes.txt\n+first note\n+second note\n*** End Patch"
    scripted_model.enqueue(custom_tool_call_response("apply_patch", patch, call_id="p1"))
    scripted_model.enqueue(text_response("added", response_id="resp_2"))

    code, seen = run_on_a_terminal(home, ["exec", "-C", str(ws), "add notes"], "y\n")

    assert code == 0, seen
    asked = seen.index("Apply this patch?")
    assert "+first note" in seen[:asked] and "+second note" in seen[:asked]
    assert (ws / "notes.txt").read_text() == "first note\nsecond note\n"


def test_an_empty_prompt_is_refused_before_the_model_hears_of_it(scripted_model, tmp_path):
    home, ws = _setup(scripted_model, tmp_path)
    scripted_model.enqueue(text_response("should never be asked"))

    empty_arg = run_cli(home, "exec", "-C", str(ws), "")
    empty_stdin = run_cli(home, "exec", "-C", str(ws), "-", stdin="  \n\n")

    for result in (empty_arg, empty_stdin):
        assert result.returncode == 2
        assert "prompt is empty" in result.stderr and "Traceback" not in result.stderr
    assert scripted_model.requests == []


def test_outside_a_git_repository_exec_refuses_unless_told_to_skip_the_check(
    scripted_model, tmp_path
):
    home = tmp_path / "home"
    write_config(home, scripted_model.base_url)
    plain = tmp_path / "plain"
    plain.mkdir()
    scripted_model.enqueue(
        function_call_response(
            "exec_command", {"cmd": "echo made > made.txt", "workdir": str(plain)}
        )
    )
    scripted_model.enqueue(text_response("wrote it", response_id="resp_2"))

    refused = run_cli(home, "exec", "--full-auto", "-C", str(plain), "write a file")

    assert refused.returncode == 1
    assert "git repository" in refused.stderr and "--skip-git-repo-check" in refused.stderr
    assert scripted_model.requests == [] and not (plain / "made.txt").exists()

    allowed = run_cli(
        home, "exec", "--full-auto", "--skip-git-repo-check", "-C", str(plain), "write a file"
    )

    assert allowed.returncode == 0, allowed.stderr
    assert "wrote it" in allowed.stdout
    assert (plain / "made.txt").read_text() == "made\n"


def test_a_subdirectory_of_a_git_repository_passes_the_check(scripted_model, tmp_path):
    home, ws = _setup(scripted_model, tmp_path)
    inner = ws / "src" / "pkg"
    inner.mkdir(parents=True)
    scripted_model.enqueue(text_response("inside the repo"))

    result = run_cli(home, "exec", "-C", str(inner), "hello")

    assert result.returncode == 0, result.stderr
    assert "inside the repo" in result.stdout


def test_exec_without_a_prompt_reads_it_from_piped_stdin(scripted_model, tmp_path):
    home, ws = _setup(scripted_model, tmp_path)
    scripted_model.enqueue(text_response("read from stdin"))

    result = run_cli(home, "exec", "-C", str(ws), stdin="what is in app.py?\n")

    assert result.returncode == 0, result.stderr
    assert "read from stdin" in result.stdout
    sent = str(scripted_model.requests[0].body["input"])
    assert "what is in app.py?" in sent


def test_full_auto_keeps_the_network_setting_the_advice_names(scripted_model, tmp_path):
    home, ws = _setup(scripted_model, tmp_path, sandbox_mode="read-only")
    scripted_model.enqueue(text_response("hello"))

    result = run_cli(
        home,
        "exec",
        "--full-auto",
        "-c",
        "sandbox_workspace_write.network_access=true",
        "-C",
        str(ws),
        "hello",
    )

    assert result.returncode == 0, result.stderr
    assert "sandbox: workspace-write" in result.stderr and "network on" in result.stderr


def test_a_stray_empty_git_folder_is_not_a_repository(scripted_model, tmp_path):
    home = tmp_path / "home"
    write_config(home, scripted_model.base_url)
    plain = tmp_path / "plain"
    (plain / ".git").mkdir(parents=True)

    result = run_cli(home, "exec", "-C", str(plain), "hello")

    assert result.returncode == 1 and "--skip-git-repo-check" in result.stderr
    assert scripted_model.requests == []


def test_a_git_worktree_checkout_passes_the_check(scripted_model, tmp_path):
    home, ws = _setup(scripted_model, tmp_path)
    linked = tmp_path / "linked"
    subprocess.run(["git", "worktree", "add", "-q", str(linked)], cwd=ws, check=True)
    scripted_model.enqueue(text_response("in the worktree"))

    result = run_cli(home, "exec", "-C", str(linked), "hello")

    assert result.returncode == 0, result.stderr
    assert "in the worktree" in result.stdout
