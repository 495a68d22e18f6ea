"""Fixtures of the language-server tests: the user's Codex home and the workspace they open.

A test module that needs another home or workspace defines its own `home` or `ws` fixture,
which takes the place of these.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.engine import make_git_repo, write_config
from tests.support.scripted_model import ScriptedModelServer


@pytest.fixture
def home(tmp_path: Path, scripted_model: ScriptedModelServer) -> Path:
    """A Codex home whose model is the scripted server, with approvals on request and the
    sandbox writing to the workspace (so patches inside the workspace need no approval)."""
    home = tmp_path / "home"
    write_config(home, scripted_model.base_url)
    return home


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A git repository with one committed file, `app.py`."""
    return make_git_repo(tmp_path / "ws", {"app.py": 'print("hi")\n'})
