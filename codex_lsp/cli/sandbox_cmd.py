"""`codex-lsp sandbox [OPTIONS] -- COMMAND...`: run any command under the sandbox the agent's
commands get, to see what it allows.

The policy is the config's (`sandbox_mode`, `[sandbox_workspace_write]`), or `-s MODE`, or
`--full-auto` (workspace-write); the working directory (`-C`) is the workspace. The command
gets the environment the agent's commands get (the shell environment policy) and its exit
status is this command's. When the kernel cannot enforce the policy, nothing runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from codex_lsp.cli.arguments import add_config_arguments
from codex_lsp.cli.exec_options import SANDBOX_MODES


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "sandbox",
        help="run a command under the sandbox: sandbox [-s MODE] -- COMMAND...",
        description="Run COMMAND under the sandbox the agent's commands get.",
    )
    add_config_arguments(parser)
    parser.add_argument(
        "-s",
        "--sandbox",
        choices=SANDBOX_MODES,
        metavar="MODE",
        help="read-only, workspace-write or danger-full-access (default: config)",
    )
    parser.add_argument("--full-auto", action="store_true", help="as -s workspace-write")
    parser.add_argument(
        "-C",
        "--cd",
        type=Path,
        metavar="DIR",
        help="the workspace, where the command runs (default: here)",
    )
    parser.add_argument(
        "command",
        nargs=argparse.REMAINDER,
        metavar="COMMAND",
        help="the command and its arguments, after --",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from codex_lsp.cli.workdir import WorkdirError, resolve_workdir
    from codex_lsp.engine.bootstrap import load_services
    from codex_lsp.engine.sandboxing import prepare_command
    from codex_lsp.sandbox import SandboxUnavailable
    from codex_lsp.store.config_errors import ConfigError

    argv = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not argv:
        print("error: name the command to run: codex-lsp sandbox -- COMMAND...", file=sys.stderr)
        return 2
    try:
        cwd = resolve_workdir(args.cd).resolve()
        services = load_services(profile=args.profile, overrides=args.overrides, cwd=cwd)
    except (WorkdirError, ConfigError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    config = services.config
    mode = "workspace-write" if args.full_auto and not args.sandbox else args.sandbox
    if mode:
        config = config.model_copy(update={"sandbox_mode": mode})
    try:
        prepared = prepare_command(
            argv,
            policy=config.sandbox_policy(cwd),
            policy_cwd=cwd,
            config=config,
            codex_home=services.codex_home,
            sandboxed=True,
        )
    except SandboxUnavailable as err:
        print(f"error: the sandbox cannot run here, so nothing ran: {err}", file=sys.stderr)
        return 1
    os.chdir(cwd)
    for fd in prepared.pass_fds:
        os.set_inheritable(fd, True)  # the launcher reads them, then closes them
    try:
        os.execvpe(prepared.argv[0], prepared.argv, prepared.env)
    except OSError as err:
        print(f"error: cannot run {argv[0]}: {err}", file=sys.stderr)
        return 127
    return 0  # not reached
