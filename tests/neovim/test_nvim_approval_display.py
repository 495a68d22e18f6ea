"""Neovim's approval window with a command that hides behind control characters.

The suite (`editors/neovim/tests/approval_display_spec.lua`) answers a command approval whose
command carries a carriage return, ANSI escapes and a right-to-left override and is wider than
the screen; while the prompt is open the screen shows the whole command wrapped, every hidden
character by name, and that approving runs it outside the sandbox.
"""

from __future__ import annotations

from tests.support.nvim import run_suite


def test_the_approval_window_shows_the_whole_command_with_its_controls_named(tmp_path):
    home = tmp_path / "codex-home"
    home.mkdir()

    run = run_suite("approval_display", tmp_path, codex_home=home, screen=True)

    assert run.returncode == 0, run.report()
    assert "PASS approval display" in run.stdout
