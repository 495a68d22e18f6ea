"""`codex-lsp serve`: the language server an editor starts, on stdio or `--tcp HOST:PORT`.

Only the argument parser lives at module level: pygls, lsprotocol and the engine are imported
when the command runs, and the engine only after the editor's `initialize` has been answered.
"""

from __future__ import annotations

import argparse
import sys

from codex_lsp.cli.main import add_config_arguments


def _host_port(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {value!r}")
    return host.strip("[]"), int(port)


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "serve", help="serve the engine to an editor as a language server (stdio by default)"
    )
    parser.add_argument(
        "--tcp",
        type=_host_port,
        metavar="HOST:PORT",
        help="listen on a TCP socket for one editor instead of using stdio (port 0: any)",
    )
    add_config_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from codex_lsp.lsp.logs import configure_process_logging

    configure_process_logging()

    from codex_lsp.lsp.engine_host import EngineOptions
    from codex_lsp.lsp.server import build_server
    from codex_lsp.lsp.transport import run_stdio, run_tcp

    options = EngineOptions(profile=args.profile, overrides=list(args.overrides), model=args.model)
    server = build_server(options)
    if args.tcp is not None:
        host, port = args.tcp
        return run_tcp(server, host, port)
    if sys.stdin.isatty():
        _greet_a_person()
    return run_stdio(server)


def _greet_a_person() -> None:
    """A person, not an editor, started the server: say why nothing seems to happen, and let
    Ctrl-C end it at once, whatever it is doing (no editor is attached to lose anything)."""
    import os
    import signal

    print(
        "codex-lsp serve speaks the Language Server Protocol on stdin/stdout for an editor "
        "to start; it waits for one. Press Ctrl-C to stop.",
        file=sys.stderr,
        flush=True,
    )
    signal.signal(signal.SIGINT, lambda *_: os._exit(130))
