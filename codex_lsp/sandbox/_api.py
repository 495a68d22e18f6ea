"""Wrapping commands for the sandbox, and reading what a sandboxed run said.

The engine calls `wrap_command` for every command it runs under a restrictive
policy and runs the result with `subprocess` (keep `close_fds=True`, the default:
an inherited network socket would slip past the filter, which only stops new ones;
pass the `WrappedCommand`'s `pass_fds`, which the launcher reads and closes).
There is no silent downgrade: if the kernel lacks what the policy needs,
`wrap_command` raises `SandboxUnavailable` and the command is not run.

The wrapped argv runs the launcher (`python -m codex_lsp.sandbox`), which stays
the command's parent: it exits with the command's status once the command and
everything it started are gone. To stop a command, send SIGTERM to the launcher (or
its process group): it passes the signal on and, a quarter of a second later, kills
the whole tree. To kill it at once, send `STOP_NOW_SIGNAL` to the launcher alone (not
its group; start the launcher with it blocked, as `block_stop_now` does, so that it
waits for the launcher to be ready): it kills the whole tree and exits as the command
died, of SIGKILL. SIGKILL
to the launcher itself ends the tree only where the kernel gives it a PID namespace;
without one, processes that left the command's session would survive it.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import signal
import sys
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from codex_lsp.protocol.core.policy import (
    DangerFullAccess,
    ReadOnly,
    WorkspaceWrite,
    has_network_access,
)

from . import _nested, _protected_list
from ._supervise import STOP_NOW as STOP_NOW_SIGNAL
from .held import HeldRoots, hold_roots
from .options import SandboxOptions

LAUNCHER = str(Path(__file__).with_name("__main__.py"))


def block_stop_now() -> None:
    """A `preexec_fn` for the launcher: start it with `STOP_NOW_SIGNAL` blocked."""
    signal.pthread_sigmask(signal.SIG_BLOCK, [STOP_NOW_SIGNAL])


# Comma-separated parts to pretend the kernel lacks: `landlock`, `seccomp`, `mountns`
# (the launcher then protects `.git` and friends with Landlock and seccomp alone, as
# on a system without unprivileged user namespaces) and `pidns`.
DISABLE_ENV = "CODEX_LSP_SANDBOX_DISABLE"
_PROBE_NAMESPACES = (
    "import ctypes, os\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "flags = 0x00020000 if os.geteuid() == 0 else 0x10020000\n"
    "raise SystemExit(0 if libc.unshare(flags) == 0 else 1)\n"
)

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
    # A private mount namespace (through a user namespace unless running as root):
    # without it commands run under Landlock and seccomp alone, with less allowed.
    mount_namespace: bool = True


@functools.cache
def _probe_kernel() -> SandboxSupport:
    if not sys.platform.startswith("linux"):
        return SandboxSupport(landlock=False, seccomp=False, landlock_abi=None)
    from . import _landlock, _seccomp

    abi = _landlock.abi_version()
    return SandboxSupport(
        landlock=abi >= 1,
        seccomp=_seccomp.supported(),
        landlock_abi=abi or None,
        mount_namespace=_probe_mount_namespace(),
    )


def _probe_mount_namespace() -> bool:
    # In a child process: unshare changes the caller, and this one may have threads.
    import subprocess

    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", _PROBE_NAMESPACES],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


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
        mount_namespace=found.mount_namespace and "mountns" not in disabled,
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


def fallback_warning(support: SandboxSupport, options: SandboxOptions | None = None) -> str | None:
    """What the user must know when commands will run under Landlock and seccomp alone."""
    if support.mount_namespace or not (support.landlock and support.seccomp):
        return None
    allowed = options is not None and options.fallback_metadata_changes
    metadata = (
        "they may change file modes, owners, times and extended attributes anywhere they "
        "can read, because `sandbox_linux.fallback_metadata_changes` is on"
        if allowed
        else "they cannot change file modes, owners, times or extended attributes at all "
        "(linking an executable or `chmod +x` fails; set "
        "`[sandbox_linux] fallback_metadata_changes = true` to allow it, also outside the "
        "writable roots)"
    )
    return (
        "This system gives the sandbox no private mount namespace (unprivileged user "
        "namespaces are disabled), so commands run under Landlock and seccomp alone: "
        f"{metadata}; they cannot create new entries at the top of a writable root, open "
        "unix sockets other than socket pairs, or use pseudo-terminals; and processes "
        "that leave the command's session are ended by the launcher, not by the kernel."
    )


def session_sandbox_warning(
    policy: DangerFullAccess | ReadOnly | WorkspaceWrite, options: SandboxOptions | None = None
) -> str | None:
    """The warning a session under `policy` starts with when this kernel cannot enforce it
    in full (commands will be refused) or only in the Landlock-only fallback.

    Said up front, so the user learns why commands will be refused before the model
    runs one; `wrap_command` raises with the same text, which the session says only once.
    """
    if isinstance(policy, DangerFullAccess):
        return None
    support = sandbox_support()
    return sandbox_unavailable_warning(support) or fallback_warning(support, options)


@dataclass
class WrappedCommand:
    """A command ready to start: its argv, its whole environment, and the descriptors the
    launcher reads before it runs the command (`pass_fds`: the protected entries, which may
    be more than a command line holds).

    Pass `pass_fds` to the call that starts the process (`subprocess`'s `pass_fds`; they are
    close-on-exec otherwise, and the launcher refuses to run the command without them), and
    keep this object until the process has started; then `close()` it, or use it as a
    context manager. The launcher closes its copies before the command runs.
    """

    argv: list[str]
    env: dict[str, str]
    pass_fds: tuple[int, ...] = ()
    _finalizer: weakref.finalize[[tuple[int, ...]], WrappedCommand] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        self._finalizer = weakref.finalize(self, _close_fds, self.pass_fds)

    def close(self) -> None:
        """Close the engine's copies of `pass_fds` (once, however often called)."""
        self._finalizer()

    def __enter__(self) -> WrappedCommand:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _close_fds(fds: tuple[int, ...]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            continue


def wrap_command(
    argv: Sequence[str],
    policy: DangerFullAccess | ReadOnly | WorkspaceWrite,
    cwd: Path | str,
    env: Mapping[str, str],
    *,
    options: SandboxOptions | None = None,
    roots: HeldRoots | None = None,
) -> WrappedCommand:
    """The argv, environment and launcher descriptors that run `argv` under `policy`.

    `cwd` is the directory the policy's roots are resolved against (the session's);
    the caller still chooses the command's working directory. `env` is the command's
    whole environment (already filtered by the shell environment policy). `options`
    carries the limits and hidden directories (defaults: `SandboxOptions()`);
    the nested repositories inside the cwd are added to its protected paths.
    `roots` are the session's writable roots, held since it was configured
    (`hold_roots`); without them the roots are resolved now. `danger-full-access`
    returns the command unchanged. Raises `SandboxUnavailable` when the kernel cannot
    enforce the policy, and `RootMoved` when a held root's path leads elsewhere now.
    """
    if not argv:
        raise ValueError("cannot wrap an empty command")
    if isinstance(policy, DangerFullAccess):
        return WrappedCommand(list(argv), dict(env))
    network = has_network_access(policy)
    support = sandbox_support()
    if not support.landlock or (not network and not support.seccomp):
        raise SandboxUnavailable(
            sandbox_unavailable_warning(support) or "the sandbox is unavailable"
        )
    options = options if options is not None else SandboxOptions()
    for directory in options.hidden(env):
        # Made now if missing, so it can be hidden before anything appears in it.
        try:
            os.makedirs(directory, mode=0o700, exist_ok=True)
        except OSError:
            continue
    held: list[str] = []
    if isinstance(policy, WorkspaceWrite):
        if roots is None:
            roots = hold_roots(policy, cwd, env)
        roots.verify()
        held = roots.launcher_args()
        # Every root, /tmp and $TMPDIR too: anyone's repository there is run by the
        # next `git status` in it as surely as the workspace's.
        nested: tuple[str, ...] = ()
        for root in roots.roots:
            nested += _nested.nested_git_dirs(root.path)
        if nested:
            options = dataclasses.replace(
                options, protected_paths=(*options.protected_paths, *dict.fromkeys(nested))
            )
    # The protected entries travel in a sealed memory file, not as arguments: a crowded
    # /tmp names more of them than a command line holds.
    protected = list(options.protected_paths)
    launcher_options = dataclasses.replace(options, protected_paths=()).launcher_args(env)
    pass_fds: tuple[int, ...] = ()
    if protected:  # last: nothing after it may fail and leave the descriptor open
        pass_fds = (_protected_list.write(protected),)
    wrapped = [
        sys.executable,
        "-I",  # ignore PYTHON* variables meant for the command, and the user site
        "-S",  # skip site-packages: the launcher needs only the stdlib and itself
        LAUNCHER,
        "--policy",
        policy.model_dump_json(),
        "--cwd",
        os.fspath(cwd),
        *launcher_options,
        *held,
        *(arg for fd in pass_fds for arg in ("--protect-fd", str(fd))),
        "--",
        *argv,
    ]
    new_env = dict(env)
    new_env["CODEX_SANDBOX"] = "seccomp"
    if not network:
        new_env["CODEX_SANDBOX_NETWORK_DISABLED"] = "1"
    return WrappedCommand(wrapped, new_env, pass_fds)


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
