"""OAuth tokens of MCP servers, kept in `$CODEX_HOME/mcp-credentials.json` (0600).

One entry per server name, with the URL it was obtained for: a token is sent only to the URL it
was issued for, so editing a server's `url` in config.toml never hands its token elsewhere.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

FILE_NAME = "mcp-credentials.json"


def credentials_path(home: Path) -> Path:
    return home / FILE_NAME


def _load(home: Path) -> dict[str, Any]:
    try:
        data = json.loads(credentials_path(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save(home: Path, data: dict[str, Any]) -> None:
    home.mkdir(parents=True, exist_ok=True)
    path = credentials_path(home)
    tmp = path.with_name(f".{FILE_NAME}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # the umask may only remove bits; make it exact
        os.write(fd, json.dumps(data, indent=2).encode("utf-8"))
    finally:
        os.close(fd)
    os.replace(tmp, path)


def stored_token(home: Path, name: str, url: str) -> str | None:
    """The access token stored for server `name` at `url`, if any."""
    entry = _load(home).get(name)
    if not isinstance(entry, dict) or entry.get("url") != url:
        return None
    token = entry.get("access_token")
    return token if isinstance(token, str) and token else None


def store_tokens(home: Path, name: str, url: str, tokens: dict[str, Any]) -> None:
    data = _load(home)
    data[name] = {"url": url, **{k: v for k, v in tokens.items() if isinstance(v, str | int)}}
    _save(home, data)


def forget(home: Path, name: str) -> bool:
    """Remove server `name`'s tokens; whether there were any."""
    data = _load(home)
    if data.pop(name, None) is None:
        return False
    _save(home, data)
    return True
