"""`SHELL -lc SCRIPT` is read the same wherever a command is shown or judged: the approval
prompt in an editor, the rule proposed to allow it from now on, a patch written as a heredoc,
the command line `codex-lsp exec` prints, a subagent's activity log, and the safety rules. Every
shell this engine runs scripts in counts (`dash`, `ksh`, `zsh` as well as `bash` and `sh`); a
program that is not a shell (`python3 -c`) is never taken for one."""

from __future__ import annotations

import io

import pytest

from codex_lsp.api.approvals.requests import proposed_execpolicy_amendment
from codex_lsp.cli.exec_session import TerminalRenderer
from codex_lsp.engine.patch.heredoc import detect_apply_patch
from codex_lsp.engine.safety import is_known_safe_command
from codex_lsp.engine.shell import SCRIPT_SHELLS
from codex_lsp.engine.subagents.activity import activity_line
from codex_lsp.lsp.approvals import script_of
from codex_lsp.protocol.core.events import Event
from codex_lsp.protocol.core.events_exec import (
    Duration,
    ExecCommandBeginEvent,
    ExecCommandEndEvent,
)

SHELLS = sorted(SCRIPT_SHELLS)
PATCH = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch"


def test_the_shells_are_those_scripts_run_in():
    assert {"bash", "zsh", "sh", "dash", "ksh"} == SCRIPT_SHELLS


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("flag", ["-lc", "-c"])
def test_the_approval_prompt_shows_the_script(shell, flag):
    assert script_of(f"/bin/{shell} {flag} 'git status'") == "git status"
    assert script_of(f"{shell} {flag} 'git status'") == "git status"


def test_the_approval_prompt_shows_other_programs_whole():
    assert script_of("python3 -c 'print(1)'") == "python3 -c 'print(1)'"
    assert script_of("fish -c 'ls'") == "fish -c 'ls'"


@pytest.mark.parametrize("shell", SHELLS)
def test_the_rule_offered_is_the_scripts_command(shell):
    assert proposed_execpolicy_amendment([shell, "-lc", "git status"]) == ["git", "status"]
    assert proposed_execpolicy_amendment([shell, "-lc", "git status | head"]) is None


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("flags", [["-lc"], ["-c"], ["-l", "-c"]])
def test_a_heredoc_patch_is_found_in_every_shell(shell, flags):
    script = f"apply_patch <<'EOF'\n{PATCH}\nEOF\n"
    found = detect_apply_patch([f"/usr/bin/{shell}", *flags, script])
    assert found is not None and found.patch == PATCH


def test_a_heredoc_in_another_program_is_not_a_patch():
    assert detect_apply_patch(["python3", "-c", f"apply_patch <<'EOF'\n{PATCH}\nEOF\n"]) is None


def _printed(command: list[str]) -> str:
    out, err = io.StringIO(), io.StringIO()
    begin = ExecCommandBeginEvent(call_id="c", turn_id="t", command=command, cwd="/w")
    TerminalRenderer(out, err).show(Event(id="t", msg=begin))
    return out.getvalue() + err.getvalue()


@pytest.mark.parametrize("shell", SHELLS)
def test_exec_prints_the_script(shell):
    assert "$ ls -la   (in /w)" in _printed([shell, "-lc", "ls -la"])


def test_exec_prints_other_programs_whole():
    assert "$ python3 -c 'print(1)'" in _printed(["python3", "-c", "print(1)"])


def _activity(command: list[str]) -> str | None:
    end = ExecCommandEndEvent(
        call_id="c",
        turn_id="t",
        command=command,
        cwd="/w",
        exit_code=0,
        status="completed",
        duration=Duration(secs=1, nanos=0),
    )
    return activity_line(end)


@pytest.mark.parametrize("shell", SHELLS)
def test_a_subagents_activity_shows_the_script(shell):
    assert _activity([shell, "-lc", "cargo test"]) == "ran `cargo test` (completed, exit 0)"


def test_a_subagents_activity_shows_other_programs_whole():
    assert (
        _activity(["python3", "-c", "print(1)"]) == "ran `python3 -c print(1)` (completed, exit 0)"
    )


@pytest.mark.parametrize("shell", SHELLS)
def test_the_safety_rules_read_every_shell_alike(shell):
    assert is_known_safe_command([shell, "-lc", "ls -la && git status"])
    assert not is_known_safe_command([shell, "-lc", "ls; rm -rf x"])
    # A shell outside the system's bin directories could be anything.
    assert not is_known_safe_command([f"/tmp/{shell}", "-lc", "ls"])
