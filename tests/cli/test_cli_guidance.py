"""What the command line tells a newcomer: help texts, doctor, `-c` typos, `serve` at a TTY,
and the README's config examples (which must load as written)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from pathlib import Path

from codex_lsp.engine.models import DEFAULT_MODEL
from codex_lsp.store.config import load_config
from tests.support.cli import CLI, StderrLines, cli_env, run_cli
from tests.support.engine import write_config

ROOT = Path(__file__).resolve().parents[2]


def test_an_unknown_config_override_is_named_with_the_nearest_known_key(scripted_model, tmp_path):
    home = tmp_path / "home"
    write_config(home, scripted_model.base_url)

    result = run_cli(
        home,
        "doctor",
        "-c",
        'modle="gpt-5.4-mini"',
        "-c",
        "sandbox_workspace_write.network_acess=true",
        "-c",
        "model_providers.scripted.base_ulr=http://x",
        "-c",
        "features.anything=true",
        "-c",
        'model="gpt-5.4"',
    )

    err = result.stderr
    assert "modle" in err and "did you mean model?" in err
    assert "did you mean sandbox_workspace_write.network_access?" in err
    assert "did you mean model_providers.scripted.base_url?" in err
    # Free-form tables and known keys are not warned about.
    assert "features.anything" not in err and "-c model:" not in err
    assert err.count("warning:") == 3


def test_doctor_names_the_model_a_session_would_use(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('model_provider = "ollama"\n')

    text = run_cli(home, "doctor")
    report = json.loads(run_cli(home, "doctor", "--json").stdout)

    assert f"model: {DEFAULT_MODEL}, provider: ollama" in text.stdout
    assert "(default)" not in text.stdout
    assert report["model"] == DEFAULT_MODEL


def test_doctor_points_at_login_when_the_openai_key_is_missing(tmp_path):
    home = tmp_path / "home"
    env = cli_env(home)
    env.pop("OPENAI_API_KEY", None)

    result = run_cli(home, "doctor", env=env)

    assert result.returncode == 1
    assert "OPENAI_API_KEY is not set" in result.stdout and "codex-lsp login" in result.stdout


def test_sandbox_and_approval_options_say_what_they_do(tmp_path):
    text = " ".join(run_cli(tmp_path, "exec", "--help").stdout.split())

    sandbox = text[text.index("-s MODE, --sandbox MODE") :]
    assert sandbox.split("-a POLICY")[0].count("read-only") >= 1
    assert "workspace-write" in sandbox and "danger-full-access" in sandbox
    approval = text[text.index("-a POLICY, --ask-for-approval POLICY") :]
    for policy in ("untrusted", "on-failure", "on-request", "never"):
        assert policy in approval
    assert "--skip-git-repo-check" in text


def test_proto_help_says_the_first_op_configures_the_session(tmp_path):
    result = run_cli(tmp_path, "proto", "--help")

    assert "first op must be configure_session" in " ".join(result.stdout.split())


def test_serve_at_a_terminal_says_what_it_is_waiting_for(tmp_path):
    home = tmp_path / "home"
    controller, terminal = os.openpty()
    proc = subprocess.Popen(
        [*CLI, "serve"],
        stdin=terminal,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(home),
    )
    os.close(terminal)
    try:
        lines = StderrLines(proc)
        line = lines.until("Language Server Protocol")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 130
    finally:
        proc.kill()
        os.close(controller)
    assert "Ctrl-C" in line
    assert "Traceback" not in lines.rest()


def test_serve_started_by_an_editor_prints_nothing_to_stderr_before_it_is_spoken_to(tmp_path):
    result = subprocess.run(
        [*CLI, "serve"],
        input="",
        capture_output=True,
        text=True,
        env=cli_env(tmp_path / "home"),
        timeout=60,
    )

    assert "Language Server Protocol" not in result.stderr


def _readme_toml_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```toml\n(.*?)```", text, flags=re.S)


def test_every_config_example_in_the_readme_loads_as_written(tmp_path):
    blocks = _readme_toml_blocks()
    assert any("[model_providers." in block for block in blocks)
    for n, block in enumerate(blocks):
        home = tmp_path / f"home{n}"
        home.mkdir()
        (home / "config.toml").write_text(block)
        config = load_config(home)
        config.provider()  # the provider the example selects is fully defined


def test_the_readme_says_what_exec_allows_by_default():
    text = " ".join((ROOT / "README.md").read_text().split())

    assert "read-only sandbox" in text and "--skip-git-repo-check" in text
    assert "codex-lsp login" in text and "codex-lsp logout" in text
