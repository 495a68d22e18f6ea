"""Unix sockets, SysV IPC and the kernel keyring outside the sandbox.

With `network_access = true` a command connected to pathname unix sockets outside the
writable roots (stand-ins for tmux, the D-Bus session bus, `docker.sock`, ssh-agent); it
read and wrote another process's SysV shared memory, sent to its message queue, read a
key from the user's keyring and planted one that outlived it. None of these may reach
past the sandbox, in either mode, with the network off or on, as root or not.
"""

from __future__ import annotations

import ctypes
import os
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from codex_lsp.engine.sandboxing import sandbox_options
from codex_lsp.sandbox import SandboxOptions, wrap_command
from codex_lsp.store.config import load_config
from codex_lsp.store.config_errors import ConfigError
from tests.sandbox.helpers import PY, policy_for, run, run_wrapped, sandbox_env

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.shmat.restype = ctypes.c_void_p
IPC_CREAT, IPC_RMID = 0o1000, 0
KEY_SPEC_USER_KEYRING, KEY_SPEC_SESSION_KEYRING = -4, -3
KEYCTL_SEARCH, KEYCTL_READ, KEYCTL_INVALIDATE = 10, 11, 21
_KEYRING_CALLS = {"x86_64": (248, 250), "aarch64": (217, 219)}

CONNECT = r"""
import socket, sys
for target in sys.argv[1:]:
    address = "\0" + target[1:] if target.startswith("@") else target
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(address)
        s.sendall(b"run: id")
        print(target, "connected")
    except OSError as exc:
        print(target, "refused:", exc)
"""

SYSV = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
key, shm_id, msg_id, sem_id = (int(a) for a in sys.argv[1:5])

def report(label, result):
    failed = result in (-1, ctypes.c_void_p(-1).value)
    print(label, "refused: " + os.strerror(ctypes.get_errno()) if failed else "ok")

report("shmget", libc.shmget(key, 0, 0))
addr = libc.shmat(shm_id, None, 0)
report("shmat", addr)
if addr not in (None, ctypes.c_void_p(-1).value):
    print("shm read:", ctypes.string_at(addr, 8))
    ctypes.memmove(addr, b"OVERWRIT", 8)
report("msgget", libc.msgget(key, 0))
message = ctypes.create_string_buffer(b"\x01\0\0\0\0\0\0\0run: id", 16)
report("msgsnd", libc.msgsnd(msg_id, message, 8, 0o4000))
report("semget", libc.semget(key, 0, 0))
op = ctypes.create_string_buffer(b"\0\0\x01\0\0\x08", 6)  # sem 0, +1, IPC_NOWAIT
report("semop", libc.semop(sem_id, op, 1))
"""

KEYRING = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
add_key, keyctl = int(sys.argv[1]), int(sys.argv[2])
secret_id, planted = int(sys.argv[3]), sys.argv[4].encode()
buf = ctypes.create_string_buffer(64)
got = libc.syscall(keyctl, 11, ctypes.c_long(secret_id), buf, 64)
error = os.strerror(ctypes.get_errno())
print("read", "ok " + repr(buf.value) if got >= 0 else "refused: " + error)
for keyring in (-4, -3):
    made = libc.syscall(add_key, b"user", planted, b"evil", 4, ctypes.c_long(keyring))
    print("plant", keyring, "ok" if made >= 0 else "refused: " + os.strerror(ctypes.get_errno()))
"""


@pytest.fixture
def listeners() -> Iterator[tuple[list[str], list[str]]]:
    """Stream listeners outside the roots, standing in for a daemon that runs what it is
    sent: one in /var/tmp, one in a runtime directory, one abstract. Their addresses, and
    what each was sent."""
    base = Path(tempfile.mkdtemp(prefix="sandbox-daemons-", dir="/var/tmp"))
    runtime = base / "run" / "user" / str(os.getuid())
    runtime.mkdir(parents=True)
    base.chmod(0o755)
    addresses = [str(base / "docker.sock"), str(runtime / "bus"), f"@codex-test-{base.name}"]
    received: list[str] = []
    servers = []
    for address in addresses:
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind("\0" + address[1:] if address.startswith("@") else address)
        if not address.startswith("@"):
            os.chmod(address, 0o777)  # only the sandbox may stand in the way
        server.listen(8)
        servers.append(server)
        threading.Thread(target=_serve, args=(server, address, received), daemon=True).start()
    yield addresses, received
    for server in servers:
        server.close()
    subprocess.run(["rm", "-rf", str(base)], check=False)


def _serve(server: socket.socket, address: str, received: list[str]) -> None:
    while True:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(5)
            try:
                received.append(f"{address}: {conn.recv(100).decode()}")
            except OSError:
                received.append(f"{address}: connected")


@pytest.mark.parametrize("network", [False, True], ids=["network-off", "network-on"])
def test_unix_sockets_outside_the_roots_are_unreachable(
    ws: Path, listeners: tuple[list[str], list[str]], mode: str, network: bool
) -> None:
    addresses, received = listeners
    result = run([PY, "-c", CONNECT, *addresses], ws, mode, policy_for(network))
    for address in addresses:
        assert f"{address} refused: [Errno 1] Operation not permitted" in result.output, (
            result.output
        )
    assert received == [], result.output


@pytest.mark.parametrize("network", [False, True], ids=["network-off", "network-on"])
def test_a_socket_the_user_lists_is_reachable_and_no_other(
    ws: Path, listeners: tuple[list[str], list[str]], mode: str, network: bool
) -> None:
    addresses, received = listeners
    listed, runtime_bus, abstract = addresses
    options = SandboxOptions(unix_sockets=(listed,))
    # A symlink in the workspace to a socket that is not listed, and one to the listed one.
    (ws / "bus.link").symlink_to(runtime_bus)
    (ws / "listed.link").symlink_to(listed)
    targets = [listed, runtime_bus, abstract, "bus.link", "listed.link", "/var/tmp/../" + listed]
    result = run([PY, "-c", CONNECT, *targets], ws, mode, policy_for(network), options=options)
    assert f"{listed} connected" in result.output, result.output
    for refused in targets[1:]:
        assert f"{refused} refused: [Errno 1] Operation not permitted" in result.output, (
            result.output
        )
    deadline = time.monotonic() + 10
    while not received and time.monotonic() < deadline:
        time.sleep(0.05)
    assert received == [f"{listed}: run: id"], result.output


def test_allow_unix_sockets_in_config_toml(
    ws: Path, tmp_path: Path, listeners: tuple[list[str], list[str]]
) -> None:
    addresses, received = listeners
    listed = addresses[1]
    text = f'[sandbox_linux]\nallow_unix_sockets = ["{listed}"]\n'
    options = sandbox_options(load_config(tmp_path, text=text), tmp_path)
    result = run([PY, "-c", CONNECT, *addresses], ws, policy=policy_for(True), options=options)
    assert f"{listed} connected" in result.output, result.output
    assert f"{addresses[0]} refused" in result.output, result.output
    deadline = time.monotonic() + 10
    while not received and time.monotonic() < deadline:
        time.sleep(0.05)
    assert received == [f"{listed}: run: id"], result.output
    with pytest.raises(ConfigError, match="allow_unix_sockets"):
        load_config(tmp_path, text='[sandbox_linux]\nallow_unix_sockets = ["bus"]\n')


def test_tcp_still_works_beside_listed_sockets(
    ws: Path, listeners: tuple[list[str], list[str]], mode: str
) -> None:
    addresses, _received = listeners
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    script = (
        "import socket, sys\n"
        f"socket.create_connection(('127.0.0.1', {port})).sendall(b'tcp')\n"
        "s = socket.socket(socket.AF_INET)\n"
        "s.setblocking(False)\n"
        f"print('nonblocking', s.connect_ex(('127.0.0.1', {port})))\n"
    )
    options = SandboxOptions(unix_sockets=(addresses[0],))
    with server:
        result = run([PY, "-c", script], ws, mode, policy_for(True), options=options)
        conn, _ = server.accept()
        with conn:
            assert conn.recv(10) == b"tcp", result.output
    assert result.code == 0, result.output
    assert "nonblocking 115" in result.output or "nonblocking 0" in result.output


@dataclass
class HostIpc:
    key: int
    shm: int
    msg: int
    sem: int


@pytest.fixture
def host_ipc() -> Iterator[HostIpc]:
    """A SysV shared memory segment, message queue and semaphore set of an outside
    process, open to everyone (so only the sandbox stands in the way)."""
    key = 0x5A000000 | (os.getpid() & 0xFFFFFF)
    shm = _libc.shmget(key, 4096, IPC_CREAT | 0o666)
    msg = _libc.msgget(key, IPC_CREAT | 0o666)
    sem = _libc.semget(key, 1, IPC_CREAT | 0o666)
    if -1 in (shm, msg, sem):
        pytest.skip("SysV IPC is not available here")
    addr = _libc.shmat(shm, None, 0)
    ctypes.memmove(addr, b"HOSTDATA", 8)
    _libc.shmdt(ctypes.c_void_p(addr))
    yield HostIpc(key, shm, msg, sem)
    _libc.shmctl(shm, IPC_RMID, None)
    _libc.msgctl(msg, IPC_RMID, None)
    _libc.semctl(sem, 0, IPC_RMID)


def _host_ipc_untouched(ipc: HostIpc) -> bool:
    addr = _libc.shmat(ipc.shm, None, 0)
    data = ctypes.string_at(addr, 8)
    _libc.shmdt(ctypes.c_void_p(addr))
    queued = subprocess.run(["ipcs", "-q", "-i", str(ipc.msg)], capture_output=True, text=True)
    value = _libc.semctl(ipc.sem, 0, 12)  # GETVAL
    return data == b"HOSTDATA" and "qnum=0" in queued.stdout.replace(" ", "") and value == 0


_SYSV_LABELS = ("shmget", "shmat", "msgget", "msgsnd", "semget", "semop")


def _assert_sysv_refused(output: str) -> None:
    for label in _SYSV_LABELS:
        assert f"{label} refused" in output, output
    assert "shm read" not in output


def test_host_sysv_ipc_is_out_of_reach(
    ws: Path, host_ipc: HostIpc, mode: str, network: bool
) -> None:
    ipc = host_ipc
    args = [str(ipc.key), str(ipc.shm), str(ipc.msg), str(ipc.sem)]
    result = run([PY, "-c", SYSV, *args], ws, mode, policy_for(network))
    _assert_sysv_refused(result.output)
    assert _host_ipc_untouched(ipc), result.output


def test_sysv_ipc_between_the_commands_own_processes_still_works(ws: Path) -> None:
    # Inside its own IPC namespace a command keeps SysV IPC for itself (databases, tests).
    script = (
        "import ctypes; libc = ctypes.CDLL(None, use_errno=True); "
        "print('own segment', libc.shmget(0x77, 4096, 0o1600) >= 0)"
    )
    assert "own segment True" in run([PY, "-c", script], ws).output


@pytest.fixture
def user_key() -> Iterator[tuple[int, int, int, str]]:
    """A secret in the user's keyring; the keyring calls' numbers; a name to plant."""
    calls = _KEYRING_CALLS.get(os.uname().machine)
    if calls is None:
        pytest.skip("no keyring syscall numbers for this architecture")
    add_key, keyctl = calls
    name = f"codex-test-secret-{os.getpid()}".encode()
    key = _libc.syscall(add_key, b"user", name, b"hunter2", 7, ctypes.c_long(KEY_SPEC_USER_KEYRING))
    if key < 0:
        pytest.skip("the kernel keyring is not available here")
    planted = f"codex-test-planted-{os.getpid()}"
    yield add_key, keyctl, key, planted
    _libc.syscall(keyctl, KEYCTL_INVALIDATE, ctypes.c_long(key))
    for keyring in (KEY_SPEC_USER_KEYRING, KEY_SPEC_SESSION_KEYRING):
        found = _find_key(keyctl, keyring, planted)
        if found >= 0:
            _libc.syscall(keyctl, KEYCTL_INVALIDATE, ctypes.c_long(found))


def _find_key(keyctl: int, keyring: int, name: str) -> int:
    return int(
        _libc.syscall(
            keyctl, KEYCTL_SEARCH, ctypes.c_long(keyring), b"user", name.encode(), ctypes.c_long(0)
        )
    )


def test_the_kernel_keyring_is_out_of_reach(
    ws: Path, user_key: tuple[int, int, int, str], mode: str, network: bool
) -> None:
    add_key, keyctl, key, planted = user_key
    args = [str(add_key), str(keyctl), str(key), planted]
    result = run([PY, "-c", KEYRING, *args], ws, mode, policy_for(network))
    assert "read refused: Operation not permitted" in result.output, result.output
    assert "hunter2" not in result.output
    assert result.output.count("refused: Operation not permitted") == 3, result.output
    for keyring in (KEY_SPEC_USER_KEYRING, KEY_SPEC_SESSION_KEYRING):
        assert _find_key(keyctl, keyring, planted) < 0, result.output


def _python_for_nobody() -> str | None:
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
@pytest.mark.parametrize("one_listed", [False, True], ids=["none-listed", "one-listed"])
def test_an_unprivileged_user_cannot_reach_host_ipc_or_sockets(
    ws: Path,
    host_ipc: HostIpc,
    listeners: tuple[list[str], list[str]],
    mode: str,
    one_listed: bool,
) -> None:
    python = _python_for_nobody()
    if python is None:
        pytest.skip("no Python >= 3.11 runnable by an unprivileged user")
    os.chown(ws.parent, 65534, 65534)
    for path in [ws, *ws.rglob("*")]:
        os.lchown(path, 65534, 65534)
    addresses, received = listeners
    ipc = host_ipc
    script = f"{python} -c {_quote(SYSV)} {ipc.key} {ipc.shm} {ipc.msg} {ipc.sem}; " + (
        f"{python} -c {_quote(CONNECT)} {' '.join(addresses)}"
    )
    env = sandbox_env(mode, {"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    env.pop("VIRTUAL_ENV", None)
    listed = addresses[:1] if one_listed else []
    options = SandboxOptions(unix_sockets=tuple(listed))
    wrapped = wrap_command(["bash", "-c", script], policy_for(True), ws, env, options=options)
    output = run_wrapped(wrapped, ws, timeout=60, python=python, nobody=True).output
    if "launcher" in output or "can't open file" in output:
        pytest.skip(f"launcher not readable by an unprivileged user: {output}")
    _assert_sysv_refused(output)
    assert _host_ipc_untouched(ipc), output
    for address in addresses[len(listed) :]:
        assert f"{address} refused: [Errno 1] Operation not permitted" in output, output
    for address in listed:
        assert f"{address} connected" in output, output
    deadline = time.monotonic() + 10
    while len(received) < len(listed) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert received == [f"{address}: run: id" for address in listed], output


def test_root_keeps_no_power_to_become_another_user(ws: Path, mode: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("runs as root")
    script = (
        "import os\n"
        "for call in (lambda: os.setgid(65534), lambda: os.setuid(65534)):\n"
        "    try:\n"
        "        call(); print('switched')\n"
        "    except OSError as exc:\n"
        "        print('switch refused:', exc.strerror)\n"
    )
    result = run([PY, "-c", script], ws, mode)
    assert result.output.count("switch refused: Operation not permitted") == 2, result.output


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
