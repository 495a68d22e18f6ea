"""`codex-lsp app-server`: the v2 API as JSON-RPC over stdio, a unix socket or WebSocket, plus
schema and TypeScript export.

    codex-lsp app-server [-c key=value] [-p profile] [--listen stdio://]
    codex-lsp app-server --listen unix:///PATH
    codex-lsp app-server --listen ws://127.0.0.1:PORT [--ws-auth capability-token]
                         [--ws-token-file PATH | --ws-token-sha256 HEX]
    codex-lsp app-server --attach [-c key=value] [-p profile]
    codex-lsp app-server generate-json-schema --out DIR [--experimental]
    codex-lsp app-server generate-ts --out DIR [--experimental] [--prettier PRETTIER_BIN]

Logs go to stderr (level from `CODEX_LSP_LOG`, default warning): stdout carries only protocol.
On stdio the client's `initialize` is answered first (`appserver/early_initialize.py`), before
the config is read; the API and the engine then load in the background
(`wire/preload.py`). A config.toml that cannot be used does not end the server: a
`configWarning` follows the answer (`api/config/problems.py`); a bad `-c` override does.
`--attach` serves the same session from a warm per-user server (see `appserver/attach.py`);
`cli/main.py` hands it to the launcher before this module is even imported.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from codex_lsp.cli.arguments import add_config_arguments

if TYPE_CHECKING:
    from codex_lsp.appserver.early_initialize import EarlyInitialize
    from codex_lsp.engine.services import EngineServices
    from codex_lsp.protocol.config.write import ConfigWarningNotification


_EXPERIMENTAL_HELP = "also write the methods the real app-server marks experimental"


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "app-server",
        help="serve the app-server v2 protocol (JSON-RPC lines) on stdin/stdout",
        description="Serve the app-server v2 protocol: JSON-RPC over stdio, one message a line.",
    )
    add_config_arguments(parser)
    parser.add_argument(
        "--attach",
        action="store_true",
        help="serve from a warm per-user server, started on first use (faster starts)",
    )
    parser.add_argument(
        "--listen",
        metavar="URL",
        default=None,
        help="stdio:// (the default), unix:///PATH (a socket for this user only) or "
        "ws://HOST:PORT; WebSocket clients must send the token "
        "in $CODEX_HOME/listen-token (or --ws-token-*), and a non-loopback address needs "
        "--ws-auth capability-token",
    )
    parser.add_argument(
        "--ws-auth",
        choices=["capability-token"],
        default=None,
        help="how WebSocket clients authenticate (Authorization: Bearer <token>); the token "
        "is $CODEX_HOME/listen-token unless --ws-token-file or --ws-token-sha256 says otherwise",
    )
    parser.add_argument(
        "--ws-token-file", metavar="PATH", help="absolute path of a file holding the token"
    )
    parser.add_argument(
        "--ws-token-sha256", metavar="HEX", help="the SHA-256 of the token, in hexadecimal"
    )
    parser.add_argument(
        "--stdio",
        action="store_true",
        help="serve on stdin/stdout: the same as --listen stdio:// (the default)",
    )
    parser.add_argument(
        "--analytics-default-enabled",
        action="store_true",
        help="accepted for the clients that pass it (the VS Code extension); codex-lsp "
        "collects no analytics",
    )
    parser.add_argument(
        "--enable", action="append", default=[], metavar="FEATURE", help="turn a feature on"
    )
    parser.add_argument(
        "--disable", action="append", default=[], metavar="FEATURE", help="turn a feature off"
    )
    # The `--attach` server's session: end when this descriptor (the launcher's line) closes.
    parser.add_argument("--hangup-fd", type=int, default=None, help=argparse.SUPPRESS)
    parser.set_defaults(run=run)
    tools = parser.add_subparsers(dest="appserver_command", metavar="SUBCOMMAND")
    schema = tools.add_parser("generate-json-schema", help="write the protocol's JSON Schema files")
    schema.add_argument(
        "-o", "--out", required=True, type=Path, metavar="DIR", help="output directory"
    )
    schema.add_argument("--experimental", action="store_true", help=_EXPERIMENTAL_HELP)
    schema.set_defaults(run=run_generate_json_schema)
    ts = tools.add_parser("generate-ts", help="write the protocol's TypeScript declarations")
    ts.add_argument("-o", "--out", required=True, type=Path, metavar="DIR", help="output directory")
    ts.add_argument(
        "-p",
        "--prettier",
        type=Path,
        metavar="PRETTIER_BIN",
        default=None,
        help="path of a Prettier executable to format the files written",
    )
    ts.add_argument("--experimental", action="store_true", help=_EXPERIMENTAL_HELP)
    ts.set_defaults(run=run_generate_ts)


def _overrides(args: argparse.Namespace) -> list[str]:
    overrides = list(args.overrides or [])
    overrides += [f"features.{name}=true" for name in getattr(args, "enable", None) or []]
    overrides += [f"features.{name}=false" for name in getattr(args, "disable", None) or []]
    if getattr(args, "model", None):
        # A JSON string is also a valid TOML basic string.
        overrides.append(f"model={json.dumps(args.model)}")
    return overrides


def run(args: argparse.Namespace) -> int:
    if args.attach:  # only when `cli.main`'s fast path did not see the flag
        from codex_lsp.appserver.attach import main as attach

        rebuilt = [arg for override in args.overrides or [] for arg in ("-c", override)]
        rebuilt += ["-p", args.profile] if args.profile else []
        rebuilt += ["-m", args.model] if args.model else []
        return attach(["app-server", *rebuilt])
    early, loaded = _answer_initialize_early(args)
    import logging

    logging.basicConfig(
        stream=sys.stderr,
        level=os.environ.get("CODEX_LSP_LOG", "warning").upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if early is not None:
        logging.getLogger(__name__).debug(
            "initialize answered; heavy modules loaded by then: %s", ", ".join(loaded) or "none"
        )
    from codex_lsp.appserver.listen import (
        ListenError,
        parse_listen,
        parse_unix_listen,
        websocket_auth,
    )
    from codex_lsp.store.config_errors import ConfigError
    from codex_lsp.store.home import codex_home

    home = codex_home()
    try:
        if args.stdio and args.listen not in (None, "stdio://"):
            raise ListenError("--stdio and --listen name two transports: give one")
        socket_path = parse_unix_listen(args.listen)
        target = None if socket_path is not None else parse_listen(args.listen)
        if target is None and (args.ws_auth or args.ws_token_file or args.ws_token_sha256):
            raise ListenError("--ws-* options need --listen ws://HOST:PORT")
        auth = (
            websocket_auth(
                target,
                codex_home=home,
                mode=args.ws_auth,
                token_file=args.ws_token_file,
                token_sha256=args.ws_token_sha256,
            )
            if target is not None
            else None
        )
    except ListenError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    overrides = _overrides(args)

    def services() -> EngineServices:
        # Imported on first use: the engine is not needed to answer `initialize`.
        from codex_lsp.engine.bootstrap import load_services

        return load_services(codex_home=home, profile=args.profile, overrides=overrides)

    from codex_lsp.api.config.problems import INVALID_SUMMARY, startup_warnings

    def config_warnings() -> list[ConfigWarningNotification]:
        # A config.toml that cannot be used is warned about and the server stays up (as the
        # reference server does); a `-c` override that cannot be used is an error at start.
        warnings = startup_warnings(home, profile=args.profile, overrides=overrides)
        log = logging.getLogger(__name__)
        for warning in warnings:
            level = logging.ERROR if warning.summary == INVALID_SUMMARY else logging.WARNING
            log.log(level, "%s %s", warning.summary, warning.details or "")
        return warnings

    try:
        warnings = config_warnings()
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if target is not None or socket_path is not None:
        from codex_lsp.api.config.problems import invalid_config_warning

        def each_client() -> list[ConfigWarningNotification]:
            # Read again for each client: the file may have changed since the last one.
            try:
                return config_warnings()
            except ConfigError as err:
                return [invalid_config_warning(err)]

        if socket_path is not None:
            from codex_lsp.appserver.unix_socket import run_unix

            return run_unix(services, home, socket_path, each_client)
        from codex_lsp.appserver.websocket import run_websocket

        assert target is not None and auth is not None  # a WebSocket listener always has one
        token, where = auth
        return run_websocket(services, home, target, token, each_client, token_source=where)
    from codex_lsp.appserver.server import run_stdio

    return run_stdio(services, home, hangup=args.hangup_fd, early=early, config_warnings=warnings)


def _answer_initialize_early(args: argparse.Namespace) -> tuple[EarlyInitialize | None, list[str]]:
    """On a cold stdio start for a program (not a person at a terminal, not a warm session),
    answer `initialize` now and start loading the rest; what was read, and which of the
    heavy modules were loaded when the answer went out (for the debug log)."""
    stdio = args.listen in (None, "stdio://") and not (args.ws_auth or args.ws_token_file)
    if not stdio or args.ws_token_sha256 or args.hangup_fd is not None or sys.stdin.isatty():
        return None, []
    from codex_lsp.appserver.early_initialize import take_initialize
    from codex_lsp.store.home import codex_home

    early = take_initialize(codex_home())
    from codex_lsp.wire import preload

    loaded = preload.loaded_heavy_modules()
    if early.answered_id is not None:
        preload.start()
    return early, loaded


def run_generate_json_schema(args: argparse.Namespace) -> int:
    from codex_lsp.appserver.schema_gen import generate_json_schema

    written = generate_json_schema(args.out, experimental=args.experimental)
    print(f"wrote {len(written)} schema files to {args.out}", file=sys.stderr)
    return 0


def run_generate_ts(args: argparse.Namespace) -> int:
    import subprocess

    from codex_lsp.appserver.ts_gen import generate_ts

    try:
        written = generate_ts(args.out, experimental=args.experimental, prettier=args.prettier)
    except (OSError, subprocess.CalledProcessError) as err:
        # The files are written before Prettier runs: only the formatting is missing.
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(f"wrote {len(written)} TypeScript files to {args.out}", file=sys.stderr)
    return 0
