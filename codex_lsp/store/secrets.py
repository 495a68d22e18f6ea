"""The secrets a configuration holds or names, and the one redactor that masks them.

A secret is configured in more places than a fixed list of names can follow: a provider's
`env_key` may be called `LLM_PASS`, its `base_url` may carry `user:password@` or `?key=`,
its `http_headers` may hold a static token. Everything here is read from the config itself:

* `credential_variables` are the environment variables the engine reads credentials from;
  commands never inherit them (see `engine/env_policy.py`);
* `configured_secrets` are the values: what those variables hold, static headers, URL user
  info and query values, MCP servers' `env` values, and everything in auth.json;
* `Redactor` masks those values, plus text shaped like a key, a bearer token, a JWT or a
  URL's password, wherever text leaves the process: error messages, rollouts, logs, `record`
  files and feedback bundles.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from codex_lsp.protocol.providers import ModelProviderInfo

MASK = "[REDACTED]"
# The variables every provider and login path of the engine may read a key from.
ENGINE_KEY_VARIABLES = frozenset({"OPENAI_API_KEY", "CODEX_API_KEY"})
# Names an MCP server's `env` may set that are no one's credential: commands keep them.
_PLAIN_VARIABLES = frozenset(
    {"HOME", "LANG", "LOGNAME", "PATH", "SHELL", "TEMP", "TMP", "TMPDIR", "USER", "USERNAME"}
)
# Shorter values (`1`, `true`, a port) would mask innocent text everywhere.
MIN_SECRET_CHARS = 6
_SHAPES = (
    (re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), MASK),
    (re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}"), r"\1" + MASK),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*"), MASK),  # JWTs
    # scheme://user:password@host: the password, whoever configured it.
    (re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^\s/@:]*:)[^\s/@]+@"), r"\1" + MASK + "@"),
)


class Redactor:
    """Masks known secret values (longest first, so one containing another goes whole) and
    anything shaped like a credential."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        found = {s for s in secrets if s and len(s) >= MIN_SECRET_CHARS}
        self.secrets = sorted(found, key=len, reverse=True)

    def with_secrets(self, secrets: Iterable[str | None]) -> Redactor:
        return Redactor([*self.secrets, *secrets])

    def text(self, value: str) -> str:
        for secret in self.secrets:
            if secret in value:
                value = value.replace(secret, MASK)
        for pattern, replacement in _SHAPES:
            value = pattern.sub(replacement, value)
        return value


def credential_variables(config: Any) -> frozenset[str]:
    """Names of the environment variables the engine takes credentials from under `config`."""
    names = set(ENGINE_KEY_VARIABLES)
    for provider in getattr(config, "model_providers", {}).values():
        if provider.env_key:
            names.add(provider.env_key)
        names.update(provider.env_http_headers.values())
    for server in getattr(config, "mcp_servers", {}).values():
        if server.bearer_token_env_var:
            names.add(server.bearer_token_env_var)
        names.update(name for name in server.env or {} if name not in _PLAIN_VARIABLES)
    return frozenset(names)


def provider_secrets(
    provider: ModelProviderInfo, environ: Mapping[str, str] | None = None
) -> list[str]:
    """The secret values one provider's table holds or names."""
    env = os.environ if environ is None else environ
    values = [*provider.http_headers.values(), *(provider.query_params or {}).values()]
    values += _url_secrets(provider.base_url)
    names = [provider.env_key, *provider.env_http_headers.values()]
    values += [env.get(name, "").strip() for name in names if name]
    return [value for value in values if value]


def configured_secrets(
    config: Any, codex_home: Path | None = None, environ: Mapping[str, str] | None = None
) -> list[str]:
    """Every secret value `config` (and auth.json under `codex_home`) holds or names."""
    env = os.environ if environ is None else environ
    values: list[str] = []
    for provider in getattr(config, "model_providers", {}).values():
        values += provider_secrets(provider, env)
    for server in getattr(config, "mcp_servers", {}).values():
        values += (server.env or {}).values()
        values += _url_secrets(server.url)
    values += [env.get(name, "").strip() for name in sorted(credential_variables(config))]
    if codex_home is not None:
        values += _auth_values(codex_home / "auth.json")
    return [value for value in values if value]


def _url_secrets(url: str | None) -> list[str]:
    """User info and query values of a URL: `user:password@` and `?key=...` carry secrets."""
    if not url:
        return []
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found = [parts.password or ""]
    if parts.username and parts.password:
        found.append(f"{parts.username}:{parts.password}")
    found += [value for _, value in parse_qsl(parts.query)]
    return [value for value in found if value]


def _auth_values(path: Path) -> list[str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return list(_strings(data))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for inner in value.values():
            yield from _strings(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _strings(inner)
