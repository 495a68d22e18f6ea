"""Nothing in config.toml is ignored without a word: a misspelt key gets "did you mean" and a
key codex-lsp does not act on is named, by `doctor`, by `exec` on stderr, and by both
servers in one `configWarning`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conformance.servers import Side, run_on

TYPO = "model_provder"
SUMMARY = f"codex-lsp ignores 1 config key(s): {TYPO}"
HINT = "not a config key, so it is ignored; did you mean model_provider?"


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        f'{TYPO} = "corp"\nfile_opener = "vscode"\n'
        '[model_providers.local]\nname = "Local"\nbase_url = "http://127.0.0.1:9/v1"\n'
    )
    return home


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CODEX_HOME": str(home)}
    env.pop("OPENAI_API_KEY", None)
    return subprocess.run(
        [sys.executable, "-m", "codex_lsp", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_doctor_names_each_ignored_key(tmp_path: Path) -> None:
    home = _home(tmp_path)
    report = json.loads(_run(home, "doctor", "--json").stdout)
    config = str(home / "config.toml")
    assert report["ignoredKeys"] == [
        {"file": config, "key": TYPO, "reason": HINT},
        {
            "file": config,
            "key": "file_opener",
            "reason": "not implemented by codex-lsp, so it is ignored",
        },
    ]
    text = _run(home, "doctor").stdout
    assert f"config: WARNING {TYPO}: {HINT}" in text
    assert "config: WARNING file_opener: not implemented by codex-lsp" in text


def test_exec_names_a_misspelt_key_on_stderr(tmp_path: Path) -> None:
    home = _home(tmp_path)
    ws = tmp_path / "ws"
    ws.mkdir()
    done = _run(home, "exec", "--skip-git-repo-check", "-C", str(ws), "hi")
    assert f"warning: {home / 'config.toml'}: {TYPO}: {HINT}" in done.stderr


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_the_servers_send_one_config_warning(side: Side, tmp_path: Path) -> None:
    extra = f'{TYPO} = "corp"\nhide_agent_reasoning = true\n'
    with run_on(side, tmp_path, extra_config=extra) as run:
        warning = run.client.wait_method("configWarning", summary=SUMMARY)
        run.client.response(run.client.request("config/read", {}))
        sent = [
            entry.message
            for entry in run.client.transcript
            if entry.direction == "s2c"
            and "configWarning" in str(entry.message.get("method"))
            and entry.message["params"]["summary"].startswith("codex-lsp ignores")
        ]
    params = warning["params"]
    assert params["details"] == f"{run.home / 'config.toml'}: {TYPO}: {HINT}"
    assert len(sent) == 1
