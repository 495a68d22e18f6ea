"""The secrets a configuration holds or names, and the one redactor that masks them.

A secret is configured in more places than a fixed list of names can follow: a provider's
`env_key` may be called `LLM_PASS`, its `base_url` may carry `user:password@` or `?key=`,
its `http_headers` may hold a static token. Everything here is read from the config itself:

* `credential_variables` are the environment variables the engine reads credentials from;
  commands never inherit them (see `engine/env_policy.py`);
* `configured_secrets` are the values: what those variables hold, static headers, URL user
  info and query values, MCP servers' `env` values, and the tokens in auth.json and
  mcp-credentials.json;
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

from codex_lsp.protocol.core.providers import ModelProviderInfo
from codex_lsp.store.mcp_credentials import credentials_path

MASK = "[REDACTED]"
# The variables every provider and login path of the engine may read a key from.
ENGINE_KEY_VARIABLES = frozenset({"OPENAI_API_KEY", "CODEX_API_KEY"})
_SECRET_NAME = re.compile(r"(?i)key|token|secret|password")
# Names an MCP server's `env` may set that are no one's credential: commands keep them.
_PLAIN_VARIABLES = frozenset(
    {"HOME", "LANG", "LOGNAME", "PATH", "SHELL", "TEMP", "TMP", "TMPDIR", "USER", "USERNAME"}
)
# Shorter values (`1`, `true`, a port) would mask innocent text everywhere.
MIN_SECRET_CHARS = 6
_SHAPES = (
    (re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), MASK),
    (re.compile(r"(?i)(\bbearer\s+)[^\s\"',;]+"), r"\1" + MASK),
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

    def values(self, value: str) -> str:
        """`value` with the known secrets masked; text merely shaped like one is kept."""
        for secret in self.secrets:
            if secret in value:
                value = value.replace(secret, MASK)
        return value

    def text(self, value: str) -> str:
        value = self.values(value)
        for pattern, replacement in _SHAPES:
            value = pattern.sub(replacement, value)
        return value


_known = Redactor()


def remember(secrets: Iterable[str | None]) -> None:
    """Add a loaded configuration's secrets to those this process masks everywhere."""
    global _known
    _known = _known.with_secrets(secrets)


def known() -> Redactor:
    """The redactor seeded with every configuration this process has loaded: for text
    written where no config is at hand (logs, rollouts)."""
    return _known


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
    values = list(provider.http_headers.values())
    values += _query_secrets((provider.query_params or {}).items())
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
        values += _auth_values(credentials_path(codex_home))
    return [value for value in values if value]


def _url_secrets(url: str | None) -> list[str]:
    """User info and query values of a URL: `user:password@` and `?key=...` carry secrets."""
    if not url:
        return []
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    return [parts.password or "", *_query_secrets(parse_qsl(parts.query))]


def _query_secrets(params: Iterable[tuple[str, str]]) -> list[str]:
    # `api-version=2024-06-01` is no secret, and masking it would mask dates everywhere.
    return [value for name, value in params if value and "version" not in name.lower()]


def _auth_values(path: Path) -> list[str]:
    """The keys and tokens in auth.json; not its mode or timestamps, which are no secret and
    would mask innocent text."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return list(_strings(data, secret=False))


def _strings(value: Any, *, secret: bool) -> Iterator[str]:
    if isinstance(value, str) and secret:
        yield value
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield from _strings(inner, secret=secret or bool(_SECRET_NAME.search(str(key))))
    elif isinstance(value, list):
        for inner in value:
            yield from _strings(inner, secret=secret)
