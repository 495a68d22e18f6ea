"""Wrapping commands for the sandbox, and reading what a sandboxed run said.

The engine calls `wrap_command` for every command it runs under a restrictive
policy and runs the result with `subprocess` (keep `close_fds=True`, the default:
an inherited network socket would slip past the filter, which only stops new ones).
There is no silent downgrade: if the kernel lacks what the policy needs,
`wrap_command` raises `SandboxUnavailable` and the command is not run.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from codex_lsp.protocol.policy import DangerFullAccess, ReadOnly, WorkspaceWrite, has_network_access

LAUNCHER = str(Path(__file__).with_name("__main__.py"))
# Comma-separated parts to pretend the kernel lacks: `landlock`, `seccomp`
# (honoured by `sandbox_support`), `mountns` (honoured by the launcher, which then
# protects `.git` and friends with Landlock alone).
DISABLE_ENV = "CODEX_LSP_SANDBOX_DISABLE"

_DENIAL_KEYWORDS = (
    "operation not permitted",
    "permission denied",
    "read-only file system",
    "seccomp",
    "sandbox",
    "landlock",
    "failed to write file",
)


class SandboxUnavailable(RuntimeError):
    """The policy needs a sandbox this kernel cannot provide; the command was not run.

    Run it under `danger-full-access` (after asking the user), or use a kernel with
    Landlock (Linux 5.13+, `landlock` in the `lsm=` list) and seccomp filters.
    """


@dataclass(frozen=True)
class SandboxSupport:
    """What this kernel offers the sandbox."""

    landlock: bool
    seccomp: bool
    landlock_abi: int | None


@functools.cache
def _probe_kernel() -> SandboxSupport:
    if not sys.platform.startswith("linux"):
        return SandboxSupport(landlock=False, seccomp=False, landlock_abi=None)
    from . import _landlock, _seccomp

    abi = _landlock.abi_version()
    return SandboxSupport(landlock=abi >= 1, seccomp=_seccomp.supported(), landlock_abi=abi or None)


def sandbox_support() -> SandboxSupport:
    """The kernel's Landlock and seccomp support (probed once), minus anything
    `CODEX_LSP_SANDBOX_DISABLE` says to pretend is missing."""
    found = _probe_kernel()
    disabled = set(os.environ.get(DISABLE_ENV, "").split(","))
    landlock = found.landlock and "landlock" not in disabled
    return SandboxSupport(
        landlock=landlock,
        seccomp=found.seccomp and "seccomp" not in disabled,
        landlock_abi=found.landlock_abi if landlock else None,
    )


def sandbox_unavailable_warning(support: SandboxSupport) -> str | None:
    """A message for the user when sandboxed commands will be refused, else None."""
    if support.landlock and support.seccomp:
        return None
    missing = []
    if not support.landlock:
        missing.append("Landlock (Linux 5.13+ with `landlock` in the kernel's lsm= list)")
    if not support.seccomp:
        missing.append("seccomp filters")
    lacks = " and ".join(missing)
    if not support.landlock:
        effect = "commands cannot be sandboxed and will be refused"
    else:
        effect = "commands that must run without network access will be refused"
    return (
        f"This kernel lacks {lacks}: {effect} unless the sandbox mode is "
        "danger-full-access. Codex will not run them unsandboxed on its own."
    )


def session_sandbox_warning(policy: DangerFullAccess | ReadOnly | WorkspaceWrite) -> str | None:
    """The warning a session under `policy` starts with when this kernel cannot enforce it.

    Said up front, so the user learns why commands will be refused before the model
    runs one; `wrap_command` raises with the same text, which the session says only once.
    """
    if isinstance(policy, DangerFullAccess):
        return None
    return sandbox_unavailable_warning(sandbox_support())


def wrap_command(
    argv: Sequence[str],
    policy: DangerFullAccess | ReadOnly | WorkspaceWrite,
    cwd: Path | str,
    env: Mapping[str, str],
) -> tuple[list[str], dict[str, str]]:
    """The argv and environment that run `argv` under `policy`.

    `cwd` is the directory the policy's roots are resolved against (the session's);
    the caller still chooses the command's working directory. `danger-full-access`
    returns the command unchanged. Raises `SandboxUnavailable` when the kernel
    cannot enforce the policy.
    """
    if not argv:
        raise ValueError("cannot wrap an empty command")
    if isinstance(policy, DangerFullAccess):
        return list(argv), dict(env)
    network = has_network_access(policy)
    support = sandbox_support()
    if not support.landlock or (not network and not support.seccomp):
        raise SandboxUnavailable(
            sandbox_unavailable_warning(support) or "the sandbox is unavailable"
        )
    wrapped = [
        sys.executable,
        "-I",  # ignore PYTHON* variables meant for the command, and the user site
        "-S",  # skip site-packages: the launcher needs only the stdlib and itself
        LAUNCHER,
        "--policy",
        policy.model_dump_json(),
        "--cwd",
        os.fspath(cwd),
        "--",
        *argv,
    ]
    new_env = dict(env)
    new_env["CODEX_SANDBOX"] = "seccomp"
    if not network:
        new_env["CODEX_SANDBOX_NETWORK_DISABLED"] = "1"
    return wrapped, new_env


def is_likely_sandbox_denied(exit_code: int, output: str) -> bool:
    """Whether a failed sandboxed command probably failed because of the sandbox.

    The engine uses this to decide whether to offer a rerun without the sandbox.
    """
    if exit_code == 0:
        return False
    text = output.lower()
    if any(keyword in text for keyword in _DENIAL_KEYWORDS):
        return True
    if exit_code in (2, 126, 127):
        # Usage errors and command-not-found are the command's own failures.
        return False
    sigsys = int(signal.SIGSYS)
    # 128+N from a shell, -N from subprocess when the process itself was killed.
    return exit_code in (128 + sigsys, -sigsys)
