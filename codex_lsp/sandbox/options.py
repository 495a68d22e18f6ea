"""What a sandboxed command gets beyond its policy: limits, hidden directories, opt-ins.

`SandboxOptions` travels from the engine's config to `wrap_command`, which turns it
into launcher arguments. The defaults are the safe ones: a caller that passes
nothing gets the default limits and `$CODEX_HOME` plus the per-user server's socket
directory hidden.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

DEFAULT_MAX_PROCESSES = 1024
DEFAULT_MAX_MEMORY_MB = 2048
DEFAULT_HOME_DIRNAME = ".codex-lsp"
CODEX_CLI_HOME_DIRNAME = ".codex"
# What makes a folder a home in use: a config, a sign-in, or threads.
_HOME_MARKERS = ("config.toml", "auth.json", "sessions")


def default_codex_home(environ: Mapping[str, str] | None = None) -> str:
    """`$CODEX_HOME` if set; else `~/.codex-lsp` when it holds a config, a sign-in or
    sessions; else the Codex CLI's `~/.codex` when it does (config, sign-in and threads are
    then shared with the terminal); else `~/.codex-lsp`. Lives here, in the lowest layer that
    needs it, so that the sandbox hides exactly the home the engine uses."""
    env = os.environ if environ is None else environ
    explicit = env.get("CODEX_HOME", "").strip()
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    user = env.get("HOME") or os.path.expanduser("~")
    ours = os.path.join(user, DEFAULT_HOME_DIRNAME)
    for candidate in (ours, os.path.join(user, CODEX_CLI_HOME_DIRNAME)):
        if any(os.path.exists(os.path.join(candidate, name)) for name in _HOME_MARKERS):
            return candidate
    return ours


@dataclass(frozen=True)
class ResourceLimits:
    """Bounds on one command's tree; 0 means no limit.

    `max_processes` counts tasks (processes and threads); `max_memory_mb` bounds the
    whole tree where a delegated cgroup is available, each process's private memory
    otherwise.
    """

    max_processes: int = DEFAULT_MAX_PROCESSES
    max_memory_mb: int = DEFAULT_MAX_MEMORY_MB


def default_hidden_dirs(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """`$CODEX_HOME` (auth, sessions) and the directory of the per-user server's socket.

    Both follow the rules the rest of the package uses to find them; the socket
    directory is `$XDG_RUNTIME_DIR/codex-lsp` when there is one, else it lives inside
    `$CODEX_HOME` already.
    """
    env = os.environ if environ is None else environ
    hidden = [default_codex_home(env)]
    if not env.get("CODEX_HOME", "").strip():
        # The socket directory falls back to `~/.codex-lsp/run` (`appserver.attach`), also
        # when the home in use is the Codex CLI's `~/.codex`.
        ours = os.path.join(env.get("HOME") or os.path.expanduser("~"), DEFAULT_HOME_DIRNAME)
        if ours not in hidden:
            hidden.append(ours)
    runtime = env.get("XDG_RUNTIME_DIR", "")
    if runtime and os.path.isabs(runtime):
        hidden.append(os.path.join(runtime, "codex-lsp"))
    return tuple(hidden)


@dataclass(frozen=True)
class SandboxOptions:
    """Settings for `wrap_command` beyond the policy.

    * `limits`: see `ResourceLimits`.
    * `hidden_dirs`: directories a command may not read or reach, whatever the
      policy (None: `default_hidden_dirs()` of the engine's environment and of the
      command's); they are created if missing, so that they can be hidden before
      anything appears in them.
    * `protected_paths`: more paths inside the writable roots to keep read-only
      (the nested repositories `nested_git_dirs` finds, for instance).
    * `fallback_metadata_changes`: where no mount namespace is available, let commands
      change modes, owners, times and extended attributes (also outside the roots,
      which Landlock cannot tell apart). Off by default: such calls then fail
      everywhere.
    * `unix_sockets`: absolute paths of unix sockets a command may connect to, in
      every mode and network setting; no other unix socket is reachable.
    """

    limits: ResourceLimits = field(default_factory=ResourceLimits)
    hidden_dirs: tuple[str, ...] | None = None
    protected_paths: tuple[str, ...] = ()
    fallback_metadata_changes: bool = False
    unix_sockets: tuple[str, ...] = ()

    def hidden(self, command_env: Mapping[str, str] | None = None) -> tuple[str, ...]:
        """The directories to hide from a command that runs with `command_env`."""
        if self.hidden_dirs is not None:
            return self.hidden_dirs
        found = default_hidden_dirs()
        if command_env is not None:
            found += default_hidden_dirs(command_env)
        return tuple(dict.fromkeys(found))

    def launcher_args(self, command_env: Mapping[str, str] | None = None) -> list[str]:
        """The launcher's arguments for these options."""
        args = [
            "--max-processes",
            str(self.limits.max_processes),
            "--max-memory-mb",
            str(self.limits.max_memory_mb),
        ]
        for path in self.hidden(command_env):
            args += ["--hide", path]
        for path in self.protected_paths:
            args += ["--protect", path]
        if self.fallback_metadata_changes:
            args.append("--fallback-metadata-changes")
        for path in self.unix_sockets:
            args += ["--allow-unix-socket", path]
        return args
