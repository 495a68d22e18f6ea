"""Fixtures for the robustness suite: both doors, started for real, fed hostile input.

`door` runs a test once against `codex-lsp app-server` and once against `codex-lsp serve`,
initialized, with CODEX_HOME pointing at the scripted model server.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.robustness.clients import DOORS, Door
from tests.support.engine import make_git_repo, write_config
from tests.support.scripted_model import ScriptedModelServer


@pytest.fixture
def home(tmp_path: Path, scripted_model: ScriptedModelServer) -> Path:
    home = tmp_path / "home"
    # Streams paused by backpressure must not count as a stalled model.
    write_config(home, scripted_model.base_url, stream_idle_timeout_ms=120_000)
    return home


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_git_repo(tmp_path / "ws", {"app.py": 'print("hi")\n'})


@pytest.fixture(params=sorted(DOORS))
def door(request: pytest.FixtureRequest, home: Path, ws: Path) -> Iterator[Door]:
    client = DOORS[request.param](home, ws)
    try:
        client.initialize()
        yield client
    finally:
        client.close()


@pytest.fixture(params=sorted(DOORS))
def raw_door(request: pytest.FixtureRequest, home: Path, ws: Path) -> Iterator[Door]:
    """A door just started: nothing sent to it yet, not even `initialize`."""
    client = DOORS[request.param](home, ws)
    try:
        yield client
    finally:
        client.close()


@pytest.fixture(scope="module")
def shared_model() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as server:
        yield server


def _started(kind: str, root: Path, model: ScriptedModelServer) -> Door:
    home = root / "home"
    write_config(home, model.base_url)
    client = DOORS[kind](home, make_git_repo(root / "ws"))
    client.initialize()
    return client


@pytest.fixture(scope="module", params=sorted(DOORS))
def shared_door(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    shared_model: ScriptedModelServer,
) -> Iterator[Door]:
    """One server per door for a whole module: every bad input in turn, and it must still
    be serving after each."""
    client = _started(request.param, tmp_path_factory.mktemp(request.param), shared_model)
    yield client
    client.close()


@pytest.fixture(scope="module")
def shared_lsp(
    tmp_path_factory: pytest.TempPathFactory, shared_model: ScriptedModelServer
) -> Iterator[Door]:
    """One `codex-lsp serve` for a whole module."""
    client = _started("lsp", tmp_path_factory.mktemp("lsp"), shared_model)
    yield client
    client.close()
