"""`codex-lsp exec [PROMPT]`: run one task from the terminal, streaming the answer.

`exec resume` continues a recorded session and `exec review` reviews changes, as `codex exec`
does. Approvals are asked on the terminal; `--json` prints the thread's events as JSON lines
(codex's format), `--raw-events` the engine's own. The exit status is non-zero when the task
ends in an error or abort; 2 for bad input (a missing `-C` folder, an empty prompt, a bad
config), 1 outside a git repository without `--skip-git-repo-check`, 141 when stdout is closed
under it (as for any Unix tool killed by SIGPIPE). This module only declares the command, so
other commands start without the engine.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

from codex_lsp.cli.exec_options import (
    SUBCOMMANDS,
    add_exec_options,
    feature_overrides,
    parse_subcommand,
)

# What a shell reports for a process that SIGPIPE ended: 128 + 13.
EXIT_BROKEN_PIPE = 141


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "exec",
        help="run one task non-interactively",
        usage="%(prog)s [OPTIONS] [PROMPT]\n       %(prog)s [OPTIONS] {resume,fork,review} ...",
        description=(
            "Run one task and stream the answer. By default commands run in a read-only "
            "sandbox and approvals are asked here; --full-auto lets the agent write in the "
            "working directory without asking. `exec resume [--last | ID] [PROMPT]` continues "
            "a session, `exec fork` continues a copy of it; `exec review [--uncommitted | "
            "--base BRANCH | --commit SHA] [PROMPT]` reviews changes."
        ),
    )
    parser.add_argument(
        "prompt",
        nargs="?",
        help=(
            "what to do; '-' or nothing reads it from stdin; piped input with a prompt is "
            "added to it as a <stdin> block"
        ),
    )
    parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    add_exec_options(parser)
    parser.set_defaults(run=run, exec_parser=parser)


def run(args: argparse.Namespace) -> int:
    from codex_lsp.cli.workdir import WorkdirError, resolve_workdir

    args.mode = "new"
    if args.prompt in SUBCOMMANDS:
        args.mode, args.prompt = args.prompt, None
        parse_subcommand(args.mode, args.rest, args, args.exec_parser.prog)
        args.prompt = args.review_prompt if args.mode == "review" else args.resume_prompt
    elif args.rest:
        args.exec_parser.error(f"unrecognized arguments: {' '.join(args.rest)}")
    try:
        cwd = resolve_workdir(args.cd)
    except WorkdirError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.mode == "review" and not _names_a_review_target(args):
        print(
            "error: say what to review: --uncommitted, --base BRANCH, --commit SHA, or custom "
            "review instructions",
            file=sys.stderr,
        )
        return 1
    prompt = _prompt_for(args)
    if prompt is None:
        return 2
    args.cd = cwd
    args.overrides = [*args.overrides, *feature_overrides(args)]
    return _run_engine(args, prompt)


def _names_a_review_target(args: argparse.Namespace) -> bool:
    return bool(args.uncommitted or args.base or args.commit or args.prompt)


def _prompt_for(args: argparse.Namespace) -> str | None:
    """The prompt of this run; "" for a review without custom instructions; None (after saying
    why) when one is needed and missing."""
    if args.mode == "review":
        if args.prompt is None:
            return ""
        return _read_prompt(args.prompt)
    return _read_prompt(args.prompt)


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
    """The prompt from the argument and stdin; None (after saying why) when there is none.

    With a prompt and stdin not a terminal, what is piped in is added after the prompt in a
    `<stdin>` block, as codex does (`git diff | codex-lsp exec "review this"`)."""
    if argument is None or argument == "-":
        if argument is None and sys.stdin.isatty():
            print(
                "error: no prompt: pass it as an argument, or pipe it in on stdin",
                file=sys.stderr,
            )
            return None
        prompt = sys.stdin.read()
    else:
        prompt = with_piped_input(argument, _piped_input())
    if not prompt.strip():
        print(
            "error: the prompt is empty: say what the agent should do, as an argument or on stdin",
            file=sys.stderr,
        )
        return None
    return prompt


def _piped_input() -> str:
    if sys.stdin is None or sys.stdin.closed or sys.stdin.isatty():
        return ""
    print("Reading additional input from stdin...", file=sys.stderr)
    return sys.stdin.read()


def with_piped_input(prompt: str, piped: str) -> str:
    """`prompt`, then what was piped in (if anything but blanks) as a `<stdin>` block."""
    if not piped.strip():
        return prompt
    closing = "" if piped.endswith("\n") else "\n"
    return f"{prompt}\n\n<stdin>\n{piped}{closing}</stdin>"


def _run_engine(args: argparse.Namespace, prompt: str) -> int:
    import anyio

    from codex_lsp.cli.exec_session import ExecInputError, run_task, turn_op
    from codex_lsp.cli.sessions import SessionNotFound, find_session
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
        args.resume_path = args.fork_path = None
        if args.mode in ("resume", "fork"):
            found = find_session(
                services.codex_home,
                args.session_id,
                last=args.last,
                cwd=args.cd,
                any_folder=args.all_folders,
            )
            setattr(args, f"{args.mode}_path", found)
        turn = turn_op(args, prompt)
    except (ExecInputError, SessionNotFound) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    try:
        return anyio.run(run_task, args, services, prompt, turn)
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
