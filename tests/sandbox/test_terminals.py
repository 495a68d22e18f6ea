"""Escape 5: other sessions' terminals, and the terminal a command is given.

Under `/dev/pts` a sandboxed command could open any terminal of the same user: it wrote
a fake prompt into one and read what was typed into it. A command sees only its own.
Through the terminal a `tty: true` command gets, `fchmod` made the host's `/dev/pts/N`
world-writable (0620 -> 0666), so that anyone could type into it afterwards: the
command may use that terminal, not change its mode or owner.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_lsp.engine.unified_exec.process import ExecProcess
from codex_lsp.engine.unified_exec.spawn import SpawnSpec
from codex_lsp.protocol.core.policy import WorkspaceWrite
from codex_lsp.sandbox import wrap_command
from tests.sandbox.helpers import PY, run, wrap

PROBE = r"""
import os, sys
name = sys.argv[1]
try:
    fd = os.open(name, os.O_RDWR | os.O_NONBLOCK | os.O_NOCTTY)
except OSError as exc:
    print("open refused:", exc)
    raise SystemExit(0)
os.write(fd, b"FAKE PROMPT $ ")
try:
    print("read:", os.read(fd, 100))
except BlockingIOError:
    print("read: nothing")
"""


@pytest.fixture
def terminal() -> Iterator[tuple[int, str]]:
    """Another session's terminal, with something typed into it and not yet read."""
    master, slave = os.openpty()
    name = os.ttyname(slave)
    os.write(master, b"typed-secret\n")
    os.set_blocking(master, False)
    yield master, name
    os.close(master)
    os.close(slave)


def _shown_on(master: int) -> bytes:
    try:
        return os.read(master, 1000)
    except (BlockingIOError, OSError):
        return b""


def test_other_terminals_cannot_be_opened(ws: Path, terminal: tuple[int, str], mode: str) -> None:
    master, name = terminal
    result = run([PY, "-c", PROBE, name], ws, mode)
    assert "open refused" in result.output, result.output
    assert "typed-secret" not in result.output
    assert b"FAKE PROMPT" not in _shown_on(master)


def test_the_command_has_a_devpts_of_its_own(ws: Path, terminal: tuple[int, str]) -> None:
    _master, name = terminal
    result = run(
        "ls /dev/pts; python3 -c 'import os, pty; m, s = os.openpty(); print(os.ttyname(s))'",
        ws,
    )
    assert result.code == 0, result.output
    listed = result.output.split()
    assert os.path.basename(name) not in listed[: listed.index("ptmx") + 1]
    # Pseudo-terminals made inside come from the command's own instance.
    assert "/dev/pts/0" in result.output


CHANGE_OWN_TERMINAL = r"""
import os
rdev = os.fstat(0).st_rdev
print("terminal", os.major(rdev), os.minor(rdev), flush=True)
input()
attempts = {
    "fchmod": lambda: os.chmod(0, 0o666),
    "chmod-proc": lambda: os.chmod("/proc/self/fd/0", 0o666),
    "chmod-reopened": lambda: os.chmod(os.open("/proc/self/fd/1", os.O_RDWR), 0o666),
    "fchown": lambda: os.chown(0, os.getuid(), os.getgid() + 1),
    "utime": lambda: os.utime(0, (0, 0)),
}
for label, attempt in attempts.items():
    try:
        attempt()
        print(label, "changed", flush=True)
    except OSError as exc:
        print(label, "refused:", exc.strerror, flush=True)
print("done", flush=True)
input()
"""


def _host_pts(output: str) -> str:
    # Unix98 pty slaves: majors 136-143, 256 minors each.
    for line in output.splitlines():
        if line.startswith("terminal "):
            major, minor = (int(n) for n in line.split()[1:3])
            return f"/dev/pts/{(major - 136) * 256 + minor}"
    raise AssertionError(f"no terminal reported: {output}")


async def test_the_given_terminal_keeps_its_mode_and_owner(ws: Path, mode: str) -> None:
    with wrap([PY, "-c", CHANGE_OWN_TERMINAL], ws, mode) as wrapped:
        process = await ExecProcess.spawn(
            SpawnSpec(
                argv=wrapped.argv,
                cwd=ws,
                env=wrapped.env,
                tty=True,
                sandboxed=True,
                pass_fds=wrapped.pass_fds,
            )
        )
    seen, deadline = b"", time.monotonic() + 60
    while b"terminal " not in seen and time.monotonic() < deadline:
        seen += await process.collect(time.monotonic() + 0.2)
    pts = _host_pts(seen.decode(errors="replace"))
    before = os.stat(pts)
    await process.write(b"go\n")
    while b"done" not in seen and time.monotonic() < deadline:
        seen += await process.collect(time.monotonic() + 0.2)
    after = os.stat(pts)  # while the terminal still exists: it goes with its last holder
    await process.write(b"end\n")
    await process.wait()
    output = seen.decode(errors="replace")
    assert "done" in output, output
    assert "changed" not in output, output
    assert stat.S_IMODE(after.st_mode) == stat.S_IMODE(before.st_mode), output
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid), output


UNPRIVILEGED_ENGINE = r"""
import json, os, subprocess, sys
argv, env, ws = json.loads(sys.stdin.read())
master, slave = os.openpty()
name = os.ttyname(slave)
before = os.stat(name).st_mode
subprocess.run(argv, env=env, cwd=ws, stdin=slave, stdout=slave, stderr=slave,
               start_new_session=True, timeout=60, close_fds=False)
os.set_blocking(master, False)
print(os.read(master, 4000).decode(errors="replace"))
print("modes", oct(before), oct(os.stat(name).st_mode))
"""

CHMOD_TERMINAL = r"""
import os
for label, call in (("fchmod", lambda: os.chmod(0, 0o666)),
                    ("chmod-proc", lambda: os.chmod("/proc/self/fd/0", 0o666))):
    try:
        call()
        print(label, "changed")
    except OSError as exc:
        print(label, "refused:", exc.strerror)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="switches to an unprivileged user")
def test_an_unprivileged_engines_terminal_keeps_its_mode(ws: Path, mode: str) -> None:
    python = next(
        (p for p in ("/usr/bin/python3", "/usr/local/bin/python3") if os.path.exists(p)), None
    )
    if python is None:
        pytest.skip("no system Python for an unprivileged user")
    os.chown(ws.parent, 65534, 65534)
    for path in [ws, *ws.rglob("*")]:
        os.lchown(path, 65534, 65534)
    env = {"PATH": "/usr/bin:/bin"}
    if mode == "landlock-only":
        env["CODEX_LSP_SANDBOX_DISABLE"] = "mountns"
    wrapped = wrap_command([python, "-c", CHMOD_TERMINAL], WorkspaceWrite(), ws, env)
    # The launcher under a Python the unprivileged user can run.
    argv = [python, *wrapped.argv[1:]]
    with wrapped:
        proc = subprocess.run(
            [python, "-c", UNPRIVILEGED_ENGINE],
            input=json.dumps([argv, wrapped.env, str(ws)]),
            capture_output=True,
            text=True,
            user=65534,
            group=65534,
            extra_groups=[],
            timeout=120,
            pass_fds=wrapped.pass_fds,
        )
    output = proc.stdout + proc.stderr
    if "launcher" in output or "can't open file" in output:
        pytest.skip(f"launcher not readable by an unprivileged user: {output}")
    assert "fchmod refused" in output and "chmod-proc refused" in output, output
    modes = next(line for line in output.splitlines() if line.startswith("modes"))
    assert modes.split()[1] == modes.split()[2], output
