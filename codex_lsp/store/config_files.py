"""The files config.toml's layers come from besides itself: a profile's
`$CODEX_HOME/<name>.config.toml`, and a trusted project's `.codex/config.toml` files.

Each layer is `(path, tables, text)`: the text, for an error to point at the line."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from codex_lsp.store.bounded_read import PROJECT_CONFIG_MAX_BYTES, read_text
from codex_lsp.store.config_errors import ConfigError, looks_secret
from codex_lsp.store.config_layers import parse_toml, read_toml

CONFIG_FILENAME = "config.toml"
PROFILE_SUFFIX = ".config.toml"
PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def profile_path(home: Path, name: str) -> Path:
    """`$CODEX_HOME/<name>.config.toml`, where Codex 0.169 and later keep a profile."""
    return home / f"{name}{PROFILE_SUFFIX}"


def check_profile_name(name: str) -> None:
    """Raise `ConfigError` unless `name` can name a profile's file (and is no secret)."""
    if not PROFILE_NAME.fullmatch(name) or looks_secret(name):
        raise ConfigError(f"--profile: {name!r} is not a profile name (letters, digits, -_.)")


def profile_layer(home: Path, name: str) -> tuple[Path, dict[str, Any], str] | None:
    """The profile's own file as a layer; None when it is absent or empty (nothing to add,
    as in Codex)."""
    path = profile_path(home, name)
    text, tables = read_toml(path)
    return (path, tables, text) if tables else None


def project_layers(
    raw: dict[str, Any], cwd: Path | str | None
) -> list[tuple[Path, dict[str, Any], str]]:
    """The `.codex/config.toml` layers of the trusted project holding `cwd`, outermost first."""
    projects = raw.get("projects")
    if cwd is None or not isinstance(projects, dict):
        return []
    here = Path(cwd).expanduser().resolve()
    trusted: Path | None = None
    for folder in (here, *here.parents):
        table = projects.get(str(folder))
        level = table.get("trust_level") if isinstance(table, dict) else None
        if level == "untrusted":
            return []
        if level == "trusted":
            trusted = folder
            break
    if trusted is None:
        return []
    found: list[tuple[Path, dict[str, Any], str]] = []
    folder = trusted
    for part in ("", *here.relative_to(trusted).parts):
        folder = folder / part if part else folder
        layer = folder / ".codex" / CONFIG_FILENAME
        if not layer.exists():
            continue
        # A project's file is the workspace's: read within its cap, never a FIFO or device.
        try:
            text = read_text(layer, PROJECT_CONFIG_MAX_BYTES)
        except (OSError, ValueError) as err:
            reason = getattr(err, "strerror", None) or str(err)
            raise ConfigError(f"{layer}: cannot read config: {reason}", path=layer) from None
        _, tables = parse_toml(layer, text)
        if tables:
            found.append((layer, tables, text))
    return found
