"""The engine's own git: every git the engine runs outside the sandbox goes through here.

A repository's configuration can make git run programs: `core.fsmonitor`, hooks, pagers,
`diff.external` and diff drivers' `command` and `textconv`, filter drivers' `clean`, `smudge`
and `process`, `core.sshCommand`, credential helpers, `core.askPass`, `gpg.program` (through
`log.showSignature`), editors. A sandboxed command can write such a configuration into any
`.git` it can reach, or create a repository where there was none, so git run by the engine
(reviews, file search) must not honour any of it: the engine's privileges are the user's.

Each command is run with:
- configuration given through `GIT_CONFIG_COUNT` (it beats every config file, and keys and
  values travel apart, so a driver whose name holds `=` cannot break the override) that turns
  off every program a configuration names. Filter drivers cannot be named by a wildcard, so
  the drivers configured when the command starts are read first (reading config runs nothing)
  and each is emptied, which git takes as "no filter";
- `--no-ext-diff --no-textconv --ignore-submodules=dirty --submodule=short` on the commands
  that diff, so no diff program, text conversion or git run in a submodule happens;
- no network (`protocol.allow=never`, which also stops a partial clone's lazy fetch), no
  prompt, no pager, no optional locks, trace2 off;
- only the read-only subcommands listed in `SUBCOMMANDS`: nothing here commits, merges,
  fetches or checks out, so merge drivers, editors and transport programs never come up.

The environment the engine was started with keeps the variables that choose which config
files are the user's (`GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM`, `GIT_CONFIG_NOSYSTEM`) and
git's own install (`GIT_EXEC_PATH`); every other `GIT_*` variable, and the ones naming a
program (`SSH_ASKPASS`), is dropped, so git looks only at the repository it is run in.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# The subcommands the engine runs; git builtins, so no alias can stand in for them.
SUBCOMMANDS = frozenset(
    {"rev-parse", "ls-files", "diff", "show", "diff-tree", "merge-base", "hash-object"}
)
_DIFFING = frozenset({"diff", "show", "diff-tree"})
_DIFF_GUARDS = ("--no-ext-diff", "--no-textconv", "--ignore-submodules=dirty", "--submodule=short")

# Longer than any honest read of the config; a config that includes a FIFO waits no longer.
CONFIG_TIMEOUT_S = 10.0

_NULL_PROGRAM = os.devnull  # a path that cannot be executed; git reports it, runs nothing
_OVERRIDES: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.pager", "cat"),
    ("pager.diff", "false"),
    ("pager.show", "false"),
    ("diff.external", ""),
    ("diff.noprefix", "false"),
    ("diff.submodule", "short"),
    ("diff.ignoreSubmodules", "dirty"),
    ("submodule.recurse", "false"),
    ("core.sshCommand", _NULL_PROGRAM),
    ("core.gitProxy", ""),
    ("core.askPass", ""),
    ("credential.helper", ""),
    ("protocol.allow", "never"),
    ("core.editor", _NULL_PROGRAM),
    ("sequence.editor", _NULL_PROGRAM),
    ("log.showSignature", "false"),
    ("gpg.program", _NULL_PROGRAM),
    ("gpg.openpgp.program", _NULL_PROGRAM),
    ("gpg.x509.program", _NULL_PROGRAM),
    ("gpg.ssh.program", _NULL_PROGRAM),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("core.quotepath", "off"),
    ("color.ui", "false"),
)
_FILTER_KEYS = (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false"))

_KEPT_GIT_VARIABLES = frozenset(
    {"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_EXEC_PATH"}
)
_DROPPED_VARIABLES = frozenset({"SSH_ASKPASS", "PAGER", "EDITOR", "VISUAL"})
_SET_VARIABLES = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_PAGER": "cat",
    "GIT_TRACE2": "0",
    "GIT_TRACE2_EVENT": "0",
    "GIT_TRACE2_PERF": "0",
    # One language for git's messages, so errors read the same everywhere.
    "LC_ALL": "C",
}


def argv(args: Sequence[str]) -> list[str]:
    """The command line for `git ARGS`, with the guards its subcommand needs."""
    if not args or args[0] not in SUBCOMMANDS:
        raise ValueError(f"the engine does not run `git {args[0] if args else ''}`")
    guards = list(_DIFF_GUARDS) if args[0] in _DIFFING else []
    return ["git", "--no-pager", args[0], *guards, *args[1:]]


def environment(cwd: Path) -> dict[str, str]:
    """The environment for a git command run in `cwd`, every program its config names off."""
    env = _base_environment()
    pairs = list(_OVERRIDES)
    for driver in _filter_drivers(cwd, env):
        pairs += [(f"filter.{driver}.{key}", value) for key, value in _FILTER_KEYS]
    _put_config(env, pairs)
    return env


def popen(cwd: Path, args: Sequence[str], **options: Any) -> subprocess.Popen[bytes]:
    """Start `git ARGS` in `cwd` (stdin closed unless `options` say otherwise)."""
    options.setdefault("stdin", subprocess.DEVNULL)
    return subprocess.Popen(argv(args), cwd=cwd, env=environment(cwd), **options)


def run(cwd: Path, args: Sequence[str], *, timeout: float) -> subprocess.CompletedProcess[bytes]:
    """Run `git ARGS` in `cwd` to the end, capturing its output."""
    return subprocess.run(
        argv(args),
        cwd=cwd,
        env=environment(cwd),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=timeout,
        check=False,
    )


def _base_environment() -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if (not name.startswith("GIT_") or name in _KEPT_GIT_VARIABLES)
        and name not in _DROPPED_VARIABLES
    }
    env.update(_SET_VARIABLES)
    return env


def _put_config(env: dict[str, str], pairs: Sequence[tuple[str, str]]) -> None:
    env["GIT_CONFIG_COUNT"] = str(len(pairs))
    for index, (key, value) in enumerate(pairs):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value


def _filter_drivers(cwd: Path, env: dict[str, str]) -> list[str]:
    """The filter drivers the configs git would read in `cwd` define, in order, each once."""
    # Reading config runs no program (no fsmonitor, hook or pager is involved); the base
    # overrides ride along so nothing changes that.
    reading = dict(env)
    _put_config(reading, _OVERRIDES)
    found = subprocess.run(
        ["git", "--no-pager", "config", "-z", "--get-regexp", r"^filter\."],
        cwd=cwd,
        env=reading,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=CONFIG_TIMEOUT_S,
        check=False,
    )
    drivers: dict[str, None] = {}
    for entry in found.stdout.decode("utf-8", "surrogateescape").split("\0"):
        # `filter.<driver>.<key>`, then a newline and the value; a subsection holds no newline.
        key = entry.split("\n", 1)[0]
        driver, dot, _ = key.removeprefix("filter.").rpartition(".")
        if key.startswith("filter.") and dot and driver:
            drivers[driver] = None
    return list(drivers)
