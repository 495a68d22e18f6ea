"""Assemble an engine from the user's home: config, auth, a shared HTTP client."""

from __future__ import annotations

from pathlib import Path

import httpx

from codex_lsp.engine.editor_tools import EditorToolsExtension
from codex_lsp.engine.extensions import Extension
from codex_lsp.engine.goals import GoalsExtension
from codex_lsp.engine.mcp import McpExtension
from codex_lsp.engine.questions import QuestionsExtension
from codex_lsp.engine.review import ReviewExtension
from codex_lsp.engine.services import EngineServices
from codex_lsp.engine.skills import SkillsExtension
from codex_lsp.engine.subagents import SubagentsExtension
from codex_lsp.engine.view_image import ViewImageExtension
from codex_lsp.engine.web_search import WebSearchExtension
from codex_lsp.model.transport import http_client
from codex_lsp.store.auth import AuthStore
from codex_lsp.store.config import Config, load_config
from codex_lsp.store.home import codex_home as default_codex_home
from codex_lsp.store.secrets import configured_secrets, remember

# Streams can stay quiet for a long time while the model thinks; the idle timeout is
# enforced per provider by the model client, so the transport itself does not time out reads.
HTTP_TIMEOUT = httpx.Timeout(connect=30.0, read=None, write=60.0, pool=30.0)


def load_services(
    *,
    codex_home: Path | None = None,
    profile: str | None = None,
    overrides: list[str] | None = None,
    cwd: Path | None = None,
) -> EngineServices:
    """Read config.toml (raising `ConfigError` with file, line and key) and wire the engine."""
    home = codex_home or default_codex_home()
    # A server runs in the folder it serves: its trusted project's layers apply.
    where = cwd if cwd is not None else Path.cwd()

    def read() -> Config:
        config = load_config(home, profile=profile, overrides=list(overrides or []), cwd=where)
        remember(configured_secrets(config, home))
        return config

    services = services_for(read(), home)
    services.config_loader = read
    return services


def default_extensions(config: Config) -> list[Extension]:
    """The features every session gets; each decides from `config` what it offers."""
    return [
        QuestionsExtension(),
        SkillsExtension(enabled=config.feature_enabled("skills", True)),
        WebSearchExtension(),
        McpExtension(config.mcp_servers),
        ReviewExtension.from_config(config),
        SubagentsExtension(max_active=config.max_active_subagents),
        EditorToolsExtension(),
        ViewImageExtension(),
        GoalsExtension(),
    ]


def services_for(config: Config, home: Path) -> EngineServices:
    http = http_client(timeout=HTTP_TIMEOUT)
    return EngineServices(
        codex_home=home,
        config=config,
        auth=AuthStore(home),
        http=http,
        extensions=default_extensions(config),
        record_streams=config.feature_enabled("record_model_streams"),
    )
