"""How the plugin starts its server: as the lsp-config "codex" with vim.lsp.enable on Neovim
0.11, and with vim.lsp.start where those are missing (older versions)."""

from __future__ import annotations

from tests.support.nvim import run_suite
from tests.support.nvim_journeys import check, user_texts, workspace
from tests.support.scripted_builders import text_response


def test_neovim_starts_the_lsp_config_with_the_users_additions(scripted_model, tmp_path):
    home, ws = workspace(tmp_path, scripted_model)
    scripted_model.enqueue(text_response("Hello from the config."))

    check(run_suite("lsp_config", tmp_path, codex_home=home, workspace=ws))

    assert "hello" in user_texts(scripted_model.requests[-1].body)


def test_without_the_lsp_config_api_the_plugin_starts_the_server(scripted_model, tmp_path):
    home, ws = workspace(tmp_path, scripted_model)
    scripted_model.enqueue(text_response("Hello from the start."))

    check(run_suite("lsp_start", tmp_path, codex_home=home, workspace=ws))

    assert "hello" in user_texts(scripted_model.requests[-1].body)
