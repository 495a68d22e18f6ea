"""Journeys: the Neovim plugin starts the server warm by default, and cold when it cannot.

Warm: the client runs `python -I -S .../attach.py serve` (what `codex-lsp serve --print-launcher`
names); its first start launches the per-user server, and a later start is served by a session
forked from it. Cold: a launcher that exits at once makes the plugin warn, forget the launcher,
and start `cmd` itself; the user's message is answered either way.
"""

from __future__ import annotations

import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.nvim import run_suite
from tests.support.nvim_journeys import check, user_texts, workspace
from tests.support.scripted_builders import text_response
from tests.support.warm import warm_runtime


@pytest.fixture
def runtime() -> Iterator[Path]:
    with warm_runtime() as path:
        yield path


def test_the_server_starts_warm_by_default(scripted_model, tmp_path, runtime):
    home, ws = workspace(tmp_path, scripted_model)
    scripted_model.enqueue(text_response("Hello from a warm start."), when="say hello")
    env = {
        "XDG_RUNTIME_DIR": str(runtime),
        "CODEX_NVIM_RUNTIME": str(runtime),
        "CODEX_LSP_LOG": "debug",  # the per-user server logs each session it forks
    }

    check(run_suite("warm_start", tmp_path, codex_home=home, workspace=ws, env=env))

    (log,) = runtime.glob("codex-lsp/*.log")
    assert ": session " in log.read_text(), "the second start was not a forked session"
    assert "say hello" in user_texts(scripted_model.requests[-1].body)[-1]


def test_a_launcher_that_fails_falls_back_to_a_cold_start(scripted_model, tmp_path, runtime):
    home, ws = workspace(tmp_path, scripted_model)
    scripted_model.enqueue(text_response("Hello from a cold start."), when="say hello")
    # `codex-lsp` as an installation whose warm launcher cannot start: it names one that exits.
    fake = tmp_path / "codex-lsp"
    fake.write_text(
        "#!/bin/sh\n"
        'for arg; do [ "$arg" = --print-launcher ] && '
        f'printf \'["/bin/sh", "-c", "exit 3", "{fake}", "serve"]\\n\' && exit 0; done\n'
        f'exec {sys.executable} -m codex_lsp "$@"\n'
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    env = {"XDG_RUNTIME_DIR": str(runtime)}

    run = run_suite(
        "warm_fallback",
        tmp_path,
        codex_home=home,
        workspace=ws,
        env=env,
        server=[str(fake), "serve"],
    )

    check(run)
    assert "say hello" in user_texts(scripted_model.requests[-1].body)[-1]
