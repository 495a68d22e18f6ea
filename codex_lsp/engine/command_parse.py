"""Summaries of commands for the UI: Codex's `ParsedCommand` list.

`parse_command` says what a command is for (reading a file, listing files, searching) so a client
can show "Read foo.py" instead of a raw argv. It only recognises common, unambiguous shapes;
everything else is `unknown`, which is always a correct answer.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Sequence
from typing import Any

from codex_lsp.engine.shell import parse_shell_script, shell_script_of

ParsedCommand = dict[str, Any]

# Options (of each tool) whose value is the next argument, so it isn't taken for a path.
_HEAD_TAIL_VALUE_OPTS = frozenset({"-n", "-c", "--lines", "--bytes"})
_NL_VALUE_OPTS = frozenset({"-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w"})
_LS_VALUE_OPTS = frozenset({"-I", "--ignore", "-w", "--width", "-T", "--tabsize"})
_TREE_VALUE_OPTS = frozenset({"-L", "-P", "-I", "--filelimit", "-o"})
_RG_VALUE_OPTS = frozenset(
    {
        "-g", "--glob", "--iglob", "-t", "--type", "-T", "--type-not", "-m", "--max-count",
        "-A", "--after-context", "-B", "--before-context", "-C", "--context", "-j", "--threads",
        "-M", "--max-columns", "--max-depth", "--type-add", "--sort", "--sortr", "-E",
        "--encoding", "--color", "--colors", "-r", "--replace", "--max-filesize",
    }
)  # fmt: skip
_GREP_VALUE_OPTS = frozenset(
    {"-m", "--max-count", "-A", "-B", "-C", "-d", "-D", "--include", "--exclude", "--exclude-dir"}
)
# Pattern options: their value is the query rather than a path.
_PATTERN_OPTS = frozenset({"-e", "--regexp"})
_PATTERN_FILE_OPTS = frozenset({"-f", "--file"})
# Stdin filters that merely shape another command's output in a pipeline.
_FORMATTERS = frozenset({"head", "tail", "wc", "sort", "uniq", "cut", "tr", "nl", "column"})


def _operands(args: Sequence[str], value_opts: frozenset[str]) -> tuple[list[str], list[str]]:
    """Split `args` into (operands, flags), skipping the values of `value_opts`."""
    operands: list[str] = []
    flags: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            operands.extend(args[i + 1 :])
            break
        if arg.startswith("-") and arg != "-":
            flags.append(arg)
            if arg in value_opts and i + 1 < len(args):
                flags.append(args[i + 1])
                i += 1
        else:
            operands.append(arg)
        i += 1
    return operands, flags


def _read(cmd: str, path: str) -> ParsedCommand:
    return {"type": "read", "cmd": cmd, "name": posixpath.basename(path.rstrip("/")), "path": path}


def _list(cmd: str, paths: list[str]) -> ParsedCommand:
    return {"type": "list_files", "cmd": cmd, "path": paths[0] if len(paths) == 1 else None}


def _search(cmd: str, args: Sequence[str], value_opts: frozenset[str]) -> ParsedCommand:
    query: str | None = None
    explicit_pattern = False
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _PATTERN_OPTS | _PATTERN_FILE_OPTS and i + 1 < len(args):
            explicit_pattern = True
            if arg in _PATTERN_OPTS and query is None:
                query = args[i + 1]
            i += 2
            continue
        if arg.startswith("--regexp="):
            explicit_pattern = True
            query = query if query is not None else arg.split("=", 1)[1]
        else:
            rest.append(arg)
        i += 1
    operands, _ = _operands(rest, value_opts)
    if not explicit_pattern and operands:
        query, operands = operands[0], operands[1:]
    path = operands[0] if len(operands) == 1 else None
    return {"type": "search", "cmd": cmd, "query": query, "path": path}


def _summarise(argv: Sequence[str], cmd: str) -> ParsedCommand:
    name = posixpath.basename(argv[0])
    args = list(argv[1:])
    unknown: ParsedCommand = {"type": "unknown", "cmd": cmd}
    if name == "cat":
        operands, _ = _operands(args, frozenset())
        return _read(cmd, operands[0]) if len(operands) == 1 and operands[0] != "-" else unknown
    if name in ("head", "tail"):
        operands, _ = _operands(args, _HEAD_TAIL_VALUE_OPTS)
        return _read(cmd, operands[0]) if len(operands) == 1 else unknown
    if name == "nl":
        operands, _ = _operands(args, _NL_VALUE_OPTS)
        return _read(cmd, operands[0]) if len(operands) == 1 else unknown
    if name == "sed":
        # Only the `sed -n <range>p FILE` idiom is a plain read; other scripts may edit.
        if len(args) == 3 and args[0] == "-n" and args[1].endswith("p"):
            range_part = args[1][:-1].replace(",", "", 1)
            if range_part.isdigit():
                return _read(cmd, args[2])
        return unknown
    if name == "ls":
        return _list(cmd, _operands(args, _LS_VALUE_OPTS)[0])
    if name == "tree":
        return _list(cmd, _operands(args, _TREE_VALUE_OPTS)[0])
    if name == "find":
        # find's paths come before the first expression token.
        paths = []
        for arg in args:
            if arg.startswith(("-", "(", "!")):
                break
            paths.append(arg)
        return _list(cmd, paths)
    if name == "rg":
        if "--files" in args:
            return _list(cmd, _operands(args, _RG_VALUE_OPTS)[0])
        return _search(cmd, args, _RG_VALUE_OPTS)
    if name in ("grep", "egrep", "fgrep"):
        return _search(cmd, args, _GREP_VALUE_OPTS)
    if name == "git" and args[:1] == ["grep"]:
        return _search(cmd, args[1:], _GREP_VALUE_OPTS)
    return unknown


def _is_formatter(argv: Sequence[str]) -> bool:
    """A pipeline helper reading stdin (e.g. `head -n 5`, `wc -l`), not a file."""
    name = posixpath.basename(argv[0])
    if name not in _FORMATTERS:
        return False
    if name == "tr":
        return True  # tr only ever reads stdin; its operands are character sets
    value_opts = _HEAD_TAIL_VALUE_OPTS if name in ("head", "tail") else frozenset({"-d", "-f"})
    return not _operands(argv[1:], value_opts)[0]


def parse_command(argv: Sequence[str]) -> list[ParsedCommand]:
    """The `ParsedCommand` summaries of `argv`, one per command of a `bash -lc` script."""
    if not argv:
        return []
    script = shell_script_of(argv)
    if script is None:
        return [_summarise(argv, shlex.join(argv))]
    commands = parse_shell_script(script)
    if commands is None:
        return [{"type": "unknown", "cmd": script}]
    if len(commands) > 1:
        # `cd dir && rg foo | head` is, to the reader, a search: drop the scaffolding.
        kept = [c for c in commands if posixpath.basename(c[0]) != "cd"]
        kept = [c for i, c in enumerate(kept) if i == 0 or not _is_formatter(c)]
        commands = kept or commands
    return [_summarise(c, shlex.join(c)) for c in commands]
