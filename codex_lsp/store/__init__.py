"""Storage layer of codex-lsp: rollouts, thread listing and archive, config.toml, auth.

Everything lives under `$CODEX_HOME` (see `home`). The engine records a thread with a
`RolloutRecorder`, lists threads with `list_threads`, resumes with `read_rollout` +
`reconstruct_history`, and reads settings with `load_config` and credentials with `AuthStore`.
"""

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
