"""`codex-lsp features list|enable|disable` and `codex-lsp completion`, run as a user runs them."""

from __future__ import annotations

import subprocess

from tests.support.cli import run_cli


def _state(home, name: str) -> str:
    listed = run_cli(home, "features", "list")
    assert listed.returncode == 0, listed.stderr
    [line] = [line for line in listed.stdout.splitlines() if line.split()[0] == name]
    return line.split()[-1]


def test_features_enable_and_disable_write_config_and_list_shows_them(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('# mine\nmodel = "gpt-5.4"\n')

    assert _state(home, "subagent_tools") == "false"
    assert run_cli(home, "features", "enable", "subagent_tools").returncode == 0
    assert _state(home, "subagent_tools") == "true"
    assert run_cli(home, "features", "disable", "request_user_input").returncode == 0
    assert _state(home, "request_user_input") == "false"
    text = (home / "config.toml").read_text()
    assert text.startswith("# mine\n") and "subagent_tools = true" in text

    unknown = run_cli(home, "features", "enable", "no_such_flag")
    assert unknown.returncode == 2 and "subagent_tools" in unknown.stderr


def test_a_config_override_shows_in_the_list(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    listed = run_cli(home, "features", "list", "-c", "features.web_search_request=true")
    [line] = [line for line in listed.stdout.splitlines() if "web_search_request" in line]
    assert line.split()[-1] == "true"


def test_completion_scripts_load_and_complete_commands(tmp_path):
    home = tmp_path / "home"
    script = run_cli(home, "completion", "bash").stdout
    check = subprocess.run(
        [
            "bash",
            "-c",
            script + '\nCOMP_WORDS=(codex-lsp re); COMP_CWORD=1; _codex_lsp; echo "${COMPREPLY[@]}"'
            '\nCOMP_WORDS=(codex-lsp exec --out); COMP_CWORD=2; _codex_lsp; echo "${COMPREPLY[@]}"',
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    first, second = check.stdout.splitlines()
    assert set(first.split()) == {"record", "replay", "resume", "review"}
    assert second.split() == ["--output-last-message", "--output-schema"]
    assert "complete -c codex-lsp" in run_cli(home, "completion", "fish").stdout
