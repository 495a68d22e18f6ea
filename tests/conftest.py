"""Shared pytest fixtures."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# `tests.support` and `codex_lsp` import from the repository root, whichever way pytest was run.
_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from tests.support.scripted_model import ScriptedModelServer  # noqa: E402

# Commands the engine runs go through the user's login shell ($SHELL -lc). Under test that is
# plain sh, whose login profile does not read the machine's ~/.bashrc: a version manager's
# start-up there (pyenv's rehash waits a minute on a lock a killed shell left behind) is the
# test machine's, not the product's. Tests that need a given shell name it.
os.environ["SHELL"] = "/bin/sh"


@pytest.fixture
def scripted_model() -> Iterator[ScriptedModelServer]:
    """A running scripted model server; `.base_url` ends in `/v1`."""
    with ScriptedModelServer() as server:
        yield server
