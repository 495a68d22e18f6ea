"""`codex-lsp resume`, `fork` and `review`: the commands a Codex user reaches for, on the terminal.

`resume [--last | ID] [PROMPT]` continues a recorded session with one more turn, `fork` does so
in a copy of it (the original stays as it was), `review` reviews changes; each is its `exec`
form (`exec resume`, ...), with every `exec` option. Without a session to resume, `resume`
lists the recent sessions of the working directory (`--all`: of every directory) with the id
to pass.
"""

from __future__ import annotations

import argparse
import sys

_HELP = {
    "resume": "continue a recorded session (exec resume); with no id, list recent sessions",
    "fork": "continue a copy of a recorded session (exec fork)",
    "review": "review changes: --uncommitted, --base BRANCH, --commit SHA (exec review)",
}


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Listed in `codex-lsp --help`; `as_exec` turns them into `exec` forms before parsing."""
    for name, text in _HELP.items():
        commands.add_parser(name, help=text, add_help=False)


def as_exec(arguments: list[str]) -> list[str] | int:
    """The command line with `resume ...` spelt `exec resume ...` (the same for `fork`,
    `review`); an exit status when `resume` named no session and the list was shown."""
    if not arguments or arguments[0] not in _HELP:
        return arguments
    name, rest = arguments[0], arguments[1:]
    if name == "resume" and _names_no_session(rest):
        return list_recent(all_folders="--all" in rest)
    return ["exec", name, *rest]


def _names_no_session(rest: list[str]) -> bool:
    """`resume` alone (or with only --all): nothing to continue yet, so show what there is."""
    return all(arg == "--all" for arg in rest)


def list_recent(*, all_folders: bool, limit: int = 20) -> int:
    from pathlib import Path

    from codex_lsp.display import visible
    from codex_lsp.store.home import codex_home
    from codex_lsp.store.threads import list_threads

    cwd = None if all_folders else str(Path.cwd().resolve())
    page = list_threads(codex_home(), limit=limit, sort_key="updated_at", cwd=cwd)
    if not page.items:
        where = "" if all_folders else " in this folder (--all lists every folder's)"
        print(f"no recorded sessions{where}", file=sys.stderr)
        return 1
    for thread in page.items:
        when = thread.updated_at.astimezone().strftime("%Y-%m-%d %H:%M")
        label = thread.name or thread.preview
        print(f"{thread.id}  {when}  {visible(label[:70])}")
    print(
        "continue one with: codex-lsp resume ID PROMPT   (or --last PROMPT for the newest)",
        file=sys.stderr,
    )
    return 0
