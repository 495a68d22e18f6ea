"""How the engine starts a command: the environment it gets and the sandbox around it.

Every process started for the model or a client goes through `prepare_command` (the shell
tools, unified exec, the user's `!` commands, `command/exec`), so that each one gets the same
`[shell_environment_policy]` environment, the same limits (`[sandbox_linux]`) and the same
hidden directories (`$CODEX_HOME`, the per-user server's socket directory). Run the
result with `close_fds=True`, passing `pass_fds`, and in a session of its own
(`start_new_session=True`), then `close()` it; stop it
with SIGTERM to its process group, then SIGKILL if it is still there a second later (see
`codex_lsp.sandbox`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from codex_lsp.engine.env_policy import shell_environment
from codex_lsp.protocol.core.policy import DangerFullAccess, ReadOnly, WorkspaceWrite
from codex_lsp.sandbox import (
    HeldRoots,
    ResourceLimits,
    SandboxOptions,
    WrappedCommand,
    default_hidden_dirs,
    wrap_command,
)
from codex_lsp.store.config import Config
from codex_lsp.store.config_sandbox import SandboxLinux, ShellEnvironmentPolicy
from codex_lsp.store.secrets import credential_variables

Policy = DangerFullAccess | ReadOnly | WorkspaceWrite


@dataclass(frozen=True)
class PreparedCommand:
    """What to pass to the process-starting call: the argv and the complete environment."""

    argv: list[str]
    env: dict[str, str]
    sandboxed: bool
    """Whether `argv` runs the sandbox launcher (the policy confines the command)."""
    wrapped: WrappedCommand | None = field(default=None, repr=False, compare=False)
    """What the launcher reads besides its argv; kept open until `close()`."""

    @property
    def pass_fds(self) -> tuple[int, ...]:
        """Descriptors to pass to the process-starting call (see `WrappedCommand`)."""
        return self.wrapped.pass_fds if self.wrapped is not None else ()

    def close(self) -> None:
        """Close our copies of `pass_fds`, once the process has started (or will not)."""
        if self.wrapped is not None:
            self.wrapped.close()


def sandbox_options(config: Config | None, codex_home: Path | None) -> SandboxOptions:
    """The sandbox settings a session's config asks for."""
    settings = config.sandbox_linux if config is not None else SandboxLinux()
    environ: dict[str, str] = {}
    if codex_home is not None:
        environ["CODEX_HOME"] = os.fspath(codex_home)
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        environ["XDG_RUNTIME_DIR"] = runtime
    return SandboxOptions(
        limits=ResourceLimits(settings.max_processes, settings.max_memory_mb),
        hidden_dirs=default_hidden_dirs(environ),
        fallback_metadata_changes=settings.fallback_metadata_changes,
        unix_sockets=tuple(settings.allow_unix_sockets),
    )


def command_environment(
    config: Config | None, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment a command gets under the config's shell environment policy."""
    policy = config.shell_environment_policy if config is not None else ShellEnvironmentPolicy()
    credentials = credential_variables(config)
    return shell_environment(policy, os.environ if environ is None else environ, credentials)


def prepare_command(
    argv: Sequence[str],
    *,
    policy: Policy,
    policy_cwd: Path,
    config: Config | None,
    codex_home: Path | None,
    sandboxed: bool,
    roots: HeldRoots | None = None,
    env: Mapping[str, str] | None = None,
) -> PreparedCommand:
    """`argv` ready to start: sandboxed under `policy` unless `sandboxed` is false or the
    policy is `danger-full-access`. `policy_cwd` is the session's cwd, which the policy's
    roots come from, whatever directory the command itself runs in.

    `roots` are the session's held writable roots (see `TurnContext.roots`). `env` is the
    environment to start from when the caller shapes it further (unified exec's settings, a
    client's overrides); by default the config's shell environment policy shapes ours.

    Raises `SandboxUnavailable` when the kernel cannot enforce the policy, and `RootMoved`
    when a held root's path no longer leads to the folder it was opened on.
    """
    start_env = command_environment(config) if env is None else dict(env)
    if not sandboxed or isinstance(policy, DangerFullAccess):
        return PreparedCommand(list(argv), start_env, sandboxed=False)
    options = sandbox_options(config, codex_home)
    wrapped = wrap_command(argv, policy, policy_cwd, start_env, options=options, roots=roots)
    return PreparedCommand(wrapped.argv, wrapped.env, sandboxed=True, wrapped=wrapped)
