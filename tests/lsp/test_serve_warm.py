"""`codex-lsp serve` from the warm per-user server, as the editor shims start it.

The launcher is `python -I -S .../attach.py serve`. Each test has a runtime directory of its own
(so a server of its own): the first launcher finds none, starts it and serves its editor
in-process; later launchers are served by sessions forked from it, each with the launcher's
cwd and environment, threads of its own, and an end when the launcher goes away.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from codex_lsp.appserver import attach, daemon
from tests.support.engine import make_git_repo, write_config
from tests.support.lsp_process import LspProcess
from tests.support.scripted_builders import text_response
from tests.support.warm import warm_runtime

WAIT_S = 60.0
LAUNCHER = attach.launcher(["serve"])
# What the launcher must not import before its session is forked: the engine, the language
# server's libraries, the event loop.
HEAVY = ("codex_lsp", "pygls", "lsprotocol", "cattrs", "attrs", "pydantic", "anyio", "httpx")
HEAVY_STDLIB = ("asyncio", "json", "logging", "argparse", "typing", "dataclasses")


def _wait_for(predicate: Callable[[], bool], what: str, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.fixture
def runtime() -> Iterator[Path]:
    with warm_runtime() as path:
        yield path


@pytest.fixture
def home(tmp_path: Path, scripted_model) -> Path:
    home = tmp_path / "home"
    write_config(home, scripted_model.base_url, approval_policy="never")
    return home


def _env(home: Path, runtime: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "CODEX_HOME": str(home),
        "XDG_RUNTIME_DIR": str(runtime),
        daemon.IDLE_ENV: "60",
        **extra,
    }


def _launch(
    home: Path, cwd: Path, runtime: Path, argv: list[str] = LAUNCHER, **extra: str
) -> LspProcess:
    return LspProcess(argv, env=_env(home, runtime, **extra), cwd=cwd)


def _log(runtime: Path) -> Path:
    logs = list(runtime.glob("codex-lsp/*.log"))
    return logs[0] if logs else runtime / "none.log"


def _server_ready(runtime: Path) -> Path:
    """Wait until the server the first launcher started has done its imports; its log."""
    _wait_for(
        lambda: "preloaded" in (_log(runtime).read_text() if _log(runtime).exists() else ""),
        "the warm server",
    )
    return _log(runtime)


def _holders(launcher: LspProcess) -> set[int]:
    """The processes holding the launcher's stdout pipe (on any descriptor: `serve` moves the
    protocol's copy off fd 1): the launcher, and whoever serves it."""
    assert launcher.process.stdout is not None
    pipe = os.readlink(f"/proc/self/fd/{launcher.process.stdout.fileno()}")  # our end of it
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if any(os.readlink(fd) == pipe for fd in (entry / "fd").iterdir()):
                found.add(int(entry.name))
        except OSError:
            continue
    return found


def _session_pid(launcher: LspProcess) -> int:
    """The one other process serving the launcher's editor: its session. /proc is read entry by
    entry while processes come and go, so look again until exactly one shows up."""
    found: set[int] = set()

    def one() -> bool:
        found.clear()
        found.update(_holders(launcher) - {launcher.process.pid})
        return len(found) == 1

    _wait_for(one, "exactly one session serving the launcher")
    return found.pop()


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except OSError:
        return True


def _first_start(home: Path, ws: Path, runtime: Path) -> None:
    """The first launcher: no server yet, so it starts one and serves its editor itself."""
    first = _launch(home, ws, runtime)
    try:
        first.initialize()
        assert _holders(first) == {first.process.pid}  # served in-process, no session
        assert first.shutdown() == 0
    finally:
        first.kill()
    _server_ready(runtime)


def test_each_editor_gets_a_forked_session_with_its_own_cwd_env_and_threads(
    scripted_model, home, ws, tmp_path, runtime
):
    _first_start(home, ws, runtime)
    path = Path(attach.socket_path(_env(home, runtime)))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700

    other = make_git_repo(tmp_path / "other", {"b.py": "x = 1\n"})
    other_home = tmp_path / "other-home"
    write_config(other_home, scripted_model.base_url, approval_policy="never")
    a = _launch(home, ws, runtime)
    b = _launch(other_home, other, runtime)
    try:
        a.initialize()
        b.initialize()
        session_a, session_b = _session_pid(a), _session_pid(b)
        assert len({session_a, session_b, a.process.pid, b.process.pid}) == 4

        # Each session reads its own launcher's environment (CODEX_HOME) ...
        assert a.result("codex/initialize", {"clientInfo": {"name": "a", "version": "1"}})[
            "codexHome"
        ] == str(home.resolve())
        assert b.result("codex/initialize", {"clientInfo": {"name": "b", "version": "1"}})[
            "codexHome"
        ] == str(other_home.resolve())
        # ... and runs in its launcher's directory: a thread started without a cwd is there.
        thread_a = a.result("codex/thread/start", {})["thread"]
        thread_b = b.result("codex/thread/start", {})["thread"]
        assert (thread_a["cwd"], thread_b["cwd"]) == (str(ws), str(other))

        scripted_model.enqueue(text_response("Hi from a warm session."))
        a.result(
            "codex/turn/start",
            {"threadId": thread_a["id"], "input": [{"type": "text", "text": "hello"}]},
        )
        done = a.until(lambda m: m.get("method") == "codex/turn/completed")
        assert done["params"]["turn"]["status"] == "completed"
        deltas = a.notifications("codex/item/agentMessage/delta")
        assert "".join(d["delta"] for d in deltas) == "Hi from a warm session."

        # One editor's threads are not the other's.
        stolen = b.request(
            "codex/turn/start",
            {"threadId": thread_a["id"], "input": [{"type": "text", "text": "mine now"}]},
        )
        assert "not loaded" in stolen["error"]["message"]

        # `shutdown` and `exit` end the session; its exit status is the launcher's.
        assert a.shutdown() == 0
        _wait_for(lambda: _gone(session_a), "session a to end")
        assert b.result("codex/thread/list", {})["data"] is not None
        # `exit` without `shutdown` is status 1, as for a server started cold.
        b.notify("exit")
        assert b.wait() == 1
    finally:
        a.kill()
        b.kill()


def test_a_killed_launcher_ends_its_session(home, ws, runtime):
    _first_start(home, ws, runtime)
    victim = _launch(home, ws, runtime)
    try:
        victim.initialize()
        session = _session_pid(victim)
    finally:
        victim.kill()  # SIGKILL, as an editor that gives up on its server
    _wait_for(lambda: _gone(session), "the orphaned session to end")


def test_a_runtime_dir_that_is_not_private_means_a_cold_start(scripted_model, home, ws, runtime):
    (runtime / "codex-lsp").mkdir()
    (runtime / "codex-lsp").chmod(0o755)
    scripted_model.enqueue(text_response("Hi from a cold start."))
    client = _launch(home, ws, runtime)
    try:
        client.initialize()
        thread = client.result("codex/thread/start", {})["thread"]
        client.result(
            "codex/turn/start",
            {"threadId": thread["id"], "input": [{"type": "text", "text": "hello"}]},
        )
        client.until(lambda m: m.get("method") == "codex/turn/completed")
        # The launcher became the ordinary server: nobody else holds its pipe.
        assert _holders(client) == {client.process.pid}
        assert client.shutdown() == 0
    finally:
        client.kill()
    assert not list((runtime / "codex-lsp").glob("*.sock"))
    assert not list((runtime / "codex-lsp").glob("*.log"))


def test_the_warm_server_leaves_when_idle(home, ws, runtime):
    client = _launch(home, ws, runtime, **{daemon.IDLE_ENV: "1"})
    try:
        client.initialize()
        assert client.shutdown() == 0
    finally:
        client.kill()
    # The log outlives the server (which may come and go quickly): it says what happened.
    _wait_for(lambda: _log(runtime).exists(), "the warm server's log")
    _wait_for(lambda: "leaving" in _log(runtime).read_text(), "the idle server to leave")
    text = _log(runtime).read_text()
    assert " serving " in text and "idle for" in text, text
    assert not Path(attach.socket_path(_env(home, runtime))).exists()


def test_the_launcher_imports_nothing_heavy_before_its_session_is_forked(home, ws, runtime):
    _first_start(home, ws, runtime)
    stderr = runtime / "launcher.stderr"
    argv = [LAUNCHER[0], "-X", "importtime", *LAUNCHER[1:]]
    client = LspProcess(argv, env=_env(home, runtime), cwd=ws, stderr=stderr)
    try:
        client.initialize()
        _session_pid(client)  # served by a session forked from the warm server
        assert client.shutdown() == 0
    finally:
        client.kill()
    imported = {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.read_text().splitlines()
        if line.startswith("import time:") and "|" in line
    } - {"package"}
    assert imported, "no -X importtime output from the launcher"
    heavy = {name for name in imported if name.split(".")[0] in HEAVY + HEAVY_STDLIB}
    assert not heavy, f"the launcher imported {sorted(heavy)}"


def test_print_launcher_and_serve_attach(home, ws, runtime):
    printed = subprocess.run(
        [sys.executable, "-m", "codex_lsp", "serve", "--print-launcher", "-p", "work"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(printed.stdout) == [*LAUNCHER, "-p", "work"]

    _first_start(home, ws, runtime)
    client = _launch(
        home, ws, runtime, argv=[sys.executable, "-m", "codex_lsp", "serve", "--attach"]
    )
    try:
        client.initialize()
        _session_pid(client)  # a forked session, not this process
        assert client.shutdown() == 0
    finally:
        client.kill()


def test_a_stale_socket_gets_a_fresh_server(home, ws, runtime):
    """A socket file whose server is gone (a crash, a reboot of the tmpfs' contents kept): the
    launcher serves its editor in-process and starts a server that takes the path over."""
    path = Path(attach.socket_path(_env(home, runtime)))
    path.parent.mkdir(mode=0o700)
    with socket.socket(socket.AF_UNIX) as dead:
        dead.bind(str(path))  # bound, never listening: connect() is refused
    client = _launch(home, ws, runtime)
    try:
        client.initialize()
        assert client.shutdown() == 0
    finally:
        client.kill()
    _server_ready(runtime)
    later = _launch(home, ws, runtime)
    try:
        later.initialize()
        _session_pid(later)
        assert later.shutdown() == 0
    finally:
        later.kill()


def test_a_session_warns_about_a_broken_config_toml_and_stays_up(home, ws, runtime):
    _first_start(home, ws, runtime)
    config = home / "config.toml"
    config.write_text(config.read_text() + "\nthis is = = broken\n")
    editor = _launch(home, ws, runtime)
    try:
        editor.initialize()
        assert _session_pid(editor)  # served by a forked session
        editor.until(lambda m: m.get("method") == "codex/configWarning")
        [warning] = editor.notifications("codex/configWarning")
        assert warning["summary"] == "Invalid configuration; using defaults."
        assert warning["path"] == str(config)
        line = len(config.read_text().splitlines())
        assert warning["range"]["start"] == {"line": line, "column": 6}
        refused = editor.request("codex/thread/start", {})
        assert refused["error"]["code"] == -32600
        assert refused["error"]["message"].startswith("failed to load configuration: ")
        assert editor.shutdown() == 0
    finally:
        editor.kill()
