"""`codex-lsp exec [PROMPT]`: run one task from the terminal, streaming the answer.

Approvals are asked on the terminal; `--json` prints every event as a JSON line instead of
the human rendering. The exit status is non-zero when the task ends in an error or abort; 2
for bad input (a missing `-C` folder, an empty prompt, a bad config), 1 outside a git
repository without `--skip-git-repo-check`, 141 when stdout is closed under it (as for any
Unix tool killed by SIGPIPE). This module only declares the command, so other commands start
without the engine.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

from codex_lsp.cli.arguments import add_config_arguments

APPROVAL_POLICIES = ("untrusted", "on-failure", "on-request", "never")
SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access")
# What a shell reports for a process that SIGPIPE ended: 128 + 13.
EXIT_BROKEN_PIPE = 141


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "exec",
        help="run one task non-interactively",
        description=(
            "Run one task and stream the answer. By default commands run in a read-only "
            "sandbox and approvals are asked here; --full-auto lets the agent write in the "
            "working directory without asking."
        ),
    )
    parser.add_argument(
        "prompt",
        nargs="?",
        help="what to do; '-' or nothing (with stdin not a terminal) reads it from stdin",
    )
    add_config_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print every event as JSONL")
    parser.add_argument(
        "--full-auto",
        action="store_true",
        help="shorthand for -s workspace-write -a on-request: write in the workspace, ask rarely",
    )
    parser.add_argument(
        "-s",
        "--sandbox",
        choices=SANDBOX_MODES,
        metavar="MODE",
        help=(
            "where commands may write: read-only (the default), workspace-write (the working "
            "directory and /tmp), danger-full-access (no sandbox)"
        ),
    )
    parser.add_argument(
        "-a",
        "--ask-for-approval",
        choices=APPROVAL_POLICIES,
        metavar="POLICY",
        help=(
            "when to ask before running a command: untrusted (all but known-safe reads), "
            "on-failure (when the sandbox blocks it), on-request (when the model asks; the "
            "default), never"
        ),
    )
    parser.add_argument(
        "-C", "--cd", type=Path, metavar="DIR", help="working directory for the task"
    )
    parser.add_argument(
        "--skip-git-repo-check",
        action="store_true",
        help="run even when the working directory is not inside a git repository",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from codex_lsp.cli.workdir import WorkdirError, resolve_workdir

    try:
        cwd = resolve_workdir(args.cd)
    except WorkdirError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    prompt = _read_prompt(args.prompt)
    if prompt is None:
        return 2
    args.cd = cwd
    return _run_engine(args, prompt)


def _outside_git(args: argparse.Namespace) -> bool:
    """True (after saying so) when the task would run where git cannot show or undo its work."""
    from codex_lsp.cli.workdir import git_repository_root

    if args.skip_git_repo_check or git_repository_root(args.cd) is not None:
        return False
    print(
        f"error: {args.cd} is not inside a git repository, so the agent's changes could not be "
        "reviewed or undone with git. Run it inside a repository, or pass "
        "--skip-git-repo-check to run here anyway.",
        file=sys.stderr,
    )
    return True


def _read_prompt(argument: str | None) -> str | None:
    """The prompt from the argument or stdin; None (after saying why) when there is none."""
    if argument is None or argument == "-":
        if argument is None and sys.stdin.isatty():
            print(
                "error: no prompt: pass it as an argument, or pipe it in on stdin",
                file=sys.stderr,
            )
            return None
        prompt = sys.stdin.read()
    else:
        prompt = argument
    if not prompt.strip():
        print(
            "error: the prompt is empty: say what the agent should do, as an argument or on stdin",
            file=sys.stderr,
        )
        return None
    return prompt


def _run_engine(args: argparse.Namespace, prompt: str) -> int:
    import anyio

    from codex_lsp.cli.exec_session import run_task
    from codex_lsp.engine.bootstrap import load_services
    from codex_lsp.store.config_errors import ConfigError

    try:
        services = load_services(profile=args.profile, overrides=args.overrides, cwd=args.cd)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if _outside_git(args):
        return 1
    try:
        return anyio.run(run_task, args, services, prompt)
    except BaseException as err:
        if not _only_broken_pipes(err):
            raise
    # Whoever read our output has gone: stop quietly. Later writes (and the interpreter's
    # final flush) go nowhere instead of raising again.
    _silence_standard_streams()
    return EXIT_BROKEN_PIPE


def _only_broken_pipes(err: BaseException) -> bool:
    if isinstance(err, BaseExceptionGroup):
        return all(_only_broken_pipes(inner) for inner in err.exceptions)
    return isinstance(err, BrokenPipeError)


def _silence_standard_streams() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            os.dup2(devnull, stream.fileno())
    os.close(devnull)
