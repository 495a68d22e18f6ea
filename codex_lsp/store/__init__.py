"""Storage layer of codex-lsp: rollouts, thread listing and archive, config.toml, auth.

Everything lives under `$CODEX_HOME` (see `home`). The engine records a thread with a
`RolloutRecorder`, lists threads with `list_threads`, resumes with `read_rollout` +
`reconstruct_history`, and reads settings with `load_config` and credentials with `AuthStore`.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codex_lsp.store.auth import AuthError, AuthInfo, AuthStore, TokenData
    from codex_lsp.store.config import Config, load_config
    from codex_lsp.store.config_errors import ConfigError
    from codex_lsp.store.fork import fork_lines, fork_thread
    from codex_lsp.store.history import SUMMARY_PREFIX, ResumedState, reconstruct_history
    from codex_lsp.store.home import archived_dir, codex_home, new_thread_id, sessions_dir
    from codex_lsp.store.login_server import BrowserLogin, LoginResult
    from codex_lsp.store.persist import should_persist_event
    from codex_lsp.store.ratelimits import RateLimitSnapshot, RateLimitTracker, RateLimitWindow
    from codex_lsp.store.rollout import RolloutContents, RolloutLine, RolloutRecorder, read_rollout
    from codex_lsp.store.rollout_files import (
        ThreadNotFoundError,
        archive_thread,
        find_rollout,
        unarchive_thread,
    )
    from codex_lsp.store.threads import (
        InvalidCursorError,
        ThreadPage,
        ThreadSummary,
        list_threads,
        read_thread_summary,
    )

# Names resolve on first use (PEP 562): `codex-lsp app-server` needs `store.config` and
# `store.home` to answer `initialize`, and importing every submodule here would also pull
# in httpx (for the login server) and the pydantic event models before that answer.
_EXPORTS = {
    "AuthError": "codex_lsp.store.auth",
    "AuthInfo": "codex_lsp.store.auth",
    "AuthStore": "codex_lsp.store.auth",
    "TokenData": "codex_lsp.store.auth",
    "Config": "codex_lsp.store.config",
    "load_config": "codex_lsp.store.config",
    "ConfigError": "codex_lsp.store.config_errors",
    "fork_lines": "codex_lsp.store.fork",
    "fork_thread": "codex_lsp.store.fork",
    "ResumedState": "codex_lsp.store.history",
    "SUMMARY_PREFIX": "codex_lsp.store.history",
    "reconstruct_history": "codex_lsp.store.history",
    "archived_dir": "codex_lsp.store.home",
    "codex_home": "codex_lsp.store.home",
    "new_thread_id": "codex_lsp.store.home",
    "sessions_dir": "codex_lsp.store.home",
    "BrowserLogin": "codex_lsp.store.login_server",
    "LoginResult": "codex_lsp.store.login_server",
    "should_persist_event": "codex_lsp.store.persist",
    "RateLimitSnapshot": "codex_lsp.store.ratelimits",
    "RateLimitTracker": "codex_lsp.store.ratelimits",
    "RateLimitWindow": "codex_lsp.store.ratelimits",
    "RolloutContents": "codex_lsp.store.rollout",
    "RolloutLine": "codex_lsp.store.rollout",
    "RolloutRecorder": "codex_lsp.store.rollout",
    "read_rollout": "codex_lsp.store.rollout",
    "ThreadNotFoundError": "codex_lsp.store.rollout_files",
    "archive_thread": "codex_lsp.store.rollout_files",
    "find_rollout": "codex_lsp.store.rollout_files",
    "unarchive_thread": "codex_lsp.store.rollout_files",
    "InvalidCursorError": "codex_lsp.store.threads",
    "ThreadPage": "codex_lsp.store.threads",
    "ThreadSummary": "codex_lsp.store.threads",
    "list_threads": "codex_lsp.store.threads",
    "read_thread_summary": "codex_lsp.store.threads",
}


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "SUMMARY_PREFIX",
    "AuthError",
    "AuthInfo",
    "AuthStore",
    "BrowserLogin",
    "Config",
    "ConfigError",
    "InvalidCursorError",
    "LoginResult",
    "RateLimitSnapshot",
    "RateLimitTracker",
    "RateLimitWindow",
    "ResumedState",
    "RolloutContents",
    "RolloutLine",
    "RolloutRecorder",
    "ThreadNotFoundError",
    "ThreadPage",
    "ThreadSummary",
    "TokenData",
    "archive_thread",
    "archived_dir",
    "codex_home",
    "find_rollout",
    "fork_lines",
    "fork_thread",
    "list_threads",
    "load_config",
    "new_thread_id",
    "read_rollout",
    "read_thread_summary",
    "reconstruct_history",
    "sessions_dir",
    "should_persist_event",
    "unarchive_thread",
]
