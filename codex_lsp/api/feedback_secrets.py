"""What must never leave the machine in a feedback bundle, and taking it out.

Secrets are gathered from where this server reads them: every value in auth.json, the
environment variables the config names for keys and tokens (`env_key`, `env_http_headers`,
`bearer_token_env_var`, `OPENAI_API_KEY`), static `http_headers`, and the `env` tables of MCP
servers. Each is replaced wherever it appears; text shaped like a key or a bearer token is
masked too. In config.toml itself, values under keys that name a secret are replaced.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from codex_lsp.store.auth import AUTH_FILENAME

MASK = "[REDACTED]"
# Shorter values (`1`, `true`) would mask innocent text all over the bundle.
MIN_SECRET_CHARS = 6
_SECRET_KEY = re.compile(r"(?i)(key|token|secret|password|passwd|credential|authorization|auth)")
_SHAPES = (
    re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"),
    re.compile(r"(?i)(?<=bearer )[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*"),  # JWTs
)


class Scrubber:
    def __init__(self, secrets: Iterable[str]) -> None:
        # Longest first, so a secret containing another is masked whole.
        self.secrets = sorted({s for s in secrets if len(s) >= MIN_SECRET_CHARS}, key=len)[::-1]

    def text(self, value: str) -> str:
        for secret in self.secrets:
            value = value.replace(secret, MASK)
        for shape in _SHAPES:
            value = shape.sub(MASK, value)
        return value

    def config(self, text: str) -> str:
        """config.toml with secret-named values replaced, comments and layout kept."""
        try:
            document = tomlkit.parse(text)
        except TOMLKitError:
            return self.text(text)
        _mask_tables(document)
        return self.text(tomlkit.dumps(document))


def _mask_tables(table: Any) -> None:
    for key in list(table.keys()):
        value = table[key]
        if isinstance(value, dict):
            if key in ("env", "http_headers"):
                for inner in list(value.keys()):
                    value[inner] = MASK
            else:
                _mask_tables(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    _mask_tables(item)
        elif isinstance(value, str) and _names_a_secret(key):
            table[key] = MASK


def _names_a_secret(key: str) -> bool:
    # `env_key = "MY_KEY"` names a variable; the variable's value is gathered separately.
    return bool(_SECRET_KEY.search(key)) and not key.endswith(("env_key", "env_var"))


def gather_secrets(codex_home: Path, config: Any) -> Iterator[str]:
    yield from _auth_values(codex_home / AUTH_FILENAME)
    names = {"OPENAI_API_KEY", "CODEX_API_KEY"}
    for provider in getattr(config, "model_providers", {}).values():
        if provider.env_key:
            names.add(provider.env_key)
        names.update(provider.env_http_headers.values())
        yield from provider.http_headers.values()
    for server in getattr(config, "mcp_servers", {}).values():
        if server.bearer_token_env_var:
            names.add(server.bearer_token_env_var)
        yield from (server.env or {}).values()
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            yield value


def _auth_values(path: Path) -> Iterator[str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    yield from _strings(data)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for inner in value.values():
            yield from _strings(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _strings(inner)
