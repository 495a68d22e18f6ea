"""Options every engine-backed command shares: config overrides, a profile and a model."""

from __future__ import annotations

import argparse


def add_config_arguments(parser: argparse.ArgumentParser) -> None:
    """`-c KEY=VALUE` (repeatable), `-p PROFILE` and `-m MODEL`."""
    parser.add_argument(
        "-c",
        "--config",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config.toml key (dotted path)",
    )
    parser.add_argument(
        "-p", "--profile", help="layer $CODEX_HOME/NAME.config.toml over config.toml"
    )
    parser.add_argument("-m", "--model", help="model to use")
