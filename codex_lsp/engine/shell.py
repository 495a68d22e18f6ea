"""The user's shell, the argv that runs a `shell_command` script in it, and reading scripts.

Only the shells of `SCRIPT_SHELLS` are used: their `-c`/`-lc` runs a script in sh syntax (zsh
is treated as bash); anything exotic (fish, tcsh, nologin) falls back to bash so a script from
the model means what it says. `shell_script` is the one reading of `SHELL -lc SCRIPT`: approval
prompts, patch detection, the safety rules and every display of a command look through it.

`parse_shell_script` is deliberately conservative: it understands only scripts whose meaning is
plain from the text (words, quotes, `&&`, `||`, `;`, `|`), which safety and approval decisions
rely on.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import pwd
import re
import shutil
from collections.abc import Sequence

FALLBACK_SHELL = "/bin/bash"
SCRIPT_SHELLS = frozenset({"bash", "zsh", "sh", "dash", "ksh"})
"""Shells whose `-c SCRIPT` runs SCRIPT in sh syntax: the ones scripts run in here. Codex reads
`bash`, `zsh` and `sh`; `dash` and `ksh` are users' shells too, with the same syntax."""
_SCRIPT_FLAGS = frozenset({"-c", "-lc", "-cl"})


def _usable(path: str | None) -> bool:
    return bool(
        path
        and os.path.isabs(path)
        and os.path.basename(path) in SCRIPT_SHELLS
        and os.access(path, os.X_OK)
    )


def default_user_shell() -> str:
    """Absolute path of the shell to run scripts in: $SHELL, else the passwd entry, else bash."""
    candidates = [os.environ.get("SHELL")]
    # A uid without a passwd entry (seen in some containers) just skips this source.
    with contextlib.suppress(KeyError):
        candidates.append(pwd.getpwuid(os.getuid()).pw_shell)
    for candidate in candidates:
        if _usable(candidate):
            assert candidate is not None
            return candidate
    if os.access(FALLBACK_SHELL, os.X_OK):
        return FALLBACK_SHELL
    return shutil.which("bash") or "/bin/sh"


def shell_script(argv: Sequence[str]) -> str | None:
    """The SCRIPT of `SHELL -c SCRIPT`, `SHELL -lc SCRIPT` (or `-cl`, `-l -c`), SHELL one of
    `SCRIPT_SHELLS` by its file name; else None."""
    if len(argv) < 3 or posixpath.basename(argv[0]) not in SCRIPT_SHELLS:
        return None
    flags = list(argv[1:-1])
    if flags == ["-l", "-c"] or (len(flags) == 1 and flags[0] in _SCRIPT_FLAGS):
        return argv[-1]
    return None


def shell_command_argv(script: str, *, login: bool = True, shell: str | None = None) -> list[str]:
    """`[shell, "-lc", script]`, or `-c` when `login` is false."""
    return [shell or default_user_shell(), "-lc" if login else "-c", script]


# --- Reading scripts -------------------------------------------------------------------------

# A bare name resolves through PATH; an absolute path is trusted only in the system's bin dirs,
# so `./cat` or `/tmp/ls` (which could be anything) never counts as the real tool.
SYSTEM_BIN_DIRS = frozenset(
    {"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/opt/homebrew/bin"}
)

# Unquoted characters that are literal in every position bash gives them; anything else
# (globs, `$`, backticks, redirects, parentheses, braces, backslashes, `!`, `&`) ends the parse.
_WORD_PUNCTUATION = frozenset("-_./=:,+@%^~#")
_RESERVED_WORDS = frozenset(
    {
        "if", "then", "elif", "else", "fi", "for", "while", "until", "do", "done", "case", "esac",
        "in", "select", "function", "time", "coproc", "{", "}", "!", "[[", "]]",
    }
)  # fmt: skip
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\+?=")


def command_name(arg0: str) -> str | None:
    """The tool `arg0` names, or None when it is a path outside the system bin dirs."""
    if "/" not in arg0:
        return arg0
    directory, base = posixpath.split(arg0)
    return base if directory in SYSTEM_BIN_DIRS else None


def shell_script_of(argv: Sequence[str]) -> str | None:
    """`shell_script` for the safety rules: only a shell found through PATH or in a system bin
    dir counts (`/tmp/bash` could be anything)."""
    if not argv or command_name(argv[0]) is None:
        return None
    return shell_script(argv)


class _ScriptReader:
    """Single pass over a script; `None` from `read` means "not plain enough to judge"."""

    def __init__(self, script: str) -> None:
        self.s = script
        self.commands: list[list[str]] = []
        self.current: list[str] = []
        self.word: list[str] | None = None
        # After `&&`, `||` or `|` another command must follow (newlines may come first).
        self.need_command = False

    def _end_word(self) -> None:
        if self.word is not None:
            self.current.append("".join(self.word))
            self.word = None
            self.need_command = False

    def _end_command(self) -> bool:
        self._end_word()
        if not self.current:
            return False
        head = self.current[0]
        if head in _RESERVED_WORDS or _ASSIGNMENT.match(head):
            return False  # compound commands and `VAR=x cmd` change meaning beyond argv
        self.commands.append(self.current)
        self.current = []
        return True

    def _quoted(self, i: int, quote: str) -> int | None:
        end = self.s.find(quote, i + 1)
        if end < 0:
            return None
        body = self.s[i + 1 : end]
        # Inside double quotes `$`, backticks and backslashes still expand or escape.
        if quote == '"' and any(ch in body for ch in "$`\\"):
            return None
        if self.word is None:
            self.word = []
        self.word.append(body)
        return end + 1

    def _step(self, i: int) -> int | None:
        s, ch = self.s, self.s[i]
        if ch in " \t":
            self._end_word()
            return i + 1
        if ch == "\n":
            self._end_word()
            if self.current:
                return i + 1 if self._end_command() else None
            return i + 1
        if ch in "'\"":
            return self._quoted(i, ch)
        if s.startswith(("&&", "||"), i) or (ch == "|" and not s.startswith("|&", i)):
            if not self._end_command():
                return None
            self.need_command = True
            return i + (1 if ch == "|" and not s.startswith("||", i) else 2)
        if ch == ";":
            self._end_word()
            if s.startswith(";;", i) or self.need_command or not self._end_command():
                return None
            return i + 1
        if ch.isalnum() or (ch in _WORD_PUNCTUATION and not (ch == "#" and self.word is None)):
            if self.word is None:
                self.word = []
            self.word.append(ch)
            return i + 1
        return None

    def read(self) -> list[list[str]] | None:
        i: int | None = 0
        while i is not None and i < len(self.s):
            i = self._step(i)
        if i is None:
            return None
        self._end_word()
        if self.current and not self._end_command():
            return None
        if self.need_command or not self.commands:
            return None
        return self.commands


def parse_shell_script(script: str) -> list[list[str]] | None:
    """The commands of a plain script joined by `&&`, `||`, `;`, `|` or newlines, as argv lists.

    Only plain words and quoted strings are accepted; any expansion, redirect, subshell, glob,
    background job, heredoc or compound command yields None, since what it runs can't be known
    from the text alone.
    """
    return _ScriptReader(script).read()
