"""The servers compared, and one run of a scenario against one of them.

`real` is the `codex app-server` 0.171.0 that `scripts/setup-editors` installs from npm;
`ours` is `codex-lsp app-server`; `ours-lsp` is `codex-lsp serve`, spoken to through the
`codex/` prefix. Each run gets its own scripted model server, a `CODEX_HOME` outside the
system temporary directory (the real binary refuses to set up its helper aliases in there),
and the same config: the scripted provider (with a token command, so the real server also
reads its `/models`) and the plugin, apps and remote-plugin features off, so neither server
reaches past loopback.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pytest

from tests.conformance.wire import Entry, WireClient
from tests.support.scripted_model import ScriptedModelServer

REPO = Path(__file__).resolve().parents[2]
CACHE = Path(
    os.environ.get("CODEX_LSP_EDITORS_CACHE", Path.home() / ".cache" / "codex-lsp" / "editors")
)
PEER_BIN = (
    CACHE
    / "codex-peer"
    / "node_modules"
    / "@openai"
    / "codex-linux-x64"
    / "vendor"
    / "x86_64-unknown-linux-musl"
    / "bin"
    / "codex"
)
PEER_HINT = "run scripts/setup-editors: it installs the real codex from npm"
CLIENT_INFO = {"name": "conformance", "title": "Conformance", "version": "1.0.0"}
MODEL = "gpt-5.5"

Side = Literal["real", "ours", "ours-lsp"]


def peer_binary() -> Path:
    """The real `codex` binary, or a failed test that says how to install it."""
    if not os.access(PEER_BIN, os.X_OK):
        pytest.fail(f"the real codex binary is missing at {PEER_BIN}: {PEER_HINT}")
    return PEER_BIN


def config_toml(
    base_url: str, *, model: str = MODEL, extra: str = "", features: dict[str, bool] | None = None
) -> str:
    """The config both servers read; `extra` holds top-level keys, `features` more switches."""
    switches = {"plugins": False, "apps": False, "remote_plugin": False, **(features or {})}
    return (
        f'model = "{model}"\n'
        'model_provider = "scripted"\n'
        f"{extra}\n"
        "[features]\n"
        + "".join(f"{name} = {str(on).lower()}\n" for name, on in switches.items())
        + "\n"
        "[model_providers.scripted]\n"
        'name = "Scripted"\n'
        f'base_url = "{base_url}"\n'
        'wire_api = "responses"\n'
        "request_max_retries = 1\n"
        "stream_max_retries = 1\n"
        "stream_idle_timeout_ms = 20000\n"
        "\n"
        "[model_providers.scripted.auth]\n"
        'command = "echo"\n'
        'args = ["scripted-token"]\n'
    )


def _argv(side: Side) -> list[str]:
    if side == "real":
        return [str(peer_binary()), "app-server"]
    if side == "ours":
        return [sys.executable, "-m", "codex_lsp", "app-server"]
    return [sys.executable, "-m", "codex_lsp", "serve"]


@contextmanager
def scratch_root(name: str) -> Iterator[Path]:
    """A directory for one run's CODEX_HOME, in the tooling cache (not the system temp dir),
    removed afterwards."""
    base = CACHE / "conformance-runs"
    base.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=base))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class Run:
    """One scenario against one server: its model, home, workspace and clients (one per
    server process: a restart starts a new one on the same home)."""

    side: Side
    home: Path
    ws: Path
    model: ScriptedModelServer
    clients: list[WireClient] = field(default_factory=list)

    @property
    def client(self) -> WireClient:
        return self.clients[-1]

    experimental_api: bool = False

    def start(self) -> WireClient:
        # HOME is the run's empty CODEX_HOME: both servers run commands in the user's login
        # shell and read per-user files (skills, shell profiles) from HOME, and the machine's
        # own (version managers, their lock files, its paths) must not reach the transcripts.
        env = dict(os.environ, CODEX_HOME=str(self.home), HOME=str(self.home), PYTHONPATH=str(REPO))
        for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY"):
            env.pop(name, None)
        client = WireClient(
            _argv(self.side),
            cwd=self.ws,
            env=env,
            stderr_path=self.home.parent / f"{self.side}.stderr",
            framing="lsp" if self.side == "ours-lsp" else "lines",
        )
        self.clients.append(client)
        if self.side == "ours-lsp":
            client.lsp_handshake({"experimental": {"codex": {"richApprovals": True}}})
        params: dict[str, Any] = {"clientInfo": CLIENT_INFO}
        if self.experimental_api:
            params["capabilities"] = {"experimentalApi": True}
        client.call("initialize", params)
        if self.side != "ours-lsp":
            client.notify("initialized")
        return client

    def restart(self) -> WireClient:
        self.client.close()
        return self.start()

    def close(self) -> None:
        for client in self.clients:
            if client.process.poll() is None:
                client.close()

    @property
    def transcript(self) -> list[Entry]:
        return [entry for client in self.clients for entry in client.seen()]

    def stderr(self) -> str:
        return self.clients[-1].stderr() if self.clients else ""


@contextmanager
def run_on(
    side: Side,
    tmp_path: Path,
    *,
    extra_config: str = "",
    features: dict[str, bool] | None = None,
    experimental_api: bool = False,
) -> Iterator[Run]:
    """A started server of `side` with a fresh scripted model, home and workspace."""
    with scratch_root(side) as root, ScriptedModelServer() as model:
        home = root / "home"
        home.mkdir()
        ws = tmp_path / side / "ws"
        ws.mkdir(parents=True)
        config = config_toml(model.base_url, extra=extra_config, features=features)
        (home / "config.toml").write_text(config)
        run = Run(side, home, ws.resolve(), model, experimental_api=experimental_api)
        try:
            run.start()
            yield run
        finally:
            run.close()


def thread_start_params(run: Run, **overrides: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"cwd": str(run.ws), "sandbox": "danger-full-access"}
    params.update(overrides)
    return params
