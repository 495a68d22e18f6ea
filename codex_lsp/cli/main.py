"""`codex-lsp`: the command line. Each subcommand is a front door onto the same engine."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from codex_lsp import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="codex-lsp", description="The Codex agent engine for editors."
    )
    parser.add_argument("--version", action="version", version=f"codex-lsp {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    from codex_lsp.cli import exec_cmd, proto_cmd

    exec_cmd.add_parser(commands)
    proto_cmd.add_parser(commands)
    for name in ("serve", "app-server"):
        _add_optional(commands, name)
    return parser


def _add_optional(commands: argparse._SubParsersAction, name: str) -> None:
    """Doors that live in other packages register themselves if present."""
    import importlib

    module_name = {"serve": "codex_lsp.cli.serve_cmd", "app-server": "codex_lsp.cli.appserver_cmd"}[
        name
    ]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name != module_name:
            raise
        return
    module.add_parser(commands)


def add_config_arguments(parser: argparse.ArgumentParser) -> None:
    """Options every engine-backed command shares."""
    parser.add_argument(
        "-c",
        "--config",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config.toml key (dotted path)",
    )
    parser.add_argument("-p", "--profile", help="use [profiles.NAME] from config.toml")
    parser.add_argument("-m", "--model", help="model to use")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
