"""Shared pytest fixtures."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# `tests.support` and `codex_lsp` import from the repository root, whichever way pytest was run.
_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from tests.support.scripted_model import ScriptedModelServer  # noqa: E402


@pytest.fixture
def scripted_model() -> Iterator[ScriptedModelServer]:
    """A running scripted model server; `.base_url` ends in `/v1`."""
    with ScriptedModelServer() as server:
        yield server
