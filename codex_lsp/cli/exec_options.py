"""The options of `codex-lsp exec` and of its `resume`, `fork` and `review` forms, as `codex exec`
has them.

The forms take the same options as `exec` itself, before or after the word: `exec --json
resume ID` (how OpenAI's TypeScript SDK runs a later turn) and `exec resume --json ID` mean the
same. The form's parser leaves what it was not given alone, so an option given before the word
still counts.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from codex_lsp.cli.arguments import add_config_arguments

APPROVAL_POLICIES = ("untrusted", "on-failure", "on-request", "never")
SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access")
COLORS = ("always", "never", "auto")
SUBCOMMANDS = ("resume", "fork", "review")


def add_exec_options(parser: argparse.ArgumentParser, *, keep_unset: bool = False) -> None:
    """Every option `exec` takes. With `keep_unset`, an option not on the command line leaves
    the namespace as it is (for the subcommands, parsed into `exec`'s namespace)."""

    def add(*names: str, **kwargs: Any) -> None:
        if keep_unset:
            kwargs["default"] = argparse.SUPPRESS
        parser.add_argument(*names, **kwargs)

    if keep_unset:
        parser.add_argument(
            "-c",
            "--config",
            dest="overrides",
            action="append",
            metavar="KV",
            default=argparse.SUPPRESS,
            help="override a config.toml key",
        )
        add("-p", "--profile", help="use this profile")
        add("-m", "--model", help="model to use")
    else:
        add_config_arguments(parser)
    add(
        "--json",
        "--experimental-json",
        dest="json",
        action="store_true",
        help="print the thread's events as JSONL (thread.started, item.completed, ...)",
    )
    add("--raw-events", action="store_true", help="print the engine's own events as JSONL")
    add(
        "--full-auto",
        action="store_true",
        help="shorthand for -s workspace-write -a on-request: write in the workspace, ask rarely",
    )
    add(
        "-s",
        "--sandbox",
        choices=SANDBOX_MODES,
        metavar="MODE",
        help="where commands may write: read-only (the default), workspace-write (the working "
        "directory and /tmp), danger-full-access (no sandbox)",
    )
    add(
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
    add(
        "--dangerously-bypass-approvals-and-sandbox",
        dest="bypass",
        action="store_true",
        help="never ask and run commands without a sandbox: only where something else "
        "sandboxes this whole process",
    )
    add("-C", "--cd", type=Path, metavar="DIR", help="working directory for the task")
    add(
        "--add-dir",
        dest="add_dirs",
        action="append",
        type=Path,
        metavar="DIR",
        help="another folder commands may write in (workspace-write)",
    )
    add(
        "--skip-git-repo-check",
        action="store_true",
        help="run even when the working directory is not inside a git repository",
    )
    add(
        "-i",
        "--image",
        dest="images",
        action="append",
        metavar="FILE",
        help="attach an image to the prompt (repeatable, or comma-separated)",
    )
    add(
        "--enable",
        dest="enable",
        action="append",
        metavar="FEATURE",
        help="turn a feature on (as -c features.FEATURE=true)",
    )
    add(
        "--disable",
        dest="disable",
        action="append",
        metavar="FEATURE",
        help="turn a feature off (as -c features.FEATURE=false)",
    )
    add("--ephemeral", action="store_true", help="keep no session file on disk")
    add(
        "--output-schema",
        type=Path,
        metavar="FILE",
        help="a JSON Schema file the final answer must match",
    )
    add(
        "-o",
        "--output-last-message",
        dest="last_message_file",
        type=Path,
        metavar="FILE",
        help="also write the agent's last message to FILE",
    )
    add("--color", choices=COLORS, help="colour in the output: always, never, auto (default)")


def add_resume_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "session_id",
        nargs="?",
        metavar="SESSION_ID",
        help="the session to continue (its id or its name)",
    )
    parser.add_argument(
        "resume_prompt",
        nargs="?",
        metavar="PROMPT",
        help="what to say next; '-' or nothing reads it from stdin",
    )
    parser.add_argument(
        "--last", action="store_true", help="continue the most recent session in this folder"
    )
    parser.add_argument(
        "--all",
        dest="all_folders",
        action="store_true",
        help="with --last: the most recent session in any folder",
    )


def add_review_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "review_prompt",
        nargs="?",
        metavar="PROMPT",
        help="custom review instructions; '-' reads them from stdin",
    )
    target = parser.add_mutually_exclusive_group()
    target.add_argument(
        "--uncommitted", action="store_true", help="review staged, unstaged and untracked changes"
    )
    target.add_argument("--base", metavar="BRANCH", help="review changes against BRANCH")
    target.add_argument("--commit", metavar="SHA", help="review the changes of a commit")
    parser.add_argument("--title", help="the commit's title, shown in the review")


def parse_subcommand(name: str, rest: list[str], args: argparse.Namespace, prog: str) -> None:
    """Parse what follows `exec resume` / `exec review` into `args`."""
    parser = argparse.ArgumentParser(prog=f"{prog} {name}")
    add_exec_options(parser, keep_unset=True)
    if name in ("resume", "fork"):
        add_resume_arguments(parser)
    else:
        add_review_arguments(parser)
    parser.parse_intermixed_args(rest, namespace=args)
    if (
        name == "resume"
        and args.last
        and args.session_id is not None
        and args.resume_prompt is None
    ):
        # `resume --last PROMPT`: with --last the one word is the prompt, not an id.
        args.resume_prompt, args.session_id = args.session_id, None


def feature_overrides(args: argparse.Namespace) -> list[str]:
    """`--enable X` / `--disable Y` as the `-c features.X=true` overrides they stand for."""
    return [f"features.{name}=true" for name in args.enable or []] + [
        f"features.{name}=false" for name in args.disable or []
    ]


def image_paths(args: argparse.Namespace) -> list[Path]:
    paths: list[Path] = []
    for value in args.images or []:
        paths.extend(Path(part) for part in value.split(",") if part)
    return paths
