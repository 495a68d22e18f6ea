"""The model providers every installation has before the user adds any.

A provider table from a Codex user's `config.toml` (`[model_providers.<id>]`) loads as is into
a `ModelProviderInfo` (see `codex_lsp.protocol.core.providers`).
"""

from __future__ import annotations

import os
from typing import Any

from codex_lsp.protocol.core.providers import ModelProviderInfo
from codex_lsp.store.config_layers import deep_merge

OPENAI_PROVIDER_ID = "openai"
OLLAMA_PROVIDER_ID = "ollama"


def built_in_providers() -> dict[str, ModelProviderInfo]:
    """The providers every installation has before the user adds any."""
    return {
        OPENAI_PROVIDER_ID: ModelProviderInfo(
            name="OpenAI",
            base_url=os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1",
            env_key="OPENAI_API_KEY",
            wire_api="responses",
            requires_openai_auth=True,
        ),
        OLLAMA_PROVIDER_ID: ModelProviderInfo(
            name="Ollama",
            base_url="http://localhost:11434/v1",
            wire_api="chat",
        ),
    }


def merged_providers(effective: dict[str, Any]) -> dict[str, Any]:
    """Built-in provider tables with the user's tables merged over them, key by key."""
    merged: dict[str, Any] = {
        pid: info.model_dump(exclude_none=True) for pid, info in built_in_providers().items()
    }
    user = effective.get("model_providers")
    if not isinstance(user, dict):
        return user if user is not None else merged
    for pid, table in user.items():
        base = merged.get(pid)
        merged[pid] = deep_merge(base, table) if isinstance(table, dict) and base else table
    return merged
