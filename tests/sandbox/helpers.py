"""Running real commands through the sandbox launcher, and reading what they said."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from codex_lsp.protocol.core.policy import DangerFullAccess, ReadOnly, WorkspaceWrite
from codex_lsp.sandbox import WrappedCommand, is_likely_sandbox_denied, wrap_command

DENIALS = ("Permission denied", "Operation not permitted", "Read-only file system")
ISOLATED = WorkspaceWrite(exclude_slash_tmp=True, exclude_tmpdir_env_var=True)
NETWORKED = WorkspaceWrite(exclude_slash_tmp=True, exclude_tmpdir_env_var=True, network_access=True)
PY = sys.executable
Policy = WorkspaceWrite | ReadOnly | DangerFullAccess


@dataclass
class Result:
    code: int
    output: str

    def denied(self) -> bool:
        return any(d in self.output for d in DENIALS) and is_likely_sandbox_denied(
            self.code, self.output
        )


def make_repo(root: Path) -> Path:
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "README.md").write_text("hello\n")
    (root / "src").mkdir()
    return root


def policy_for(network: bool) -> WorkspaceWrite:
    return NETWORKED if network else ISOLATED


def sandbox_env(mode: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The test's environment for a wrapped command in `mode` (`mountns` or `landlock-only`)."""
    env = dict(os.environ)
    env.pop("TMPDIR", None)
    if mode == "landlock-only":
        env["CODEX_LSP_SANDBOX_DISABLE"] = "mountns"
    env.update(extra or {})
    return env


def wrap(
    argv: list[str],
    ws: Path,
    mode: str = "mountns",
    policy: Policy = ISOLATED,
    *,
    options: object | None = None,
    env: dict[str, str] | None = None,
    roots: object | None = None,
) -> WrappedCommand:
    """`wrap_command` for a test; `options` and `roots` are passed only when given."""
    # The launcher reads the mode switch from the command's environment.
    environ = sandbox_env(mode, env)
    kwargs: dict[str, object] = {"options": options} if options is not None else {}
    if roots is not None:
        kwargs["roots"] = roots
    return wrap_command(argv, policy, ws, environ, **kwargs)  # type: ignore[arg-type]


def run(
    script: str | list[str],
    ws: Path,
    mode: str = "mountns",
    policy: Policy = ISOLATED,
    *,
    options: object | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> Result:
    """Run `script` (bash) or an argv through the launcher and collect its output."""
    argv = ["bash", "-c", script] if isinstance(script, str) else script
    return run_wrapped(wrap(argv, ws, mode, policy, options=options, env=env), ws, timeout=timeout)


def run_wrapped(
    wrapped: WrappedCommand,
    cwd: Path | str,
    *,
    timeout: float = 120,
    python: str | None = None,
    nobody: bool = False,
) -> Result:
    """Start `wrapped` as the engine does (its descriptors passed, then closed) and collect
    its output. `nobody` runs it as uid and gid 65534, the launcher under `python` (one that
    user can run)."""
    argv = wrapped.argv if python is None else [python, *wrapped.argv[1:]]
    user: dict[str, object] = {"user": 65534, "group": 65534, "extra_groups": []} if nobody else {}
    with wrapped:
        proc = subprocess.run(
            argv,
            env=wrapped.env,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            pass_fds=wrapped.pass_fds,
            **user,  # type: ignore[call-overload]
        )
    return Result(proc.returncode, proc.stdout + proc.stderr)
