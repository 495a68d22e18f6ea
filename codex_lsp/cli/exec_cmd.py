"""`codex-lsp exec PROMPT`: run one task from the terminal, streaming the answer.

Approvals are asked on the terminal; `--json` prints every event as a JSON line instead of
the human rendering. The exit status is non-zero when the task ends in an error or abort.
This module only declares the command, so other commands start without the engine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from codex_lsp.cli.main import add_config_arguments

APPROVAL_POLICIES = ("untrusted", "on-failure", "on-request", "never")
SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access")


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("exec", help="run one task non-interactively")
    parser.add_argument("prompt", help="what to do; '-' reads it from stdin")
    add_config_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print every event as JSONL")
    parser.add_argument(
        "--full-auto",
        action="store_true",
        help="run sandboxed in the workspace without asking (on-request)",
    )
    parser.add_argument("-s", "--sandbox", choices=SANDBOX_MODES)
    parser.add_argument("-a", "--ask-for-approval", choices=APPROVAL_POLICIES)
    parser.add_argument("-C", "--cd", type=Path, help="working directory for the task")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import anyio

    from codex_lsp.cli.exec_session import run_task
    from codex_lsp.engine.bootstrap import load_services
    from codex_lsp.store.config import ConfigError

    prompt = sys.stdin.read() if args.prompt == "-" else args.prompt
    try:
        services = load_services(profile=args.profile, overrides=args.overrides, cwd=args.cd)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return anyio.run(run_task, args, services, prompt)
