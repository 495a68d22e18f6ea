"""The Linux sandbox: Landlock, seccomp and a private mount namespace around a command.

Public API:

* `sandbox_support()` / `SandboxSupport` / `sandbox_unavailable_warning()` /
  `session_sandbox_warning()`: what the kernel offers, and what to tell the user when
  it is not enough;
* `wrap_command()`: the `WrappedCommand` (argv, env and descriptors to pass) that runs a
  command under a policy (raises `SandboxUnavailable` rather than run it unsandboxed),
  with `SandboxOptions` and `ResourceLimits` for what the policy does not say;
* `is_likely_sandbox_denied()`: whether a failure looks like the sandbox's doing;
* `WritableRoot`, `writable_roots()`, `is_path_writable()`, `writable_root_of()`,
  `paths_outside_writable_roots()`: the policy's writable paths, for patch safety;
  `is_repository_entry()`: whether a `.git` is a repository's, not the sandbox's
  empty placeholder;
* `open_beneath()`: a directory handle reached without following symlinks, for the
  engine's own writes;
* `hold_roots()` / `HeldRoots` / `RootMoved`: a session's writable roots resolved once
  and held open, so that a path re-pointed later is refused rather than followed.

The names are loaded on first use: the launcher (`python -m codex_lsp.sandbox`)
imports this package before every sandboxed command, and must not pay for
pydantic and pathlib.
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._api import (
        SandboxSupport,
        SandboxUnavailable,
        WrappedCommand,
        block_stop_now,
        fallback_warning,
        is_likely_sandbox_denied,
        sandbox_support,
        sandbox_unavailable_warning,
        session_sandbox_warning,
        wrap_command,
    )
    from ._supervise import STOP_NOW as STOP_NOW_SIGNAL
    from .beneath import open_beneath
    from .held import HeldRoots, RootMoved, hold_roots
    from .options import ResourceLimits, SandboxOptions, default_hidden_dirs
    from .policy import (
        WritableRoot,
        is_path_writable,
        is_repository_entry,
        paths_outside_writable_roots,
        writable_root_of,
        writable_roots,
    )

_EXPORTS = {
    "STOP_NOW_SIGNAL": "._api",
    "SandboxSupport": "._api",
    "SandboxUnavailable": "._api",
    "WrappedCommand": "._api",
    "block_stop_now": "._api",
    "fallback_warning": "._api",
    "ResourceLimits": ".options",
    "SandboxOptions": ".options",
    "default_hidden_dirs": ".options",
    "open_beneath": ".beneath",
    "HeldRoots": ".held",
    "RootMoved": ".held",
    "hold_roots": ".held",
    "is_likely_sandbox_denied": "._api",
    "sandbox_support": "._api",
    "sandbox_unavailable_warning": "._api",
    "session_sandbox_warning": "._api",
    "wrap_command": "._api",
    "WritableRoot": ".policy",
    "is_path_writable": ".policy",
    "is_repository_entry": ".policy",
    "paths_outside_writable_roots": ".policy",
    "writable_root_of": ".policy",
    "writable_roots": ".policy",
}

__all__ = [
    "STOP_NOW_SIGNAL",
    "HeldRoots",
    "ResourceLimits",
    "RootMoved",
    "SandboxOptions",
    "SandboxSupport",
    "SandboxUnavailable",
    "WrappedCommand",
    "WritableRoot",
    "block_stop_now",
    "default_hidden_dirs",
    "fallback_warning",
    "hold_roots",
    "is_likely_sandbox_denied",
    "is_path_writable",
    "is_repository_entry",
    "open_beneath",
    "paths_outside_writable_roots",
    "sandbox_support",
    "sandbox_unavailable_warning",
    "session_sandbox_warning",
    "wrap_command",
    "writable_root_of",
    "writable_roots",
]


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
