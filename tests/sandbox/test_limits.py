"""Escape 10: resource use.

A fork bomb and a 2 GB allocation ran unbounded. Each command now has limits on its tasks
and its memory (`[sandbox_linux] max_processes`, `max_memory_mb`), and the engine keeps
answering while a command runs into them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codex_lsp.sandbox import ResourceLimits, SandboxOptions
from codex_lsp.sandbox.options import DEFAULT_MAX_MEMORY_MB, DEFAULT_MAX_PROCESSES
from codex_lsp.store.config_sandbox import SandboxLinux
from tests.sandbox.helpers import PY, run

# Forks children that wait on a pipe until told to go, and counts how many it got.
FORKER = r"""
import os, sys
cap = int(sys.argv[1])
r, w = os.pipe()
count = 0
try:
    while count < cap:
        if os.fork() == 0:
            os.close(w)
            os.read(r, 1)
            os._exit(0)
        count += 1
except OSError as exc:
    print("fork refused:", exc.strerror)
print("forked", count)
os.close(w)
"""
ALLOCATE = "data = bytearray(int(__import__('sys').argv[1]) * 1024 * 1024); print('allocated')"


def _forked(output: str) -> int:
    return int(output.split("forked ")[1].split()[0])


def test_the_config_defaults_are_the_sandboxs() -> None:
    assert SandboxLinux().max_processes == DEFAULT_MAX_PROCESSES
    assert SandboxLinux().max_memory_mb == DEFAULT_MAX_MEMORY_MB


def test_a_fork_bomb_is_bounded_by_default(ws: Path, mode: str) -> None:
    cap = DEFAULT_MAX_PROCESSES + 500
    result = run([PY, "-c", FORKER, str(cap)], ws, mode)
    assert "fork refused: Resource temporarily unavailable" in result.output, result.output
    assert _forked(result.output) < DEFAULT_MAX_PROCESSES


def test_a_2gb_allocation_is_bounded_by_default(ws: Path, mode: str) -> None:
    result = run([PY, "-c", ALLOCATE, "2048"], ws, mode)
    assert "allocated" not in result.output
    # MemoryError where the limit is per process; killed where a cgroup holds the tree.
    assert "MemoryError" in result.output or result.code in (-9, 137), result.output


@pytest.mark.parametrize("mode", ["mountns"])
def test_configured_limits(ws: Path, mode: str) -> None:
    options = SandboxOptions(limits=ResourceLimits(max_processes=400, max_memory_mb=256))
    forks = run([PY, "-c", FORKER, "1000"], ws, mode, options=options)
    assert _forked(forks.output) < 400, forks.output
    memory = run([PY, "-c", ALLOCATE, "512"], ws, mode, options=options)
    assert "allocated" not in memory.output
    small = run([PY, "-c", ALLOCATE, "64"], ws, mode, options=options)
    assert "allocated" in small.output, small.output


def test_zero_means_no_limit(ws: Path) -> None:
    options = SandboxOptions(limits=ResourceLimits(max_processes=0, max_memory_mb=0))
    result = run([PY, "-c", ALLOCATE, "2100"], ws, options=options)
    assert "allocated" in result.output, result.output
