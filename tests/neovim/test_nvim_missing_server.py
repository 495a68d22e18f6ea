"""Journey: the server is not installed. Each command that needs it says so, every time."""

from __future__ import annotations

from tests.support.nvim import run_suite
from tests.support.nvim_journeys import check, workspace


def test_every_command_reports_the_missing_server(scripted_model, tmp_path):
    home, ws = workspace(tmp_path, scripted_model)
    check(run_suite("missing_server", tmp_path, codex_home=home, workspace=ws))
