"""`codex-lsp mcp add|list|get|remove|login|logout`: the MCP servers of config.toml, as
`codex mcp` manages them.

`add NAME -- COMMAND ARGS...` (with `--env KEY=VALUE`) adds a stdio server, `add NAME --url URL`
(with `--bearer-token-env-var VAR`) a streamable HTTP one; both write `[mcp_servers.NAME]` the
way codex writes it, keeping the rest of the file (comments too) as it was. `list` and `get`
show them, environment values masked (`--json` for programs, in codex's shape); `remove`
deletes one. `login` and `logout` are in `mcp_login.py`.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

_NAME = re.compile(r"^[A-Za-z0-9_-]+$")


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("mcp", help="add, list, show and remove MCP servers")
    actions = parser.add_subparsers(dest="mcp_action", metavar="ACTION", required=True)

    add = actions.add_parser("add", help="add an MCP server: NAME -- COMMAND... or NAME --url URL")
    add.add_argument("name", metavar="NAME")
    add.set_defaults(launch=[])
    add.add_argument("--url", help="the URL of a streamable HTTP server")
    add.add_argument(
        "--env", action="append", default=[], metavar="KEY=VALUE", help="for a stdio server"
    )
    add.add_argument(
        "--bearer-token-env-var", metavar="VAR", help="for an HTTP server: its token's variable"
    )
    add.set_defaults(run=run_add)

    listing = actions.add_parser("list", help="list the configured MCP servers")
    listing.add_argument("--json", action="store_true", help="as JSON")
    listing.set_defaults(run=run_list)

    get = actions.add_parser("get", help="show one MCP server")
    get.add_argument("name", metavar="NAME")
    get.add_argument("--json", action="store_true", help="as JSON")
    get.set_defaults(run=run_get)

    remove = actions.add_parser("remove", help="remove an MCP server")
    remove.add_argument("name", metavar="NAME")
    remove.set_defaults(run=run_remove)

    from codex_lsp.cli.mcp_login import add_parsers

    add_parsers(actions)


def split_launch(arguments: list[str]) -> tuple[list[str], list[str]]:
    """`mcp add NAME [OPTIONS] -- COMMAND ARGS...`: the options, and the server's command line
    (everything after `--`, whatever it looks like)."""
    if arguments[:2] != ["mcp", "add"] or "--" not in arguments:
        return arguments, []
    cut = arguments.index("--")
    return arguments[:cut], arguments[cut + 1 :]


def _config_path() -> Path:
    from codex_lsp.store.home import codex_home

    return codex_home() / "config.toml"


def _servers() -> dict[str, dict[str, Any]]:
    import tomllib

    path = _config_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    servers = data.get("mcp_servers", {})
    return (
        {k: v for k, v in servers.items() if isinstance(v, dict)}
        if isinstance(servers, dict)
        else {}
    )


def _edit(name: str, value: dict[str, Any] | None) -> None:
    from codex_lsp.store.config_edit import Edit, apply_edits, write_atomically

    path = _config_path()
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, apply_edits(text, [Edit(("mcp_servers", name), value)]))


def run_add(args: argparse.Namespace) -> int:
    if not _NAME.match(args.name):
        print(
            f"error: invalid server name {args.name!r}: use letters, digits, - and _",
            file=sys.stderr,
        )
        return 2
    if bool(args.url) == bool(args.launch):
        print("error: give either -- COMMAND ARGS... or --url URL", file=sys.stderr)
        return 2
    server: dict[str, Any]
    if args.url:
        if args.env:
            print("error: --env is for stdio servers (a COMMAND)", file=sys.stderr)
            return 2
        server = {"url": args.url}
        if args.bearer_token_env_var:
            server["bearer_token_env_var"] = args.bearer_token_env_var
    else:
        if args.bearer_token_env_var:
            print("error: --bearer-token-env-var is for HTTP servers (--url)", file=sys.stderr)
            return 2
        server = {"command": args.launch[0], "args": args.launch[1:]}
        env = {}
        for pair in args.env:
            key, sep, value = pair.partition("=")
            if not sep or not key:
                print(f"error: --env {pair!r}: expected KEY=VALUE", file=sys.stderr)
                return 2
            env[key] = value
        if env:
            server["env"] = env
    _edit(args.name, server)
    print(f"Added global MCP server '{args.name}'.")
    return 0


def run_remove(args: argparse.Namespace) -> int:
    if args.name not in _servers():
        print(f"No MCP server named '{args.name}' found.")
        return 0
    _edit(args.name, None)
    print(f"Removed global MCP server '{args.name}'.")
    return 0


def describe(name: str, server: dict[str, Any]) -> dict[str, Any]:
    """One server as `codex mcp list --json` shows it."""
    transport: dict[str, Any]
    if server.get("url"):
        transport = {
            "type": "streamable_http",
            "url": server["url"],
            "bearer_token_env_var": server.get("bearer_token_env_var"),
            "http_headers": server.get("http_headers"),
            "env_http_headers": server.get("env_http_headers"),
        }
        auth = "bearer_token" if server.get("bearer_token_env_var") else "not_logged_in"
    else:
        transport = {
            "type": "stdio",
            "command": server.get("command"),
            "args": server.get("args", []),
            "env": server.get("env"),
            "env_vars": server.get("env_vars", []),
            "cwd": server.get("cwd"),
        }
        auth = "unsupported"
    return {
        "name": name,
        "enabled": server.get("enabled", True),
        "transport": transport,
        "startup_timeout_sec": server.get("startup_timeout_sec"),
        "tool_timeout_sec": server.get("tool_timeout_sec"),
        "auth_status": auth,
    }


def _masked(env: dict[str, Any] | None) -> str:
    # Values are often keys: shown by name only.
    return ", ".join(f"{key}=*****" for key in env) if env else "-"


def run_list(args: argparse.Namespace) -> int:
    servers = _servers()
    if args.json:
        print(json.dumps([describe(n, s) for n, s in sorted(servers.items())], indent=2))
        return 0
    if not servers:
        print("No MCP servers configured yet. Try `codex-lsp mcp add my-tool -- my-command`.")
        return 0
    for name, server in sorted(servers.items()):
        print(_summary(name, server))
    return 0


def _summary(name: str, server: dict[str, Any]) -> str:
    from codex_lsp.display import visible

    status = "enabled" if server.get("enabled", True) else "disabled"
    if server.get("url"):
        where = f"url {server['url']}"
        token = server.get("bearer_token_env_var")
        where += f"  bearer token from ${token}" if token else ""
    else:
        command = " ".join([str(server.get("command")), *map(str, server.get("args", []))])
        where = f"command {command}  env {_masked(server.get('env'))}"
    return visible(f"{name}  {status}  {where}")


def run_get(args: argparse.Namespace) -> int:
    server = _servers().get(args.name)
    if server is None:
        print(f"error: no MCP server named '{args.name}'", file=sys.stderr)
        return 1
    if args.json:
        shown = describe(args.name, server)
        shown.pop("auth_status")
        shown["enabled_tools"] = server.get("enabled_tools")
        shown["disabled_tools"] = server.get("disabled_tools")
        print(json.dumps(shown, indent=2))
        return 0
    print(_summary(args.name, server))
    print(f"  remove: codex-lsp mcp remove {args.name}")
    return 0
