"""The Linux sandbox: Landlock, seccomp and a private mount namespace around a command.

Public API:

* `sandbox_support()` / `SandboxSupport` / `sandbox_unavailable_warning()` /
  `session_sandbox_warning()`: what the kernel offers, and what to tell the user when
  it is not enough;
* `wrap_command()`: the argv and env that run a command under a policy (raises
  `SandboxUnavailable` rather than run it unsandboxed);
* `is_likely_sandbox_denied()`: whether a failure looks like the sandbox's doing;
* `WritableRoot`, `writable_roots()`, `is_path_writable()`,
  `paths_outside_writable_roots()`: the policy's writable paths, for patch safety.

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
        is_likely_sandbox_denied,
        sandbox_support,
        sandbox_unavailable_warning,
        session_sandbox_warning,
        wrap_command,
    )
    from .policy import (
        WritableRoot,
        is_path_writable,
        paths_outside_writable_roots,
        writable_roots,
    )

_EXPORTS = {
    "SandboxSupport": "._api",
    "SandboxUnavailable": "._api",
    "is_likely_sandbox_denied": "._api",
    "sandbox_support": "._api",
    "sandbox_unavailable_warning": "._api",
    "session_sandbox_warning": "._api",
    "wrap_command": "._api",
    "WritableRoot": ".policy",
    "is_path_writable": ".policy",
    "paths_outside_writable_roots": ".policy",
    "writable_roots": ".policy",
}

__all__ = [
    "SandboxSupport",
    "SandboxUnavailable",
    "WritableRoot",
    "is_likely_sandbox_denied",
    "is_path_writable",
    "paths_outside_writable_roots",
    "sandbox_support",
    "sandbox_unavailable_warning",
    "session_sandbox_warning",
    "wrap_command",
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
