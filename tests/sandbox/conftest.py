"""Fixtures of the escape suite: a git workspace and an outside folder off `/tmp`, and the
modes every escape is tried in.

Every test here runs real commands through the real launcher. `mode` runs a test twice:
with the private namespaces (the normal path) and with Landlock and seccomp alone
(`CODEX_LSP_SANDBOX_DISABLE=mountns`, what a system without unprivileged user namespaces
gets). `network` runs it with the network off and with `network_access = true`.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_lsp.sandbox import sandbox_support
from tests.sandbox.helpers import make_repo


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    supported = sys.platform.startswith("linux") and sandbox_support().landlock
    if supported:
        return
    skip = pytest.mark.skip(reason="needs Linux with Landlock")
    for item in items:
        if "tests/sandbox/" in str(item.fspath) and "test_policy" not in str(item.fspath):
            item.add_marker(skip)


@pytest.fixture(params=["mountns", "landlock-only"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=[False, True], ids=["network-off", "network-on"])
def network(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


@pytest.fixture
def ws() -> Iterator[Path]:
    # Outside /tmp, like a real project: with Landlock alone, a workspace under /tmp
    # would make /tmp itself one of the directories that must not gain entries.
    parent = Path(tempfile.mkdtemp(prefix="sandbox-ws-", dir="/var/tmp"))
    yield make_repo(parent / "ws")
    shutil.rmtree(parent, ignore_errors=True)


@pytest.fixture
def outside() -> Iterator[Path]:
    # Not under /tmp, which the policy makes writable.
    path = Path(tempfile.mkdtemp(prefix="sandbox-outside-", dir="/var/tmp"))
    (path / "victim.txt").write_text("original\n")
    yield path
    shutil.rmtree(path, ignore_errors=True)
