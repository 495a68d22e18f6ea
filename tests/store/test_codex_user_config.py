"""A Codex user's config.toml (`tests/data/codex_home/`), which the real codex 0.171 accepts
with `--strict-config`, loads as is: values Codex accepts are accepted here too."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from codex_lsp.protocol.core.policy import AskForApproval
from codex_lsp.store.config import GranularApprovalPolicy, load_config
from codex_lsp.store.config_errors import ConfigError
from tests.conformance.servers import PEER_BIN, scratch_root

CODEX_HOME = Path(__file__).resolve().parents[1] / "data" / "codex_home"


def _copy_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(CODEX_HOME, home)
    return home


def test_the_real_codex_accepts_the_file_strictly() -> None:
    if not os.access(PEER_BIN, os.X_OK):
        pytest.fail(f"the real codex is missing at {PEER_BIN}: run scripts/setup-editors")
    with scratch_root("strict") as root:
        home = root / "home"
        shutil.copytree(CODEX_HOME, home)
        env = dict(os.environ, CODEX_HOME=str(home), HOME=str(home))
        # The header goes out once the config has loaded: read up to it, then stop the run.
        process = subprocess.Popen(
            [str(PEER_BIN), "--strict-config", "-p", "fast", "exec", "--skip-git-repo-check", "hi"],
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stderr is not None
        lines: list[str] = []
        try:
            for line in process.stderr:
                lines.append(line)
                if line.startswith(("model:", "Error")):
                    break
        finally:
            process.kill()
            process.wait(timeout=10)
    stderr = "".join(lines)
    assert "Error loading config.toml" not in stderr, stderr
    assert "model: gpt-5.5-mini" in stderr, stderr


def test_codex_lsp_loads_every_value_codex_accepts(tmp_path: Path) -> None:
    config = load_config(_copy_home(tmp_path))
    assert config.model_reasoning_effort == "max"
    assert config.cli_auth_credentials_store == "ephemeral"
    assert isinstance(config.approval_policy, GranularApprovalPolicy)
    assert config.approval_policy.granular.mcp_elicitations is False
    assert config.core_approval_policy == AskForApproval.ON_REQUEST
    assert config.mcp_servers["docs"].tools["fetch"].approval_mode == "writes"
    assert config.web_search == "cached"
    assert config.notify == ["notify-send", "Codex"]
    assert config.project_doc_fallback_filenames == ["CLAUDE.md", ".agents.md"]
    assert config.projects["/home/dev/src/webapp"].trust_level == "trusted"
    assert config.hooks["PreToolUse"][0].hooks[0].command == "echo checked"
    remote = config.mcp_servers["remote"]
    assert remote.http_headers == {"X-Team": "tools"}
    assert remote.env_http_headers == {"X-Api-Key": "REMOTE_MCP_KEY"}


def test_enabled_and_disabled_tools_decide_what_is_offered(tmp_path: Path) -> None:
    docs = load_config(_copy_home(tmp_path)).mcp_servers["docs"]
    assert [name for name in ("search", "fetch", "delete", "other") if docs.offers(name)] == [
        "search",
        "fetch",
    ]


@pytest.mark.parametrize(
    ("override", "key"),
    [
        ('mcp_servers.docs.tools.fetch.approval_mode="sometimes"', "approval_mode"),
        ('web_search="always"', "web_search"),
        ('cli_auth_credentials_store="disk"', "cli_auth_credentials_store"),
    ],
)
def test_values_codex_refuses_are_refused(tmp_path: Path, override: str, key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(_copy_home(tmp_path), overrides=[override])
    assert key in str(caught.value)


def test_a_trusted_project_adds_its_codex_config_layers(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    trusted, untrusted = tmp_path / "webapp", tmp_path / "vendor-drop"
    sub = trusted / "pkg"
    for folder in (trusted, sub, untrusted):
        (folder / ".codex").mkdir(parents=True)
    (home / "config.toml").write_text(
        'model = "user-model"\nmodel_verbosity = "high"\n'
        f'[projects."{trusted}"]\ntrust_level = "trusted"\n'
        f'[projects."{untrusted}"]\ntrust_level = "untrusted"\n'
    )
    (trusted / ".codex" / "config.toml").write_text('model = "project-model"\n')
    (sub / ".codex" / "config.toml").write_text('model_verbosity = "low"\n')
    (untrusted / ".codex" / "config.toml").write_text('model = "planted"\n')

    config = load_config(home, cwd=sub)
    assert (config.model, config.model_verbosity) == ("project-model", "low")
    assert load_config(home, cwd=sub, overrides=["model=cli"]).model == "cli"  # -c wins
    assert load_config(home, cwd=untrusted).model == "user-model"
    assert load_config(home, cwd=tmp_path).model == "user-model"
    (sub / ".codex" / "config.toml").write_text('sandbox_mode = "yolo"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(home, cwd=sub)
    assert str(caught.value).startswith(f"{sub / '.codex' / 'config.toml'}:1: sandbox_mode")


def test_a_planted_project_config_is_refused_not_waited_on(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "webapp"
    home.mkdir()
    (project / ".codex").mkdir(parents=True)
    (home / "config.toml").write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')
    layer = project / ".codex" / "config.toml"
    os.mkfifo(layer)
    with pytest.raises(ConfigError) as caught:
        load_config(home, cwd=project)
    assert str(caught.value).startswith(f"{layer}: cannot read config")
    layer.unlink()
    layer.write_text("# " + "x" * (2 * 1024 * 1024) + "\n")
    with pytest.raises(ConfigError):
        load_config(home, cwd=project)
