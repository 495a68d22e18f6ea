"""The two ACP agents the comparison drives, and what it compares of their streams.

`ours` is `codex-lsp acp`; `adapter` is the official `@agentclientprotocol/codex-acp` (the
version `scripts/setup-editors` installs from `tests/acp/peer`) over the real codex 0.171 of
the conformance tests. Each run gets its own scripted model, a `CODEX_HOME` outside the
system temporary directory and the conformance tests' config, read by both engines.

A stream is compared by its shape: the order of its update kinds (a run of chunks of one
kind counts once, as the two split text differently), the kind and status of each tool call,
and the key paths each kind of update carries.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest

from tests.conformance.servers import CACHE, config_toml, peer_binary, scratch_root
from tests.support.acp_client import RecordingClient, acp_agent, agent_env
from tests.support.scripted_model import ScriptedModelServer

REPO_ROOT = Path(__file__).resolve().parents[2]
ADAPTER = (
    CACHE
    / "codex-acp-peer"
    / "node_modules"
    / "@agentclientprotocol"
    / "codex-acp"
    / "dist"
    / "index.js"
)
NODE = Path(sys.executable).parent / "node"
HINT = "run scripts/setup-editors: it installs the codex ACP adapter from npm"

Side = Literal["ours", "adapter"]

# The same preset under each agent's name: workspace writes, approval asked for more.
AGENT_MODE = {"ours": "agent", "adapter": "workspace-write"}

CHUNKS = {"agent_message_chunk", "agent_thought_chunk", "user_message_chunk"}


def adapter_command() -> list[str]:
    if not ADAPTER.is_file() or not os.access(NODE, os.X_OK):
        pytest.fail(f"the codex ACP adapter is missing at {ADAPTER}: {HINT}")
    return [str(NODE), str(ADAPTER)]


@dataclass
class Run:
    side: Side
    home: Path
    ws: Path
    model: ScriptedModelServer

    def command(self) -> list[str]:
        if self.side == "ours":
            return [sys.executable, "-m", "codex_lsp", "acp"]
        return adapter_command()

    def env(self, **extra: str) -> dict[str, str]:
        if self.side == "ours":
            return agent_env(self.home, **extra)
        return agent_env(
            self.home, CODEX_PATH=str(peer_binary()), MODEL_PROVIDER="scripted", **extra
        )

    @asynccontextmanager
    async def agent(self, client: RecordingClient, **kwargs: Any) -> AsyncIterator[Any]:
        async with acp_agent(
            self.home, self.ws, client, command=self.command(), env=self.env(), **kwargs
        ) as conn:
            yield conn


@asynccontextmanager
async def new_run(side: Side) -> AsyncIterator[Run]:
    with ScriptedModelServer() as model, scratch_root(f"acp-{side}") as root:
        home, ws = root / "home", root / "ws"
        home.mkdir()
        ws.mkdir()
        (home / "config.toml").write_text(config_toml(model.base_url))
        yield Run(side, home, ws, model)


def _paths(value: Any, prefix: str) -> set[str]:
    if isinstance(value, dict):
        found = set()
        for key, inner in value.items():
            if key == "_meta":
                continue
            path = f"{prefix}.{key}" if prefix else key
            found.add(path)
            found |= _paths(inner, path)
        return found
    if isinstance(value, list):
        return set().union(*(_paths(inner, f"{prefix}[]") for inner in value)) if value else set()
    return set()


@dataclass(frozen=True)
class Shape:
    """What is compared of one session's stream."""

    kinds: tuple[str, ...]
    tool_calls: tuple[tuple[str, str, str], ...]  # (kind, first status, last status)
    paths: frozenset[str]  # "<update kind>:<key path>"


def shape(updates: list[dict[str, Any]], ignored: set[str]) -> Shape:
    kinds: list[str] = []
    calls: dict[str, list[str]] = {}
    kind_of: dict[str, str] = {}
    paths: set[str] = set()
    for update in updates:
        kind = update["sessionUpdate"]
        if kind in ignored:
            continue
        if not (kinds and kinds[-1] == kind and kind in CHUNKS):
            kinds.append(kind)
        if kind in ("tool_call", "tool_call_update"):
            call_id = update["toolCallId"]
            kind_of.setdefault(call_id, update.get("kind", "?"))
            if "status" in update:
                calls.setdefault(call_id, []).append(update["status"])
        paths |= {f"{kind}:{path}" for path in _paths(update, "")}
    tool_calls = tuple(
        (kind_of[call_id], statuses[0], statuses[-1]) for call_id, statuses in calls.items()
    )
    return Shape(tuple(kinds), tool_calls, frozenset(paths))
