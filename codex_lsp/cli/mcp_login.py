"""`codex-lsp mcp login NAME` and `mcp logout NAME`: OAuth sign-in to a streamable HTTP MCP
server (`engine/mcp/oauth_login.py`), its tokens kept in `$CODEX_HOME/mcp-credentials.json`.

`login` prints the authorization URL (and tries to open a browser), then waits for the
redirect to 127.0.0.1; once signed in, the server's requests carry the token.
"""

from __future__ import annotations

import argparse
import sys
import webbrowser
from typing import Any

LOGIN_TIMEOUT_S = 300.0


def add_parsers(actions: Any) -> None:
    login = actions.add_parser("login", help="sign in to an HTTP MCP server with OAuth")
    login.add_argument("name", metavar="NAME")
    login.add_argument(
        "--scopes", default="", metavar="A,B", help="the OAuth scopes to ask for, comma-separated"
    )
    login.add_argument(
        "--no-browser", action="store_true", help="only print the URL; do not open a browser"
    )
    login.set_defaults(run=run_login)
    logout = actions.add_parser("logout", help="forget an MCP server's OAuth tokens")
    logout.add_argument("name", metavar="NAME")
    logout.set_defaults(run=run_logout)


def run_login(args: argparse.Namespace) -> int:
    from codex_lsp.cli.mcp_cmd import _servers
    from codex_lsp.engine.mcp.oauth_login import LoginFlow, OAuthError
    from codex_lsp.store.home import codex_home

    server = _servers().get(args.name)
    if server is None:
        print(f"error: no MCP server named '{args.name}'", file=sys.stderr)
        return 1
    url = server.get("url")
    if not isinstance(url, str):
        print(
            f"error: '{args.name}' is not a streamable HTTP server: OAuth needs a url",
            file=sys.stderr,
        )
        return 1
    scopes = [scope for scope in args.scopes.split(",") if scope.strip()]
    try:
        flow = LoginFlow(codex_home(), args.name, url, scopes)
        print(f"Authorize '{args.name}' by opening this URL in your browser:", flush=True)
        print(flow.authorization_url, flush=True)
        if not args.no_browser:
            webbrowser.open(flow.authorization_url)
        flow.finish(LOGIN_TIMEOUT_S)
    except (OAuthError, OSError) as err:
        print(f"error: sign-in to '{args.name}' failed: {err}", file=sys.stderr)
        return 1
    print(f"Successfully logged in to MCP server '{args.name}'.")
    return 0


def run_logout(args: argparse.Namespace) -> int:
    from codex_lsp.store.home import codex_home
    from codex_lsp.store.mcp_credentials import forget

    if forget(codex_home(), args.name):
        print(f"Removed OAuth credentials for '{args.name}'.")
    else:
        print(f"No OAuth credentials stored for '{args.name}'.")
    return 0
