"""`codex-lsp features list|enable|disable` and `codex-lsp completion [SHELL]`.

`features list` shows each `[features]` flag this engine reads, its stage and whether it is on
(config.toml and `-c` overrides applied); `enable` / `disable` write the flag to config.toml,
keeping the rest of the file. `completion` prints a completion script for bash, zsh or fish that
completes the commands and, for `exec`, `resume` and `fork`, their options.
"""

from __future__ import annotations

import argparse
import sys

from codex_lsp.cli.arguments import add_config_arguments

_STAGE_WORDS = {
    "beta": "experimental",
    "underDevelopment": "under development",
    "stable": "stable",
    "deprecated": "deprecated",
    "removed": "removed",
}
SHELLS = ("bash", "zsh", "fish")


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("features", help="list feature flags, turn one on or off")
    actions = parser.add_subparsers(dest="features_action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="each feature, its stage and whether it is on")
    add_config_arguments(listing)
    listing.set_defaults(run=run_list)
    for action in ("enable", "disable"):
        change = actions.add_parser(action, help=f"{action} a feature in config.toml")
        change.add_argument("name", metavar="FEATURE")
        change.set_defaults(run=run_change, turn_on=action == "enable")

    completion = commands.add_parser("completion", help="print a shell completion script")
    completion.add_argument("shell", nargs="?", default="bash", choices=SHELLS)
    completion.set_defaults(run=run_completion)


def run_list(args: argparse.Namespace) -> int:
    from codex_lsp.store.config import load_config
    from codex_lsp.store.config_errors import ConfigError
    from codex_lsp.store.features import FEATURES
    from codex_lsp.store.home import codex_home

    try:
        config = load_config(codex_home(), profile=args.profile, overrides=args.overrides)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    width = max(len(feature.name) for feature in FEATURES) + 2
    for feature in sorted(FEATURES, key=lambda f: f.name):
        on = config.feature_enabled(feature.name, feature.default_enabled)
        stage = _STAGE_WORDS[feature.stage]
        print(f"{feature.name:<{width}}{stage:<19}{str(on).lower()}")
    return 0


def run_change(args: argparse.Namespace) -> int:
    from codex_lsp.store.config_edit import Edit, apply_edits, write_atomically
    from codex_lsp.store.features import BY_NAME
    from codex_lsp.store.home import codex_home

    if args.name not in BY_NAME:
        known = ", ".join(sorted(BY_NAME))
        print(f"error: unknown feature {args.name!r}; known: {known}", file=sys.stderr)
        return 2
    path = codex_home() / "config.toml"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, apply_edits(text, [Edit(("features", args.name), args.turn_on)]))
    print(f"{'Enabled' if args.turn_on else 'Disabled'} feature '{args.name}' in {path}.")
    return 0


def run_completion(args: argparse.Namespace) -> int:
    from codex_lsp.cli.main import build_parser

    parser = build_parser()
    commands = _subcommands(parser)
    exec_options = _options(commands.get("exec"))
    words = " ".join(sorted(commands))
    flags = " ".join(exec_options)
    if args.shell == "bash":
        print(_BASH.replace("@WORDS@", words).replace("@FLAGS@", flags))
    elif args.shell == "zsh":
        print("autoload -U bashcompinit && bashcompinit")
        print(_BASH.replace("@WORDS@", words).replace("@FLAGS@", flags))
    else:
        print(f"complete -c codex-lsp -n __fish_use_subcommand -f -a '{words}'")
        for flag in exec_options:
            if flag.startswith("--"):
                print(
                    f"complete -c codex-lsp -n '__fish_seen_subcommand_from exec resume fork' "
                    f"-l {flag[2:]}"
                )
    return 0


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _options(parser: argparse.ArgumentParser | None) -> list[str]:
    if parser is None:
        return []
    return sorted(s for a in parser._actions for s in a.option_strings if s.startswith("--"))


_BASH = """_codex_lsp() {
  local cur="${COMP_WORDS[COMP_CWORD]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "@WORDS@" -- "$cur"))
    return
  fi
  case "${COMP_WORDS[1]}" in
    exec|resume|fork|review)
      if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "@FLAGS@" -- "$cur")); return; fi ;;
  esac
  COMPREPLY=($(compgen -f -- "$cur"))
}
complete -F _codex_lsp codex-lsp"""
