"""What must never leave the machine in a feedback bundle, and taking it out.

Secrets are those the configuration holds or names (`store/secrets.py`: auth.json, the
variables named by `env_key`, `env_http_headers` and `bearer_token_env_var`, static headers,
query values, URL passwords, MCP servers' `env`), masked by the same redactor as errors,
rollouts and record files. In config.toml itself, values under keys that name a secret are
replaced too.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from codex_lsp.store.secrets import MASK, Redactor, configured_secrets

_SECRET_KEY = re.compile(r"(?i)(key|token|secret|password|passwd|credential|authorization|auth)")


class Scrubber(Redactor):
    """The configured secrets' redactor, which also knows config.toml's layout."""

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
            if key in ("env", "http_headers", "query_params"):
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


def gather_secrets(codex_home: Path, config: Any) -> list[str]:
    return configured_secrets(config, codex_home)
