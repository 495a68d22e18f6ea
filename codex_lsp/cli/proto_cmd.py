"""`codex-lsp proto`: the raw Submission/Event queues as newline-delimited JSON, on stdio or
(`--listen tcp://HOST:PORT`) on TCP for one client that shows the token (`cli/proto_tcp.py`).

Each input line is a `Submission` (`{"id","op"}`); each output line an `Event` (`{"id","msg"}`).
A line that is not JSON gets an `error` event; the queue keeps going. EOF ends the session
once the running task has finished (or aborts it, if it waits for an answer).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from codex_lsp.cli.arguments import add_config_arguments

STDIO = "stdio://"


def _listen_url(value: str) -> str | tuple[str, int]:
    if value == STDIO:
        return value
    scheme, sep, rest = value.partition("://")
    host, colon, port = rest.rpartition(":")
    if scheme != "tcp" or not sep or not colon or not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected stdio:// or tcp://HOST:PORT, got {value!r}")
    if int(port) > 65535:
        raise argparse.ArgumentTypeError(f"no such port: {port}")
    return host.strip("[]"), int(port)


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "proto",
        help="speak the raw SQ/EQ protocol as JSONL on stdio",
        description=(
            'One Submission ({"id", "op"}) per stdin line, one Event ({"id", "msg"}) per stdout '
            'line. The first op must be configure_session, e.g. {"id": "1", "op": {"type": '
            '"configure_session", "cwd": "/path/to/repo"}}; it is answered by a '
            "session_configured event. EOF ends the session."
        ),
    )
    parser.add_argument(
        "--listen",
        type=_listen_url,
        default=STDIO,
        metavar="URL",
        help="stdio:// (the default), or tcp://HOST:PORT to serve one client over TCP (port 0: "
        "any) whose first line is Authorization: Bearer <the token in "
        "$CODEX_HOME/listen-token>",
    )
    parser.add_argument(
        "--token-file",
        metavar="PATH",
        help="with --listen tcp://: the token the client must send, from this file (absolute, "
        "mode 0600); required for an address other than loopback",
    )
    add_config_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import anyio

    from codex_lsp.engine.bootstrap import load_services
    from codex_lsp.store.config_errors import ConfigError

    door = None
    if args.listen != STDIO:
        door = _tcp_door(args)
        if door is None:
            return 2
    elif args.token_file is not None:
        print("error: --token-file is for --listen tcp://", file=sys.stderr)
        return 2
    try:
        services = load_services(profile=args.profile, overrides=args.overrides)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    anyio.run(_serve_and_close, services, door)
    return 0


def _tcp_door(args: argparse.Namespace) -> tuple[str, int, Any, Any] | None:
    """HOST, PORT and the token the TCP door asks for; None (said why) if it must not open."""
    from codex_lsp.store.home import codex_home
    from codex_lsp.wire.door_token import TokenError, door_auth, is_loopback

    host, port = args.listen
    if args.token_file is None and not is_loopback(host):
        print(
            f"error: refusing to listen on {host}:{port} without a token asked for: anyone who "
            "can reach it could run commands here. Pass --token-file PATH (for instance "
            f"{codex_home() / 'listen-token'}), or listen on 127.0.0.1",
            file=sys.stderr,
        )
        return None
    try:
        auth, token_path = door_auth(codex_home(), args.token_file)
    except (TokenError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return None
    return host, port, auth, token_path


async def _serve_and_close(services: Any, door: tuple[str, int, Any, Any] | None) -> None:
    try:
        if door is None:
            await _serve(services, _stdin_line, _stdout_line)
        else:
            from codex_lsp.cli import proto_tcp

            async def session(read_line: ReadLine, write_line: WriteLine) -> None:
                await _serve(services, read_line, write_line)

            await proto_tcp.serve(session, *door)
    finally:
        if services.http is not None:
            await services.http.aclose()


ReadLine = Callable[[], Awaitable[str]]
WriteLine = Callable[[str], Awaitable[None]]


async def _stdin_line() -> str:
    import anyio

    return await anyio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)


async def _stdout_line(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


async def _serve(services: Any, read_line: ReadLine, write_line: WriteLine) -> None:
    import anyio

    from codex_lsp.engine.codex import Codex
    from codex_lsp.protocol.core.events import ErrorEvent, Event

    async with Codex(services) as codex, anyio.create_task_group() as tg:
        tg.start_soon(_write_events, codex, write_line)
        while True:
            line = await read_line()
            if not line:
                break
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as err:
                codex.emit(
                    Event(
                        id="",
                        msg=ErrorEvent(message=f"invalid JSON: {err.msg} at column {err.colno}"),
                    )
                )
                continue
            await codex.submit_raw(data)
        await _finish(codex)
        codex.end_events()


async def _finish(codex: Any) -> None:
    """Let running work end; with stdin closed nobody can answer an approval or a question,
    so a task that waits for one is aborted instead of keeping the process alive forever."""
    import anyio

    async with anyio.create_task_group() as tg:

        async def abort_when_stuck() -> None:
            while True:
                session = codex.session
                if session is not None and (session.approvals.keys() or session.answers.keys()):
                    await session.abort_task("interrupted")
                await anyio.sleep(0.05)

        tg.start_soon(abort_when_stuck)
        await codex.wait_idle()
        tg.cancel_scope.cancel()


async def _write_events(codex: Any, write_line: WriteLine) -> None:
    async for event in codex:
        await write_line(json.dumps(event.to_wire(), separators=(",", ":")) + "\n")
