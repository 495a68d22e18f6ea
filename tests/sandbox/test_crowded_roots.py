"""A root with more repositories than a command line can name.

Every `.git`, `.codex` and `.agents` found below the writable roots is handed to the
launcher to keep read-only. A `/tmp` where test suites have left tens of thousands of
checkouts names more of them than the kernel lets one `execve` carry (`ARG_MAX`, 2 MiB
with the default stack limit): the list must still reach the launcher, every entry on it
must stay protected, and the command must see nothing of how it travelled.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_lsp.protocol.core.policy import WorkspaceWrite
from codex_lsp.sandbox import _nested, wrap_command
from tests.sandbox.helpers import DENIALS, PY, run_wrapped, sandbox_env
from tests.sandbox.test_escape_basics import _python_for_nobody

# Long folder names make each entry long, so that fewer repositories fill the command line.
LONG = "d" * 200
LEVELS = 8
ATTACK = (
    'for repo in "$@"; do '
    'echo evil > "$repo/.git/config"; '
    'mkdir "$repo/.git/hooks"; echo evil > "$repo/.git/hooks/pre-commit"; '
    'mv "$repo/.git" "$repo/moved-git"; '
    "done; echo command-ran"
)


def _launcher_bytes(entries: list[str]) -> int:
    # What the entries would take on a command line: `--protect`, the path, their NULs and
    # the two argv pointers.
    return sum(len("--protect") + len(os.fsencode(path)) + 2 + 16 for path in entries)


@pytest.fixture
def crowded() -> Iterator[tuple[Path, list[Path]]]:
    """A root holding more repositories than `ARG_MAX` bytes of launcher arguments name."""
    root = Path(tempfile.mkdtemp(prefix="sandbox-crowded-", dir="/var/tmp"))
    deep = root.joinpath(*[LONG] * LEVELS)
    deep.mkdir(parents=True)
    entry = len(os.fsencode(deep / "r00000" / ".git")) + len("--protect") + 2 + 16
    count = os.sysconf("SC_ARG_MAX") // entry + 64
    repos = [deep / f"r{i:05d}" for i in range(count)]
    for repo in repos:
        (repo / ".git").mkdir(parents=True)
        (repo / ".git" / "config").write_text("[core]\n")
    yield root, repos
    shutil.rmtree(root, ignore_errors=True)


def _policy(root: Path) -> WorkspaceWrite:
    return WorkspaceWrite(
        writable_roots=[str(root)], exclude_slash_tmp=True, exclude_tmpdir_env_var=True
    )


def _assert_protected(repos: list[Path], output: str) -> None:
    assert "command-ran" in output, output
    for repo in repos:
        assert (repo / ".git" / "config").read_text() == "[core]\n", output
        assert not (repo / ".git" / "hooks").exists(), output
        assert not (repo / "moved-git").exists(), output
    assert any(denial in output for denial in DENIALS), output


def _sample(repos: list[Path]) -> list[Path]:
    return [repos[0], repos[len(repos) // 2], repos[-1]]


def test_more_protected_entries_than_a_command_line_holds(
    ws: Path, mode: str, crowded: tuple[Path, list[Path]]
) -> None:
    root, repos = crowded
    _nested.forget()
    found = list(_nested.nested_git_dirs(str(root)))
    assert len(found) == len(repos)
    assert _launcher_bytes(found) > os.sysconf("SC_ARG_MAX")
    sample = _sample(repos)
    wrapped = wrap_command(
        ["bash", "-c", ATTACK, "attack", *map(str, sample)], _policy(root), ws, sandbox_env(mode)
    )
    _assert_protected(sample, run_wrapped(wrapped, ws, timeout=300).output)


LOOK_FOR_THE_LIST = r"""
import os, sys
for fd in map(int, sys.argv[1:]):
    try:
        os.fstat(fd)
        print("open:", fd, os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:
        pass
    try:
        os.readlink(f"/proc/{os.getppid()}/fd/{fd}")
        print("open in the parent:", fd)
    except OSError:
        pass
print("looked")
"""


def test_the_command_cannot_reach_the_list(
    ws: Path, mode: str, crowded: tuple[Path, list[Path]]
) -> None:
    root, _ = crowded
    _nested.forget()
    probe = wrap_command(["true"], _policy(root), ws, sandbox_env(mode))
    numbers = [str(fd) for fd in probe.pass_fds]
    probe.close()
    assert numbers
    # The same numbers: descriptors freed by `close` are the lowest free, taken again.
    wrapped = wrap_command(
        [PY, "-c", LOOK_FOR_THE_LIST, *numbers], _policy(root), ws, sandbox_env(mode)
    )
    assert [str(fd) for fd in wrapped.pass_fds] == numbers
    looked = run_wrapped(wrapped, ws, timeout=300)
    assert looked.code == 0, looked.output
    assert "looked" in looked.output and "open" not in looked.output, looked.output


def test_a_list_anyone_could_change_is_refused(ws: Path, mode: str) -> None:
    wrapped = wrap_command(["true"], _policy(ws), ws, sandbox_env(mode))
    read, write = os.pipe()
    try:
        os.write(write, os.fsencode(ws / "unprotected") + b"\0")
        os.close(write)
        argv = wrapped.argv
        cut = argv.index("--")
        argv = [*argv[:cut], "--protect-fd", str(read), "--", "bash", "-c", "echo command-ran"]
        proc = subprocess.run(
            argv,
            env=wrapped.env,
            cwd=ws,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
            pass_fds=(read, *wrapped.pass_fds),
        )
    finally:
        os.close(read)
        wrapped.close()
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert "command-ran" not in output and "command not run" in output, output


@pytest.mark.skipif(os.geteuid() != 0, reason="switches to an unprivileged user")
def test_an_unprivileged_user_runs_with_as_many(ws: Path, crowded: tuple[Path, list[Path]]) -> None:
    python = _python_for_nobody()
    if python is None:
        pytest.skip("no Python >= 3.11 runnable by an unprivileged user")
    root, repos = crowded
    for base in (ws.parent, root):
        for path in [base, *base.rglob("*")]:
            os.lchown(path, 65534, 65534)
    sample = _sample(repos)
    for mode in ("mountns", "landlock-only"):
        _nested.forget()
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        if mode == "landlock-only":
            env["CODEX_LSP_SANDBOX_DISABLE"] = "mountns"
        wrapped = wrap_command(
            ["bash", "-c", ATTACK, "attack", *map(str, sample)], _policy(root), ws, env
        )
        output = run_wrapped(wrapped, ws, timeout=300, python=python, nobody=True).output
        if "launcher" in output or "can't open file" in output:
            pytest.skip(f"launcher not readable by an unprivileged user: {output}")
        _assert_protected(sample, f"{mode}: {output}")
