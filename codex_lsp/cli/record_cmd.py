"""`codex-lsp record [COMMAND ARGS...]` and `codex-lsp replay FILE`.

`record` runs another command (`serve` unless told: `record exec "fix it"`, `record
app-server`) with the `record_model_streams` feature on: every thread saves its model requests
and streamed answers, secrets removed, next to its rollout (`model-streams-*.jsonl`).

`replay FILE` (the recording, or the rollout beside it) runs the same thread again against the
recording, offline, and says whether it reached the same items. Commands and patches run for
real, in the current directory or `--cd DIR`, under the user's sandbox and approval policy
(`-s`, `-a`, else config.toml's), never the recording's; approvals are asked on the terminal.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from codex_lsp.cli.exec_options import APPROVAL_POLICIES, SANDBOX_MODES

RECORDABLE = ("serve", "exec", "app-server", "proto")
FEATURE_ON = "features.record_model_streams=true"


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    record = commands.add_parser(
        "record",
        help="run a command (serve by default) saving each thread's model streams for replay",
    )
    record.add_argument(
        "recorded",
        nargs=argparse.REMAINDER,
        metavar="COMMAND ...",
        help=f"the command to run and its arguments ({', '.join(RECORDABLE)}); default: serve",
    )
    record.set_defaults(rerun=recorded_command)

    replay = commands.add_parser(
        "replay", help="run a recorded thread again offline against its recording"
    )
    replay.add_argument("file", type=Path, help="the recording (model-streams-*.jsonl) or rollout")
    replay.add_argument(
        "-C",
        "--cd",
        type=Path,
        help="run the thread's commands here (default: the current directory, never where the "
        "recording says it ran)",
    )
    replay.add_argument(
        "-s",
        "--sandbox",
        choices=SANDBOX_MODES,
        metavar="MODE",
        help="where commands may write (default: config.toml's sandbox_mode, else read-only); "
        "the recording's own policy is never used",
    )
    replay.add_argument(
        "-a",
        "--ask-for-approval",
        choices=APPROVAL_POLICIES,
        metavar="POLICY",
        help="when to ask (default: config.toml's approval_policy, else on-request); "
        "approvals are asked on the terminal",
    )
    replay.set_defaults(run=run_replay)


def recorded_command(args: argparse.Namespace) -> list[str] | None:
    """The command line `record` runs, or None (said why) when it cannot be recorded."""
    recorded = list(args.recorded) or ["serve"]
    command, rest = recorded[0], recorded[1:]
    if command not in RECORDABLE:
        print(f"error: record runs one of {', '.join(RECORDABLE)}, not {command!r}")
        return None
    return [command, "-c", FEATURE_ON, *rest]


def run_replay(args: argparse.Namespace) -> int:
    import sys
    from functools import partial

    import anyio

    from codex_lsp.cli.replay_session import ReplayError, replay

    try:
        run = partial(
            replay, sandbox=args.sandbox, approval=args.ask_for_approval, terminal=sys.stderr
        )
        return anyio.run(run, args.file, args.cd, sys.stdout)
    except ReplayError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
