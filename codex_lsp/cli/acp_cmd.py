"""`codex-lsp acp`: the engine as an Agent Client Protocol agent on stdin/stdout.

    codex-lsp acp [-c key=value] [-p profile] [-m model]

For ACP editors (Zed, the JetBrains IDEs, CodeCompanion, avante, agent-shell). Logs go to
stderr (level from `CODEX_LSP_LOG`, default warning): stdout carries only protocol.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING

from codex_lsp.cli.arguments import add_config_arguments

if TYPE_CHECKING:
    from codex_lsp.engine.services import EngineServices


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "acp",
        help="serve the Agent Client Protocol on stdin/stdout (Zed, JetBrains, ...)",
        description="Serve the Agent Client Protocol (v1): JSON-RPC over stdio.",
    )
    add_config_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import logging

    logging.basicConfig(
        stream=sys.stderr,
        level=os.environ.get("CODEX_LSP_LOG", "warning").upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    from codex_lsp.store.config_errors import ConfigError
    from codex_lsp.store.home import codex_home

    home = codex_home()
    overrides = list(args.overrides or [])
    if getattr(args, "model", None):
        overrides.append(f"model={json.dumps(args.model)}")

    def services(extra: list[str]) -> EngineServices:
        from codex_lsp.engine.bootstrap import load_services

        return load_services(codex_home=home, profile=args.profile, overrides=overrides + extra)

    try:
        from codex_lsp.api.config.problems import startup_warnings

        for warning in startup_warnings(home, profile=args.profile, overrides=overrides):
            logging.getLogger(__name__).warning("%s %s", warning.summary, warning.details or "")
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    from codex_lsp.acp.server import run_stdio

    return run_stdio(services, lambda: os.environ.get("OPENAI_API_KEY"))
