"""Real commands, run through `wrap_command`, trying the first ways out of the sandbox.

Each test runs under `workspace-write` with the network off, in a workspace that is
a git repository, twice: with the private namespaces (the normal path) and with
Landlock and seccomp alone (`CODEX_LSP_SANDBOX_DISABLE=mountns`, what a kernel or
container that refuses namespaces gets). A denial must show up in the output the way
a user would see it, and the thing the command tried to change must be unchanged.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_lsp.protocol.core.policy import DangerFullAccess, ReadOnly, WorkspaceWrite
from codex_lsp.sandbox import SandboxOptions, is_likely_sandbox_denied, wrap_command
from tests.sandbox.helpers import DENIALS, ISOLATED, PY, make_repo, run, run_wrapped

# --- filesystem escapes ------------------------------------------------------------


def test_write_outside_by_absolute_path_is_denied(ws: Path, outside: Path, mode: str) -> None:
    result = run(f"echo pwned > {outside}/new.txt; echo pwned > {outside}/victim.txt", ws, mode)
    assert result.denied(), result.output
    assert not (outside / "new.txt").exists()
    assert (outside / "victim.txt").read_text() == "original\n"


def test_write_outside_by_dotdot_is_denied(ws: Path, mode: str) -> None:
    sibling = ws.parent / "sibling"
    sibling.mkdir()
    result = run("echo pwned > ../sibling/x.txt; mkdir ../escape-dir", ws, mode)
    assert result.denied(), result.output
    assert not (sibling / "x.txt").exists()
    assert not (ws.parent / "escape-dir").exists()


def test_write_through_symlink_pointing_out_is_denied(ws: Path, outside: Path, mode: str) -> None:
    (ws / "out-link").symlink_to(outside)
    (ws / "victim-link").symlink_to(outside / "victim.txt")
    result = run("echo pwned > out-link/new.txt; echo pwned > victim-link", ws, mode)
    assert result.denied(), result.output
    assert not (outside / "new.txt").exists()
    assert (outside / "victim.txt").read_text() == "original\n"


def test_hard_link_to_outside_file_is_denied(ws: Path, outside: Path, mode: str) -> None:
    result = run(f"ln {outside}/victim.txt src/hl && echo pwned > src/hl", ws, mode)
    assert result.code != 0
    assert not (ws / "src" / "hl").exists()
    assert (outside / "victim.txt").read_text() == "original\n"


def test_git_metadata_stays_read_only(ws: Path, mode: str) -> None:
    config = (ws / ".git" / "config").read_text()
    result = run(
        "echo evil >> .git/config; echo evil > .git/hooks/pre-commit; "
        "mv .git .git-moved; rm -rf .git; touch .git/index.lock",
        ws,
        mode,
    )
    assert result.denied(), result.output
    assert (ws / ".git" / "config").read_text() == config
    assert not (ws / ".git" / "hooks" / "pre-commit").exists()
    assert not (ws / ".git" / "index.lock").exists()
    assert not (ws / ".git-moved").exists()


def test_existing_codex_and_agents_dirs_stay_read_only(ws: Path, mode: str) -> None:
    (ws / ".codex").mkdir()
    (ws / ".agents").mkdir()
    result = run("echo x > .codex/config.toml; echo x > .agents/skill.md; rmdir .agents", ws, mode)
    assert result.denied(), result.output
    assert not (ws / ".codex" / "config.toml").exists()
    assert not (ws / ".agents" / "skill.md").exists()
    assert (ws / ".agents").is_dir()


def test_git_write_through_a_symlink_is_denied(ws: Path, mode: str) -> None:
    (ws / "src" / "g").symlink_to(ws / ".git")
    result = run("echo evil > src/g/hooks/post-checkout", ws, mode)
    assert result.denied(), result.output
    assert not (ws / ".git" / "hooks" / "post-checkout").exists()


def test_mount_tricks_cannot_reopen_git(ws: Path, mode: str) -> None:
    script = r"""
import ctypes, os, struct
libc = ctypes.CDLL(None, use_errno=True)
git = os.path.abspath(".git").encode()
print("umount", libc.umount2(git, 2), ctypes.get_errno())
print("remount", libc.mount(None, git, None, ctypes.c_ulong(4096 | 32), None), ctypes.get_errno())
attr = ctypes.create_string_buffer(struct.pack("=QQQQ", 0, 1, 0, 0), 32)
print("setattr", libc.syscall(ctypes.c_long(442), ctypes.c_long(-100), git, ctypes.c_long(0),
      attr, ctypes.c_long(32)), ctypes.get_errno())
tree = libc.syscall(ctypes.c_long(428), ctypes.c_long(-100), b".", ctypes.c_long(1 | 0x80000))
print("open_tree", tree, ctypes.get_errno())
if tree >= 0:
    os.open(".git/hooks/pre-push", os.O_CREAT | os.O_WRONLY, dir_fd=tree)
for path in (".git/hooks/pre-push", ".git/config"):
    try:
        open(path, "a").write("evil")
    except OSError as exc:
        print(path, exc)
"""
    result = run([PY, "-c", script], ws, mode, policy=WorkspaceWrite(network_access=True))
    lines = result.output.splitlines()
    for call in ("umount", "remount", "setattr", "open_tree"):
        assert f"{call} -1 1" in lines, result.output  # EPERM
    assert sum(any(d in line for d in DENIALS) for line in lines) == 2, result.output
    assert not (ws / ".git" / "hooks" / "pre-push").exists()
    assert "evil" not in (ws / ".git" / "config").read_text()


def test_sibling_files_stay_writable_including_new_ones(ws: Path, mode: str) -> None:
    result = run(
        "echo more >> README.md && echo one > src/new.py && mkdir -p src/pkg/deep "
        "&& echo two > src/pkg/deep/mod.py && mv src/new.py src/renamed.py && rm src/renamed.py",
        ws,
        mode,
    )
    assert result.code == 0, result.output
    assert (ws / "README.md").read_text() == "hello\nmore\n"
    assert (ws / "src" / "pkg" / "deep" / "mod.py").read_text() == "two\n"
    assert not (ws / "src" / "renamed.py").exists()


def test_files_created_later_in_the_root(ws: Path, mode: str) -> None:
    first = run("echo 1 > notes.txt && echo 2 >> notes.txt && mkdir build", ws, mode)
    if mode == "mountns":
        assert first.code == 0, first.output
        assert (ws / "notes.txt").read_text() == "1\n2\n"
        second = run("echo 3 >> notes.txt && touch build/out.o", ws, mode)
        assert second.code == 0, second.output
        assert (ws / "notes.txt").read_text() == "1\n2\n3\n"
        assert (ws / "build" / "out.o").exists()
    else:
        # Landlock alone cannot allow creating entries in the root without allowing
        # them in `.git` too, so it refuses the former to keep the latter.
        assert first.denied(), first.output
        assert not (ws / "notes.txt").exists()
        # Files that existed when the command started stay writable.
        (ws / "notes.txt").write_text("1\n")
        second = run("echo 2 >> notes.txt", ws, mode)
        assert second.code == 0, second.output
        assert (ws / "notes.txt").read_text() == "1\n2\n"


def test_metadata_outside_the_roots_cannot_change(ws: Path, outside: Path) -> None:
    victim = outside / "victim.txt"
    before = victim.stat()
    result = run(f"chmod 777 {victim}; touch -d 2001-01-01 {victim}", ws)
    assert result.denied(), result.output
    after = victim.stat()
    assert (after.st_mode, after.st_mtime) == (before.st_mode, before.st_mtime)


def test_read_only_policy_denies_workspace_writes(ws: Path, mode: str) -> None:
    result = run(
        "echo x > /dev/null && echo devnull-ok; echo x >> README.md; touch src/new.py",
        ws,
        mode,
        policy=ReadOnly(),
    )
    assert "devnull-ok" in result.output
    assert result.denied(), result.output
    assert (ws / "README.md").read_text() == "hello\n"
    assert not (ws / "src" / "new.py").exists()


# --- network escapes -----------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[tuple[int, list[bytes]]]:
    """A TCP server on 127.0.0.1 recording what every connection sent."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    received: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(2)
                try:
                    received.append(conn.recv(1024))
                except OSError:
                    received.append(b"")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1], received
    stop.set()
    thread.join()
    listener.close()


CONNECT = "import socket, sys; socket.create_connection(('127.0.0.1', int(sys.argv[1]))).send(b'x')"


def test_tcp_connect_is_denied(ws: Path, server: tuple[int, list[bytes]], mode: str) -> None:
    port, received = server
    py = run([PY, "-c", CONNECT, str(port)], ws, mode)
    assert "PermissionError: [Errno 1] Operation not permitted" in py.output
    sh = run(f"echo hi > /dev/tcp/127.0.0.1/{port}", ws, mode)
    assert "Operation not permitted" in sh.output
    assert py.denied() and sh.denied()
    assert received == []


def test_child_processes_and_pipelines_inherit_the_filter(
    ws: Path, server: tuple[int, list[bytes]], mode: str
) -> None:
    port, received = server
    child = (
        "import subprocess, sys; "
        f"sys.exit(subprocess.call([sys.executable, '-c', {CONNECT!r}, '{port}']))"
    )
    nested = run([PY, "-c", child], ws, mode)
    assert "Operation not permitted" in nested.output
    pipeline = run(
        f"echo hi | (cat > /dev/tcp/127.0.0.1/{port}) | cat; "
        f"bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}' & wait",
        ws,
        mode,
    )
    assert pipeline.output.count("/dev/tcp/127.0.0.1") == 2, pipeline.output
    assert pipeline.output.count("Operation not permitted") >= 2, pipeline.output
    assert nested.denied()
    assert received == []


def test_unix_sockets_between_processes_still_work(ws: Path, mode: str) -> None:
    script = """
import socket, os
a, b = socket.socketpair()
if os.fork() == 0:
    b.send(b"ping from child")
    os._exit(0)
print(a.recv(100).decode())
os.wait()
try:
    socket.socket(socket.AF_UNIX).bind("srv.sock")
except OSError as exc:
    print("bind:", exc)
try:
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
except OSError as exc:
    print("udp:", exc)
"""
    result = run([PY, "-c", script], ws, mode)
    assert "ping from child" in result.output
    # Naming an address is how a sandboxed process would reach daemons outside it.
    assert "bind: [Errno 1] Operation not permitted" in result.output
    assert "udp: [Errno 1] Operation not permitted" in result.output


def test_network_policy_on_allows_tcp(ws: Path, server: tuple[int, list[bytes]]) -> None:
    port, received = server
    result = run([PY, "-c", CONNECT, str(port)], ws, policy=WorkspaceWrite(network_access=True))
    assert result.code == 0, result.output
    assert received == [b"x"]


def test_full_access_runs_unwrapped(ws: Path, server: tuple[int, list[bytes]]) -> None:
    port, received = server
    wrapped = wrap_command([PY, "-c", CONNECT, str(port)], DangerFullAccess(), ws, os.environ)
    assert wrapped.argv[0] == PY and "--policy" not in wrapped.argv and not wrapped.pass_fds
    assert subprocess.run(wrapped.argv, env=wrapped.env, cwd=ws, timeout=60).returncode == 0
    assert received == [b"x"]


def test_ptrace_is_denied_and_x32_syscalls_kill(ws: Path) -> None:
    ptrace = "import ctypes; print('ptrace', ctypes.CDLL(None).ptrace(0, 0, 0, 0))"
    assert "ptrace -1" in run([PY, "-c", ptrace], ws).output
    x32 = "import ctypes; ctypes.CDLL(None).syscall(0x40000000 | 39); print('survived')"
    result = run([PY, "-c", x32], ws)
    assert "survived" not in result.output
    assert is_likely_sandbox_denied(result.code, result.output)


def test_command_runs_in_its_own_session(ws: Path) -> None:
    # Without a controlling terminal it cannot inject input into the engine's one.
    script = (
        "import os; print('own session', os.getsid(0) == os.getpid() != os.getsid(os.getppid()))"
    )
    assert "own session True" in run([PY, "-c", script], ws).output


# --- allowed work still works ------------------------------------------------------------


def test_ordinary_work_still_works(ws: Path, mode: str) -> None:
    (ws / "src" / "hello.c").write_text(
        '#include <stdio.h>\nint main(void) { puts("hello from c"); return 0; }\n'
    )
    # $TMPDIR is a writable root; a private one here. With Landlock alone a root takes no
    # new entries at its top, and the command's $TMPDIR is a folder of its own inside it.
    scratch = Path(tempfile.mkdtemp(prefix="sandbox-scratch-", dir="/var/tmp"))
    # The linker marks its output executable: with Landlock alone that needs the opt-in.
    opt_in = SandboxOptions(fallback_metadata_changes=True) if mode == "landlock-only" else None
    try:
        result = run(
            "set -e; cc -o src/hello src/hello.c; ./src/hello; head -1 /etc/passwd; "
            'echo scratch > "$TMPDIR/out.txt"; echo created > created.txt 2>/dev/null || true; '
            'echo "sandbox=$CODEX_SANDBOX net_disabled=$CODEX_SANDBOX_NETWORK_DISABLED"; '
            "git status --short src | head -1",
            ws,
            mode,
            policy=WorkspaceWrite(exclude_slash_tmp=True),
            options=opt_in,
            env={"TMPDIR": str(scratch)},
        )
        assert result.code == 0, result.output
        assert "hello from c" in result.output
        assert result.output.splitlines()[1].startswith("root:")
        own = scratch if mode == "mountns" else scratch / f"codex-sandbox-{os.geteuid()}"
        assert (own / "out.txt").read_text() == "scratch\n"
        assert "sandbox=seccomp net_disabled=1" in result.output
        assert "?? src/" in result.output
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def test_writes_to_tmp_follow_the_policy(ws: Path, mode: str) -> None:
    name = f"/tmp/sandbox-test-{os.getpid()}-{id(ws)}"
    # With Landlock alone /tmp keeps its existing entries writable but takes no new ones
    # (its `.git`, `.codex` and `.agents` must not be created).
    try:
        allowed = run(f"echo ok > {name}", ws, mode, policy=WorkspaceWrite())
        if mode == "landlock-only":
            assert allowed.denied(), allowed.output
            Path(name).write_text("ok\n")
        else:
            assert allowed.code == 0, allowed.output
            assert Path(name).read_text() == "ok\n"
        Path(name).unlink()
        refused = run(f"echo ok > {name}", ws, mode, policy=ISOLATED)
        assert refused.denied(), refused.output
        assert not Path(name).exists()
    finally:
        Path(name).unlink(missing_ok=True)


def test_workspace_under_tmp(tmp_path: Path, mode: str) -> None:
    ws = make_repo(tmp_path / "ws")
    result = run(
        "echo evil > .git/hooks/pre-commit; echo ok > src/a.txt && echo ok > ../new.txt",
        ws,
        mode,
        policy=WorkspaceWrite(),
    )
    assert not (ws / ".git" / "hooks" / "pre-commit").exists()
    assert (ws / "src" / "a.txt").read_text() == "ok\n"
    if mode == "mountns":
        assert result.code == 0, result.output
    else:
        # /tmp's own rights would reach the workspace's `.git`, so with Landlock
        # alone /tmp keeps its existing entries writable but gains no new ones.
        assert result.denied(), result.output
        assert "../new.txt" in result.output


def _python_for_nobody() -> str | None:
    """A system Python an unprivileged user can run, new enough for the launcher."""
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if not os.path.exists(candidate):
            continue
        probe = subprocess.run(
            [candidate, "-c", "import sys; print(sys.version_info >= (3, 11))"],
            capture_output=True,
            text=True,
            user=65534,
            group=65534,
            extra_groups=[],
        )
        if probe.stdout.strip() == "True":
            return candidate
    return None


@pytest.mark.skipif(os.geteuid() != 0, reason="switches to an unprivileged user")
def test_unprivileged_user_gets_the_same_protection(ws: Path, outside: Path) -> None:
    python = _python_for_nobody()
    if python is None:
        pytest.skip("no Python >= 3.11 runnable by an unprivileged user")
    os.chown(ws.parent, 65534, 65534)
    outside.chmod(0o777)  # only the sandbox may stand in the way
    for path in [ws, *ws.rglob("*")]:
        os.lchown(path, 65534, 65534)
    wrapped = wrap_command(
        [
            "bash",
            "-c",
            f"echo new > new.txt; echo evil > .git/config; echo x > {outside}/x; "
            "echo > /dev/tcp/127.0.0.1/9; cat /proc/self/status | grep CapEff",
        ],
        ISOLATED,
        ws,
        {"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
    )
    output = run_wrapped(wrapped, ws, timeout=60, python=python, nobody=True).output
    if "launcher" in output or "can't open file" in output:
        pytest.skip(f"launcher not readable by an unprivileged user: {output}")
    assert (ws / "new.txt").read_text() == "new\n", output
    assert "evil" not in (ws / ".git" / "config").read_text()
    assert ".git/config: Read-only file system" in output
    assert any(f"{outside}/x: {denial}" in output for denial in DENIALS), output
    assert "Operation not permitted" in output
    assert "CapEff:\t0000000000000000" in output
    assert not (outside / "x").exists()
