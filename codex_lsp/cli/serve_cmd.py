"""`codex-lsp serve`: the language server an editor starts, on stdio or `--tcp HOST:PORT`.

Only the argument parser lives at module level. On stdio the editor's `initialize` is answered
first (`lsp/early_initialize.py`); pygls, lsprotocol and the features are imported after that,
while the API and the engine load in the background (`wire/preload.py`); the engine starts
once the editor has said `initialized`.

`--attach` serves the same session from the warm per-user server (`appserver/attach.py`),
which is how the editor shims start it; `--print-launcher` prints the leanest command line for
that, which needs neither this module nor site-packages to start.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from codex_lsp.cli.arguments import add_config_arguments

if TYPE_CHECKING:
    from codex_lsp.lsp.engine_host import EngineOptions


def _host_port(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {value!r}")
    return host.strip("[]"), int(port)


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "serve", help="serve the engine to an editor as a language server (stdio by default)"
    )
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument(
        "--tcp",
        type=_host_port,
        metavar="HOST:PORT",
        help="listen on a TCP socket for one editor instead of using stdio (port 0: any); "
        "its first message must carry Authorization: Bearer <the token in "
        "$CODEX_HOME/listen-token>",
    )
    transport.add_argument(
        "--stdio",
        action="store_true",
        help="serve on stdin/stdout (the default; accepted as many LSP clients pass it)",
    )
    transport.add_argument(
        "--attach",
        action="store_true",
        help="serve stdio from a warm per-user server, started on first use (faster starts)",
    )
    transport.add_argument(
        "--print-launcher",
        action="store_true",
        help="print, as a JSON list, the leanest command line for `serve --attach` and exit",
    )
    parser.add_argument(
        "--token-file",
        metavar="PATH",
        help="with --tcp: the token clients must send, from this file (absolute, mode 0600); "
        "required for an address other than loopback",
    )
    # The warm server's session: end when this descriptor (the launcher's line) closes.
    parser.add_argument("--hangup-fd", type=int, default=None, help=argparse.SUPPRESS)
    add_config_arguments(parser)
    parser.set_defaults(run=run)


def _config_args(args: argparse.Namespace) -> list[str]:
    """The config options as given, for a command line of their own."""
    rebuilt = [arg for override in args.overrides or [] for arg in ("-c", override)]
    rebuilt += ["-p", args.profile] if args.profile else []
    rebuilt += ["-m", args.model] if args.model else []
    return rebuilt


def run(args: argparse.Namespace) -> int:
    if args.token_file is not None and args.tcp is None:
        print("error: --token-file is for --tcp", file=sys.stderr)
        return 2
    if args.print_launcher or args.attach:
        from codex_lsp.appserver import attach

        command = ["serve", *_config_args(args)]
        if args.attach:  # only when `cli.main`'s fast path did not see the flag
            return attach.main(command)
        import json

        print(json.dumps(attach.launcher(command)))
        return 0

    from codex_lsp.lsp.logs import configure_process_logging

    configure_process_logging()
    if args.tcp is not None:
        return _serve_tcp(args)
    if sys.stdin.isatty():
        _greet_a_person()

    from codex_lsp.lsp.early_initialize import take_initialize

    first = take_initialize()
    _load_the_rest(answered=first.answered_id is not None)

    from codex_lsp.lsp.server import build_server
    from codex_lsp.lsp.transport import dispatch, run_stdio

    server = build_server(_options(args))
    return run_stdio(
        server,
        before_reading=lambda: first.replay(server.protocol, dispatch),
        hangup=args.hangup_fd,
        unread=first.unread,
    )


def _load_the_rest(*, answered: bool) -> None:
    """Once `initialize` is answered, load the API and the engine in the background while
    pygls and the features load here (`wire/preload.py`)."""
    import logging

    from codex_lsp.wire import preload

    loaded = preload.loaded_heavy_modules()
    if answered:
        preload.start()
        logging.getLogger(__name__).debug(
            "initialize answered; heavy modules loaded by then: %s", ", ".join(loaded) or "none"
        )


def _options(args: argparse.Namespace) -> EngineOptions:
    from codex_lsp.lsp.engine_host import EngineOptions

    return EngineOptions(profile=args.profile, overrides=list(args.overrides), model=args.model)


def _serve_tcp(args: argparse.Namespace) -> int:
    from codex_lsp.store.home import codex_home
    from codex_lsp.wire.door_token import TokenError, door_auth, is_loopback

    host, port = args.tcp
    if args.token_file is None and not is_loopback(host):
        print(
            f"error: refusing to listen on {host}:{port} without a token: anyone who can reach "
            "it could run commands here. Pass --token-file PATH (for instance "
            f"{codex_home() / 'listen-token'}), or listen on 127.0.0.1",
            file=sys.stderr,
        )
        return 2
    try:
        auth, token_path = door_auth(codex_home(), args.token_file)
    except (TokenError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2

    from codex_lsp.lsp.server import build_server
    from codex_lsp.lsp.tcp import run_tcp

    return run_tcp(build_server(_options(args)), host, port, auth, token_path)


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
