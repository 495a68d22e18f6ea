"""An editor that goes away mid-turn: its session ends at once and lets go of its threads.

The client starts a turn whose model stream is long, then vanishes (its pipes close, as when
the editor is killed) while deltas are still being written. Whatever serves it, the server
process itself (cold) or a session forked by the warm per-user server (`--attach`), must end
within a bounded wait rather than hang on the broken output; and a new server must be able to
resume the thread, which it cannot while the old process still holds it open for writing.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from codex_lsp.appserver import daemon
from tests.robustness.clients import AppServerDoor, Door, LspDoor
from tests.support.scripted_builders import slow_text_response
from tests.support.scripted_model import ScriptedModelServer
from tests.support.warm import warm_runtime

# Generous: the session ends well within a second; a loaded machine must not fail the test.
GONE_WITHIN_S = 10.0
DOORS: dict[str, Callable[..., Door]] = {"app-server": AppServerDoor, "serve": LspDoor}


def _holders(door: Door) -> set[int]:
    """The processes holding the client's output pipe: whoever serves it (and the launcher)."""
    assert door.process.stdout is not None
    pipe = os.readlink(f"/proc/self/fd/{door.process.stdout.fileno()}")
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


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except OSError:
        return True


@pytest.fixture(params=["cold", "warm"])
def start(
    request: pytest.FixtureRequest, name: str, home: Path, ws: Path
) -> Iterator[Callable[[], Door]]:
    """Starts an initialized client of the door `name`, cold or from the warm server."""
    started: list[Door] = []
    with warm_runtime() as runtime:
        env = {"XDG_RUNTIME_DIR": str(runtime), daemon.IDLE_ENV: "60"}
        args = ("--attach",) if request.param == "warm" else ()

        def open_door() -> Door:
            door = DOORS[name](home, ws, *args, env=env)
            started.append(door)
            door.initialize()
            return door

        try:
            if request.param == "warm":
                # The first launcher serves its client itself and starts the warm server;
                # sessions are forked from that for the later ones.
                open_door().close()
                _wait_for_log(runtime, "preloaded")
            yield open_door
        finally:
            for door in started:
                door.process.kill()
                door.close()


def _wait_for_log(runtime: Path, text: str) -> None:
    deadline = time.monotonic() + 60
    while not any(text in log.read_text() for log in runtime.glob("codex-lsp/*.log")):
        assert time.monotonic() < deadline, f"the warm server never logged {text!r}"
        time.sleep(0.05)


@pytest.mark.parametrize("name", sorted(DOORS))
def test_an_editor_that_vanishes_mid_turn_ends_its_session_and_frees_its_thread(
    name: str, start: Callable[[], Door], scripted_model: ScriptedModelServer, ws: Path
) -> None:
    client = start()
    thread = client.result("thread/start", {"cwd": str(ws)})["thread"]["id"]
    scripted_model.enqueue(slow_text_response())
    client.request("turn/start", {"threadId": thread, "input": [{"type": "text", "text": "go"}]})
    client.notification("item/agentMessage/delta")
    servers = _holders(client) - {client.process.pid} or {client.process.pid}
    # The editor vanishes while the deltas keep coming: its end of the output pipe closes,
    # so the next write fails. Its end of the input may linger (a child of the editor's may
    # hold it): the session must not wait for that.
    assert client.process.stdout is not None
    client.process.stdout.close()
    deadline = time.monotonic() + GONE_WITHIN_S
    while not all(_gone(pid) for pid in servers):
        assert time.monotonic() < deadline, f"{name} still serves a vanished editor"
        time.sleep(0.05)
    # A new editor resumes the thread: nobody holds it open any more.
    again = start()
    resumed = again.call("thread/resume", {"threadId": thread})
    assert "result" in resumed, resumed
    assert resumed["result"]["thread"]["id"] == thread
