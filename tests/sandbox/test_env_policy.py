"""Escape 9: credentials in the environment of the commands the model runs.

`*KEY*`, `*SECRET*` and `*TOKEN*` variables were removed, but `PGPASSWORD`, `DATABASE_URL`
and the like passed through, and a command's output goes to the model. Codex's
`[shell_environment_policy]` decides the environment; its defaults here also drop
passwords and credential-bearing URLs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codex_lsp.engine.env_policy import shell_environment
from codex_lsp.store.config import load_config
from codex_lsp.store.config_errors import ConfigError
from codex_lsp.store.config_sandbox import ShellEnvironmentPolicy
from tests.support.engine import make_git_repo, running_engine, write_config
from tests.support.scripted_builders import function_call_response, text_response

SECRETS = {
    "PGPASSWORD": "pg-secret-1",
    "DATABASE_URL": "postgres://app:db-secret-2@db.internal:5432/app",
    "MYSQL_PWD": "mysql-secret-3",
    "OPENAI_API_KEY": "sk-secret-4",
    "GITHUB_TOKEN": "ghp-secret-5",
    "HTTPS_PROXY": "http://me:proxy-secret-6@proxy:3128",
    "AWS_SECRET_ACCESS_KEY": "aws-secret-7",
    "DOCKER_AUTH": "docker-secret-8",
    "SMTP_PASSWD": "smtp-secret-9",
    "GH_PAT": "github_pat_secret-10",
    "AZURE_OPENAI_CRED": "azure-secret-11",
    "SERVICE_CREDS": "creds-secret-12",
    "DEPLOY_WEBHOOK": "https://example.test/hook/webhook-secret-13",
    "NOTIFY_URL": "https://hooks.slack.com/services/T0/B0/slack-secret-14",
    "ALERTS": "https://discord.com/api/webhooks/1/discord-secret-15",
}
HARMLESS = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/home/me",
    "PWD": "/work",
    "OLDPWD": "/",
    "SSH_AUTH_SOCK": "/run/agent.sock",
    "REDIS_URL": "redis://cache:6379/0",
    "GIT_URL": "ssh://git@example.test/repo.git",
    "LANG": "C.UTF-8",
}


def test_the_defaults_drop_credentials_and_keep_the_rest() -> None:
    env = shell_environment(ShellEnvironmentPolicy(), {**SECRETS, **HARMLESS})
    assert env == HARMLESS


def test_inherit_core_and_none() -> None:
    source = {**HARMLESS, "EDITOR": "vi"}
    core = shell_environment(ShellEnvironmentPolicy(inherit="core"), source)
    assert core == {"PATH": "/usr/bin:/bin", "HOME": "/home/me"}
    assert shell_environment(ShellEnvironmentPolicy(inherit="none"), source) == {}


def test_exclude_set_and_include_only_in_codex_order() -> None:
    policy = ShellEnvironmentPolicy(
        exclude=["lang", "*_url"],
        set={"GREETING": "hi", "PATH": "/opt/bin"},
        include_only=["path", "gr*", "HOME", "LANG"],
    )
    # `set` comes after the excludes, `include_only` last; patterns ignore case.
    assert shell_environment(policy, HARMLESS) == {
        "PATH": "/opt/bin",
        "HOME": "/home/me",
        "GREETING": "hi",
    }


def test_ignoring_the_default_excludes_passes_everything() -> None:
    policy = ShellEnvironmentPolicy(ignore_default_excludes=True)
    assert shell_environment(policy, SECRETS) == SECRETS


def test_a_bad_policy_is_reported_like_any_other_key(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        'model = "m"\n\n[shell_environment_policy]\ninherit = "some"\n'
    )
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    assert str(caught.value) == (
        f"{tmp_path / 'config.toml'}:4: shell_environment_policy.inherit: "
        'expected one of all, core, none, got "some"'
    )


async def test_commands_never_see_credentials(
    scripted_model, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("CODEX_TEST_PLAIN", "plain-value")
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws", {"a.txt": "a\n"})
    write_config(home, scripted_model.base_url, approval_policy="never")
    scripted_model.enqueue(function_call_response("exec_command", {"cmd": "env"}))
    scripted_model.enqueue(text_response("done"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("show the environment")
    sent = json.dumps(scripted_model.requests[-1].body)
    assert "CODEX_TEST_PLAIN=plain-value" in sent
    for value in SECRETS.values():
        assert value not in sent


@pytest.mark.parametrize("env_key", ["LLM_PASS", "OPENAI_PAT", "AZURE_OPENAI_CRED", "MY_LLM"])
@pytest.mark.parametrize("ignore_default_excludes", [False, True])
async def test_commands_never_see_the_engines_own_credentials(
    scripted_model,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    env_key: str,
    ignore_default_excludes: bool,
) -> None:
    # Named by the config, not by a pattern: the provider's key, a header taken from the
    # environment, an MCP server's token, whatever the names.
    values = {
        env_key: "provider-key-secret-1",
        "GATEWAY_HEADER_VALUE": "header-secret-2",
        "MCP_BEARER": "mcp-bearer-secret-3",
        "CODEX_API_KEY": "codex-key-secret-4",
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws", {"a.txt": "a\n"})
    ignore = str(ignore_default_excludes).lower()
    extra = (
        f"[shell_environment_policy]\nignore_default_excludes = {ignore}\n"
        '[mcp_servers.remote]\nurl = "http://127.0.0.1:9/mcp"\n'
        'bearer_token_env_var = "MCP_BEARER"\nenabled = false\n'
    )
    config = write_config(home, scripted_model.base_url, approval_policy="never", extra=extra)
    config.write_text(
        config.read_text()
        + f'env_key = "{env_key}"\n'
        + 'env_http_headers = { "x-gateway" = "GATEWAY_HEADER_VALUE" }\n'
    )
    scripted_model.enqueue(function_call_response("exec_command", {"cmd": "env"}))
    scripted_model.enqueue(text_response("done"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("show the environment")
    assert scripted_model.requests[0].headers["authorization"] == "Bearer provider-key-secret-1"
    sent = json.dumps(scripted_model.requests[-1].body)
    assert "PATH=" in sent
    for name, value in values.items():
        assert value not in sent and f"{name}=" not in sent


async def test_the_configured_policy_shapes_the_environment(
    scripted_model, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEX_TEST_PLAIN", "plain-value")
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws", {"a.txt": "a\n"})
    policy = '[shell_environment_policy]\ninherit = "core"\nset = { GREETING = "from-config" }\n'
    write_config(home, scripted_model.base_url, approval_policy="never", extra=policy)
    scripted_model.enqueue(function_call_response("exec_command", {"cmd": "env"}))
    scripted_model.enqueue(text_response("done"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("show the environment")
    sent = json.dumps(scripted_model.requests[-1].body)
    assert "GREETING=from-config" in sent
    assert "CODEX_TEST_PLAIN" not in sent
    assert "PATH=" in sent
