"""The user's shell and the argv that runs a script in it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codex_lsp.engine import shell
from codex_lsp.engine.exec import ExecParams, run_exec
from codex_lsp.engine.shell import default_user_shell, shell_command_argv


def test_shell_command_argv_login_and_not() -> None:
    assert shell_command_argv("ls -la", shell="/bin/zsh") == ["/bin/zsh", "-lc", "ls -la"]
    assert shell_command_argv("ls", login=False, shell="/bin/bash") == ["/bin/bash", "-c", "ls"]
    argv = shell_command_argv("echo hi")
    assert argv[1:] == ["-lc", "echo hi"]
    assert os.path.isabs(argv[0])


def test_default_shell_prefers_usable_shell_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/sh")
    assert default_user_shell() == "/bin/sh"


@pytest.mark.parametrize("value", ["/usr/bin/fish", "fish", "bash", "/nonexistent/bash", ""])
def test_default_shell_ignores_unusable_shell_env(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("SHELL", value)
    # Force the passwd entry to something exotic too, so the fallback is what we get.
    monkeypatch.setattr(shell.pwd, "getpwuid", lambda _uid: _FakePw("/usr/bin/fish"))
    assert default_user_shell() == shell.FALLBACK_SHELL


def test_default_shell_falls_back_to_passwd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SHELL", raising=False)
    monkeypatch.setattr(shell.pwd, "getpwuid", lambda _uid: _FakePw("/bin/sh"))
    assert default_user_shell() == "/bin/sh"


class _FakePw:
    def __init__(self, pw_shell: str) -> None:
        self.pw_shell = pw_shell


async def test_script_runs_in_the_shell(tmp_path: Path) -> None:
    argv = shell_command_argv("echo one && echo two | tr a-z A-Z", login=False)
    out = await run_exec(ExecParams(argv=argv, cwd=tmp_path))
    assert out.exit_code == 0
    assert out.stdout.text() == "one\nTWO\n"
