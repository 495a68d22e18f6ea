"""Starts the per-user warm server behind `codex-lsp app-server --attach` and the editors' warm
`serve`: each session it forks runs this command line's `app-server` or `serve`.

The launcher (`appserver/attach.py`) runs `main` in a fresh interpreter; the server itself
(`appserver/daemon.py`) is told what to run rather than importing the command line above it.
"""

from __future__ import annotations

from codex_lsp.appserver import daemon
from codex_lsp.cli.main import build_parser, main as cli_main

SESSION_ENTRY = daemon.SessionEntry(
    # Building the parser imports every command's module, `app-server`'s among them.
    warm=build_parser,
    run=cli_main,
)


def main() -> int:
    return daemon.main(SESSION_ENTRY)
