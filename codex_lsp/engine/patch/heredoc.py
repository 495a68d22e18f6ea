"""Recognise apply_patch invocations hidden in shell tool calls.

Models trained on the shell-only tool set still write `bash -lc "apply_patch <<'EOF' ... EOF"`
(sometimes behind `cd dir &&`). Running that would need an `apply_patch` binary and would bypass
patch approval, so the shell tool asks `detect_apply_patch` first and routes a match to the
apply_patch handler, with the `cd` directory as the working directory.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from typing import NamedTuple

from codex_lsp.engine.shell import shell_script

from .errors import PatchParseError
from .parser import parse_patch

APPLY_PATCH_COMMANDS = frozenset({"apply_patch", "applypatch"})
RAW_PATCH_MESSAGE = (
    'patch detected without explicit call to apply_patch. Rerun as ["apply_patch", "<patch>"]'
)


_HEREDOC_SCRIPT = re.compile(
    r"""
    \A\s*
    (?:cd\s+(?P<dir>'[^']*'|"(?:[^"\\]|\\.)*"|[^\s;&|<>'"]+)\s*&&\s*)?
    (?:apply_patch|applypatch)[ \t]*<<(?P<strip>-)?[ \t]*
    (?P<quote>['"]?)(?P<delim>[A-Za-z_][A-Za-z0-9_]*)(?P=quote)[ \t]*\n
    (?P<body>.*?)
    ^(?(strip)\t*)(?P=delim)[ \t]*$
    \s*\Z
    """,
    re.DOTALL | re.MULTILINE | re.VERBOSE,
)


class ApplyPatchInvocation(NamedTuple):
    """A patch found in a command, and the directory it is relative to (None: the call's cwd)."""

    patch: str
    workdir: str | None


def parse_heredoc_script(script: str) -> ApplyPatchInvocation | None:
    """Match `[cd DIR && ]apply_patch <<'EOF'\\n...\\nEOF` as a whole script, else None."""
    match = _HEREDOC_SCRIPT.match(script)
    if match is None:
        return None
    workdir = match.group("dir")
    if workdir is not None:
        # shlex undoes the quoting exactly as the shell would for a plain word.
        workdir = shlex.split(workdir)[0]
    body = match.group("body")
    return ApplyPatchInvocation(body.removesuffix("\n"), workdir)


def detect_apply_patch(argv: Sequence[str]) -> ApplyPatchInvocation | None:
    """Return the patch an argv invokes apply_patch with, or None if it is another command.

    Recognised: `["apply_patch", patch]`, `["applypatch", patch]`, and a shell running a script
    that is exactly one apply_patch heredoc, optionally after `cd DIR &&`.
    """
    if len(argv) == 2 and argv[0] in APPLY_PATCH_COMMANDS:
        return ApplyPatchInvocation(argv[1], None)
    script = shell_script(argv)
    if script is None:
        return None
    return parse_heredoc_script(script)


def _parses_as_patch(text: str) -> bool:
    try:
        parse_patch(text)
    except PatchParseError:
        return False
    return True


def is_raw_patch(argv: Sequence[str]) -> bool:
    """True if the command is a bare patch, with no apply_patch call around it.

    The shell tool answers such calls with `RAW_PATCH_MESSAGE` instead of running them.
    """
    if len(argv) == 1:
        return _parses_as_patch(argv[0])
    script = shell_script(argv)
    return script is not None and _parses_as_patch(script)
