"""`codex-lsp`: the command line. Each subcommand is a front door onto the same engine."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from codex_lsp import __version__

if TYPE_CHECKING:
    import argparse


def build_parser() -> argparse.ArgumentParser:
    import argparse  # here, not at the top: `app-server --attach` must start without it

    parser = argparse.ArgumentParser(
        prog="codex-lsp", description="The Codex agent engine for editors."
    )
    parser.add_argument("--version", action="version", version=f"codex-lsp {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    from codex_lsp.cli import doctor_cmd, exec_cmd, login_cmd, proto_cmd, record_cmd

    exec_cmd.add_parser(commands)
    proto_cmd.add_parser(commands)
    doctor_cmd.add_parser(commands)
    login_cmd.add_parser(commands)
    record_cmd.add_parser(commands)
    for name in ("serve", "app-server", "acp"):
        _add_optional(commands, name)
    return parser


def _add_optional(commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str) -> None:
    """Doors that live in other packages register themselves if present."""
    import importlib

    module_name = {
        "serve": "codex_lsp.cli.serve_cmd",
        "app-server": "codex_lsp.cli.appserver_cmd",
        "acp": "codex_lsp.cli.acp_cmd",
    }[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name != module_name:
            raise
        return
    module.add_parser(commands)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if _wants_attach(arguments):
        # The launcher must start in a few milliseconds: no parser, no engine.
        from codex_lsp.appserver.attach import main as attach

        return attach([arg for arg in arguments if arg != "--attach"])
    parser = build_parser()
    args = parser.parse_args(arguments)
    rerun = getattr(args, "rerun", None)
    if rerun is not None:
        # `record COMMAND ...`: the recorded command's own line, with recording turned on.
        command = rerun(args)
        return main(command) if command is not None else 2
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    if getattr(args, "overrides", None):
        from codex_lsp.store.config_keys import override_warnings

        for warning in override_warnings(args.overrides):
            print(warning, file=sys.stderr)
    if getattr(args, "command", None) == "exec":
        _warn_ignored_keys(args)
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        return 130


def _warn_ignored_keys(args: argparse.Namespace) -> None:
    """Name on stderr each key of the user's config files that the run will ignore; a config
    that cannot load is left for the command itself to report."""
    from codex_lsp.store.config import load_config
    from codex_lsp.store.config_errors import ConfigError
    from codex_lsp.store.config_keys import file_key_warnings

    try:
        config = load_config(profile=args.profile, overrides=args.overrides)
    except ConfigError:
        return
    for ignored in file_key_warnings(config):
        print(f"warning: {ignored}", file=sys.stderr)


# Arguments only the full parser handles: help, the app-server's tools, serve's other modes.
_NOT_ATTACHED = {
    "-h",
    "--help",
    "generate-json-schema",
    "generate-ts",
    "--hangup-fd",
    "--tcp",
    "--token-file",
    "--print-launcher",
}


def _wants_attach(args: list[str]) -> bool:
    """`serve --attach [OPTIONS]` or `app-server --attach [OPTIONS]`, and nothing the full
    parser must look at first."""
    if not args or args[0] not in ("serve", "app-server") or "--attach" not in args[1:]:
        return False
    return not any(arg.partition("=")[0] in _NOT_ATTACHED for arg in args[1:])


if __name__ == "__main__":
    sys.exit(main())
