"""What a server says about a config.toml it cannot use, or uses with warnings.

A config.toml that is not TOML, or holds a value of the wrong type or out of its choices, does
not stop the server: as in the reference server, the client's `initialize` is answered, a
`configWarning` ("Invalid configuration; using defaults.") says where the file is wrong, and
the server stays up. Until the file is fixed, starting a thread fails with that reason
(`failed to load configuration: ...`) and `config/read` fails too; every request reads the file
afresh, so fixing it is enough. A `-c` override that cannot be used is the command line's
error, not the file's: the caller still refuses to start over it.

Messages never repeat a value set under a key that names a secret (`store/config_errors.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from codex_lsp.api.port import INTERNAL_ERROR, INVALID_REQUEST, ApiError
from codex_lsp.protocol.config.write import (
    ConfigWarningNotification,
    TextPosition,
    TextRange,
)
from codex_lsp.store.config import Config, load_config
from codex_lsp.store.config_errors import ConfigError
from codex_lsp.store.config_keys import file_key_warnings
from codex_lsp.store.features import unknown_features

INVALID_SUMMARY = "Invalid configuration; using defaults."


def in_file(err: ConfigError) -> bool:
    """Whether the problem is in config.toml (the server starts and warns) rather than in a
    `-c` override (the command line is wrong)."""
    return err.path is not None


def invalid_config_warning(err: ConfigError) -> ConfigWarningNotification:
    """The warning for a config.toml that cannot be used, pointing at the place to fix."""
    where = None
    if err.line is not None:
        start = err.column or 1
        where = TextRange(
            start=TextPosition(line=err.line, column=start),
            end=TextPosition(line=err.line, column=max(err.end_column or start, start)),
        )
    return ConfigWarningNotification(
        summary=INVALID_SUMMARY,
        details=err.located,
        path=str(err.path) if err.path is not None else None,
        range=where,
    )


def ignored_keys_warning(config: Config) -> ConfigWarningNotification | None:
    """One warning naming every key of the user's files this server ignores (unknown,
    misspelt, or read but not acted on), or None when there is none."""
    lines = file_key_warnings(config)
    if not lines:
        return None
    keys = [ignored.key for ignored in lines]
    path = config.config_path
    return ConfigWarningNotification(
        summary=f"codex-lsp ignores {len(lines)} config key(s): {', '.join(keys)}",
        details="\n".join(str(ignored) for ignored in lines),
        path=str(path) if path is not None else None,
    )


def feature_warnings(config: Config) -> list[ConfigWarningNotification]:
    """What is wrong, but harmless, in a config.toml that loads: keys this server ignores,
    and features it does not know."""
    path = config.config_path
    ignored = ignored_keys_warning(config)
    return ([ignored] if ignored is not None else []) + [
        ConfigWarningNotification(
            summary=f"unknown feature `{name}` in [features] is ignored",
            details="`experimentalFeature/list` lists the features this server knows",
            path=str(path) if path is not None else None,
        )
        for name in unknown_features(config.features)
    ]


def startup_warnings(
    home: Path, *, profile: str | None = None, overrides: Sequence[str] = ()
) -> list[ConfigWarningNotification]:
    """The `configWarning`s a server sends once `initialize` is answered; raises `ConfigError`
    only for a `-c` override that cannot be used."""
    try:
        config = load_config(home, profile=profile, overrides=overrides)
    except ConfigError as err:
        if not in_file(err):
            raise
        return [invalid_config_warning(err)]
    return feature_warnings(config)


class ConfigUnusable(ApiError):
    """A request needed the config and it cannot load; `cause` says where and why."""

    def __init__(self, cause: ConfigError) -> None:
        super().__init__(INVALID_REQUEST, f"failed to load configuration: {cause.located}")
        self.cause = cause


def load_failure(err: ConfigError) -> ApiError:
    """The error for a request that needs the config (`thread/start`) when it cannot load."""
    return ConfigUnusable(err)


def read_failure(err: ConfigError) -> ApiError:
    """The error for `config/read` when the config cannot load: the layers cannot be read
    from a file that is not TOML; a wrong value is named by its key."""
    if err.syntax:
        return ApiError(INTERNAL_ERROR, f"failed to read configuration layers: {err.located}")
    if err.key is not None:
        problem = err.reason.removeprefix(f"{err.key}: ")
        return ApiError(INTERNAL_ERROR, f"invalid configuration: {problem}\nin `{err.key}`\n")
    return ApiError(INTERNAL_ERROR, f"invalid configuration: {err.reason}")
