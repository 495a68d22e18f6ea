"""`codex-lsp app-server --attach`: a launcher served by a warm per-user server.

Each test has a runtime directory of its own (so its own server), started by the first
launcher, which serves that client in-process. The sessions forked for later launchers must
behave as `codex-lsp app-server` does: their own handshake, threads, environment and cwd, the
exit status back through the launcher, and an end when the launcher goes away.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_lsp.api.port import INVALID_REQUEST
from codex_lsp.appserver import attach, daemon
from codex_lsp.cli.attach_server import SESSION_ENTRY
from tests.support.appserver import AppServerClient, app_server, make_home
from tests.support.scripted_builders import text_response

WAIT_S = 30.0


def _env(runtime: Path, **extra: str) -> dict[str, str]:
    return {"XDG_RUNTIME_DIR": str(runtime), daemon.IDLE_ENV: "30", **extra}


def _socket_for(runtime: Path, home: Path) -> Path:
    environ = dict(os.environ, XDG_RUNTIME_DIR=str(runtime), CODEX_HOME=str(home))
    environ["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    return Path(attach.socket_path(environ))


def _wait_for(predicate, what: str, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _connectable(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


def _server_ready(runtime: Path, home: Path) -> Path:
    """Wait for the per-user server that the first launcher started; its socket."""
    path = _socket_for(runtime, home)
    _wait_for(lambda: path.exists() and _connectable(path), "the attach server")
    # Its imports are done once it has said so in its log: then sessions are forks.
    log = path.with_suffix(".log")
    _wait_for(lambda: log.exists() and "preloaded" in log.read_text(), "the server's preload")
    return path


def _writers(launcher: subprocess.Popen) -> set[int]:
    """The processes whose stdout is the launcher's: the launcher, and whoever serves it."""
    pipe = os.readlink(f"/proc/{launcher.pid}/fd/1")
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.readlink(entry / "fd" / "1") == pipe:
                    found.add(int(entry.name))
            except OSError:
                continue
    return found


def _session_pid(launcher: subprocess.Popen) -> int:
    """The one other process writing to the launcher's stdout: its session.

    /proc is read entry by entry while processes come and go, so one scan can miss it under
    load; look again until exactly one shows up.
    """
    found: set[int] = set()

    def one_writer() -> bool:
        found.clear()
        found.update(_writers(launcher) - {launcher.pid})
        return len(found) == 1

    _wait_for(one_writer, "exactly one session process writing to the launcher's stdout")
    return found.pop()


def _stop_server(runtime: Path) -> None:
    """End the test's server now rather than when it is idle."""
    for log in runtime.glob("codex-lsp/*.log"):
        pids = {int(line.split()[2]) for line in log.read_text().splitlines() if "serving" in line}
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Path]:
    """An XDG_RUNTIME_DIR of the test's own, whose server is stopped at the end."""
    path = tmp_path / "run"
    path.mkdir(mode=0o700)
    yield path
    _stop_server(path)


def _attached(home: Path, cwd: Path, runtime: Path, **kwargs) -> AppServerClient:
    return AppServerClient(home, cwd, args=("--attach",), env=_env(runtime), **kwargs)


def test_clients_attached_to_one_server_each_get_their_own_session(
    scripted_model, tmp_path, runtime
):
    home, ws = make_home(tmp_path, scripted_model.base_url)

    # The first launcher finds no server: it starts one and serves its client itself.
    with app_server(home, ws, args=("--attach",), env=_env(runtime)) as first:
        assert first.result("thread/list", {})["data"] == []
        assert first.close() == 0
    path = _server_ready(runtime, home)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700

    other_ws = tmp_path / "elsewhere"
    other_ws.mkdir()
    a = _attached(home, ws, runtime)
    b = _attached(home, other_ws, runtime)
    try:
        # Each connection has its own handshake state.
        a_result = a.initialize()
        assert a_result["codexHome"] == str(home.resolve())
        early = b.call("thread/list", {})
        assert early["error"] == {"code": INVALID_REQUEST, "message": "Not initialized"}
        b.initialize()

        # A session is a process of its own, forked from the server, not the launcher.
        session_a, session_b = _session_pid(a.process), _session_pid(b.process)
        assert len({session_a, session_b, a.process.pid, b.process.pid}) == 4

        # The launcher's cwd is the session's: a thread started without one runs there.
        scripted_model.enqueue(text_response("Hi from a."))
        thread_a = a.result("thread/start", {"sandbox": "danger-full-access"})["thread"]
        assert thread_a["cwd"] == str(ws)
        thread_b = b.result("thread/start", {"sandbox": "danger-full-access"})["thread"]
        assert thread_b["cwd"] == str(other_ws)
        _, done = a.run_turn(thread_a["id"], "Say hi.")
        assert done["params"]["turn"]["status"] == "completed"
        deltas = a.notifications("item/agentMessage/delta", threadId=thread_a["id"])
        assert "".join(d["params"]["delta"] for d in deltas) == "Hi from a."

        # One client's loaded threads are not the other's.
        stolen = b.call(
            "turn/start",
            {"threadId": thread_a["id"], "input": [{"type": "text", "text": "mine now"}]},
        )
        assert "error" in stolen and "not loaded" in stolen["error"]["message"]
        seen_by_b = {m["params"]["thread"]["id"] for m in b.notifications("thread/started")}
        assert seen_by_b == {thread_b["id"]}
        assert not b.notifications("turn/started")

        assert a.close() == 0
        _wait_for(lambda: not Path(f"/proc/{session_a}").exists(), "session a to end")
        # b is still served after a left.
        assert b.result("thread/list", {})["data"] is not None
        assert b.close() == 0
    finally:
        for client in (a, b):
            if client.process.poll() is None:
                client.process.kill()


def test_environment_exit_status_and_a_killed_launcher(scripted_model, tmp_path, runtime):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    # The server takes its log level from the launcher that starts it: debug logs each fork.
    with app_server(home, ws, args=("--attach",), env=_env(runtime, CODEX_LSP_LOG="debug")):
        pass
    log = _server_ready(runtime, home).with_suffix(".log")

    def sessions() -> int:
        return log.read_text().count(": session ")

    # The session reads the launcher's environment: here, another CODEX_HOME.
    other_home, _ = make_home(tmp_path / "other", scripted_model.base_url)
    client = _attached(other_home, ws, runtime)
    assert client.initialize()["codexHome"] == str(other_home.resolve())
    assert _session_pid(client.process)
    assert client.close() == 0

    # A config error is reported on the launcher's stderr with the command's exit status.
    bad = AppServerClient(
        home, ws, args=("--attach", "-c", "model_provider=nope"), env=_env(runtime)
    )
    forked = sessions()
    code = bad.close()
    assert sessions() == forked + 1  # it was served by the server, not in-process
    plain = AppServerClient(home, ws, args=("-c", "model_provider=nope"))
    assert code == plain.close() == 2
    assert "nope" in bad.stderr_path.read_text()

    # Killing the launcher (as an editor would its server) ends the session.
    victim = _attached(home, ws, runtime)
    victim.initialize()
    session = _session_pid(victim.process)
    victim.process.send_signal(signal.SIGKILL)
    victim.process.wait(WAIT_S)
    _wait_for(lambda: not Path(f"/proc/{session}").exists(), "the orphaned session to end")


def test_falls_back_to_an_in_process_server_when_the_runtime_dir_is_not_private(
    scripted_model, tmp_path, runtime
):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    (runtime / "codex-lsp").mkdir()
    (runtime / "codex-lsp").chmod(0o755)
    with app_server(home, ws, args=("--attach",), env=_env(runtime)) as client:
        assert client.result("thread/list", {})["data"] == []
        # Served by the launcher's own process, which became the ordinary app-server.
        assert _writers(client.process) == {client.process.pid}
        assert client.close() == 0
    assert not list((runtime / "codex-lsp").glob("*.sock"))


def test_the_server_leaves_when_idle(scripted_model, tmp_path, runtime):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    env = _env(runtime, **{daemon.IDLE_ENV: "1"})
    with app_server(home, ws, args=("--attach",), env=env) as client:
        assert client.close() == 0
    path = _socket_for(runtime, home)
    _wait_for(lambda: path.exists(), "the attach server")
    _wait_for(lambda: not path.exists(), "the idle server to leave", timeout=20)


def test_a_server_running_changed_code_sends_launchers_to_a_fresh_one(tmp_path):
    module = tmp_path / "module.py"
    module.write_text("x = 1\n")
    server = daemon.AttachServer(str(tmp_path / "s.sock"), 60, SESSION_ENTRY)
    server._sources = {str(module): module.stat().st_mtime_ns}
    assert not server._changed()
    os.utime(module, ns=(0, module.stat().st_mtime_ns + 1_000_000))
    assert server._changed()


def test_the_launcher_runs_with_the_standard_library_only(tmp_path):
    # `python -I -S attach.py` cannot import codex_lsp's dependencies, or even site-packages.
    probe = (
        "import runpy, sys; sys.argv = ['attach']; "
        f"mod = runpy.run_path({str(Path(attach.__file__))!r}); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'codex_lsp', 'pydantic', 'anyio', 'httpx'}))"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-S", "-c", probe], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_a_session_warns_about_a_broken_config_toml_and_stays_up(scripted_model, tmp_path, runtime):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    with app_server(home, ws, args=("--attach",), env=_env(runtime)) as first:
        assert first.close() == 0
    _server_ready(runtime, home)
    config = home / "config.toml"
    good = config.read_text()
    config.write_text(good.replace('sandbox_mode = "workspace-write"', 'sandbox_mode = "nope"'))

    client = _attached(home, ws, runtime)
    try:
        client.initialize()
        assert _session_pid(client.process)  # served by a forked session
        warning = client.wait_method("configWarning")["params"]
        assert warning["summary"] == "Invalid configuration; using defaults."
        assert warning["path"] == str(config)
        assert warning["range"]["start"] == {"line": 4, "column": 16}
        refused = client.call("thread/start", {})
        assert refused["error"]["code"] == INVALID_REQUEST
        assert refused["error"]["message"].startswith(f"failed to load configuration: {config}:4")
        # Fixing the file is enough: the next request reads it again.
        config.write_text(good)
        assert client.result("thread/start", {})["thread"]["cwd"] == str(ws)
        assert client.close() == 0
    finally:
        if client.process.poll() is None:
            client.process.kill()
