"""Command prefix rules: "always allow commands starting with …", kept in `rules/default.rules`.

The file is the one Codex writes under `$CODEX_HOME`: one `prefix_rule(pattern=[...],
decision="allow")` line per rule the user approved. This module reads the forms Codex writes
(`decision` one of `allow`, `prompt`, `forbidden`, defaulting to `allow`; a pattern element
may be a list of alternatives), appends the user's new allow rules, and removes one when the
user revokes it. Any other line is reported once and ignored: a hand-edited file never stops
a session.

A rule only ever matches a simple command (`simple_command`). A script of plain commands
joined by `&&`, `||`, `;`, `|` or newlines is held to the rules command by command, as Codex
does: it is allowed without a question only when a rule allows every one of its commands, and
one forbidden (or prompted) command makes the whole script so. A script with any other shell
syntax (redirections, substitutions, expansions, `VAR=x` prefixes, subshells) matches no rule,
so a rule for `git status` never lets `git status; rm -rf ~` or `git status > ~/.bashrc` by.
A matched command still runs in the sandbox.
"""

from __future__ import annotations

import json
import logging
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from codex_lsp.engine.shell import parse_shell_script, shell_script_of

log = logging.getLogger(__name__)

RuleDecision = Literal["allow", "prompt", "forbidden"]
_STRICTNESS: dict[RuleDecision, int] = {"allow": 0, "prompt": 1, "forbidden": 2}

RULES_FILE = Path("rules") / "default.rules"
# Characters with a meaning to the shell even inside one word: a rule never matches them.
_SHELL_SYNTAX = frozenset("$`<>*?[]{}~!#\n")
_RULE_LINE = re.compile(
    r'^prefix_rule\(\s*pattern\s*=\s*(\[.*\])\s*(?:,\s*decision\s*=\s*"(allow|prompt|forbidden)"\s*)?,?\s*\)$'
)
# Problems already reported, so a bad line is reported once, not on every command.
_REPORTED: set[tuple[str, str]] = set()

Pattern = tuple[str | tuple[str, ...], ...]


def simple_commands(argv: Sequence[str]) -> list[list[str]] | None:
    """The simple commands `argv` runs, looking through a `bash -lc SCRIPT` wrapper (of a shell
    from PATH or the system's bin dirs) whose script only joins plain commands; None when it
    runs anything a rule could not name word by word."""
    script = shell_script_of(argv)
    commands = [list(argv)] if script is None else parse_shell_script(script)
    if not commands:
        return None
    for words in commands:
        if not words or any(_SHELL_SYNTAX & set(word) for word in words):
            return None
    return commands


def simple_command(argv: Sequence[str]) -> list[str] | None:
    """The words of `argv` when it is one simple command; None when it is anything more."""
    commands = simple_commands(argv)
    return commands[0] if commands is not None and len(commands) == 1 else None


@dataclass(frozen=True)
class PrefixRule:
    pattern: Pattern
    decision: RuleDecision = "allow"

    def matches(self, words: Sequence[str]) -> bool:
        if len(words) < len(self.pattern):
            return False
        return all(
            word == part if isinstance(part, str) else word in part
            for part, word in zip(self.pattern, words, strict=False)
        )

    def line(self) -> str:
        """The rule as Codex writes it in the rules file."""
        pattern = [p if isinstance(p, str) else list(p) for p in self.pattern]
        words = json.dumps(pattern, ensure_ascii=False)
        return f'prefix_rule(pattern={words}, decision="{self.decision}")'

    def shown(self) -> str:
        return " ".join(
            shlex.quote(p) if isinstance(p, str) else "{" + ",".join(p) + "}" for p in self.pattern
        )


def parse_rule(line: str) -> PrefixRule | None:
    """One line of the rules file as a rule; None when it is not one of the forms read here."""
    found = _RULE_LINE.match(line.strip())
    if found is None:
        return None
    try:
        raw = json.loads(found.group(1))
    except ValueError:
        return None
    pattern: list[str | tuple[str, ...]] = []
    for part in raw if isinstance(raw, list) else []:
        if isinstance(part, str):
            pattern.append(part)
        elif isinstance(part, list) and part and all(isinstance(p, str) for p in part):
            pattern.append(tuple(part))
        else:
            return None
    if not pattern:
        return None
    decision: RuleDecision = found.group(2) or "allow"  # type: ignore[assignment]
    return PrefixRule(tuple(pattern), decision)


def read_rules(path: Path) -> list[PrefixRule]:
    """The rules of `path`; a missing or unreadable file has none, a bad line is skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        if not isinstance(err, FileNotFoundError):
            _report(path, f"cannot read it ({err})")
        return []
    rules: list[PrefixRule] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        rule = parse_rule(line)
        if rule is None:
            _report(path, f"line {number} is not a prefix_rule this server reads; ignored")
        else:
            rules.append(rule)
    return rules


def _report(path: Path, problem: str) -> None:
    if (str(path), problem) not in _REPORTED:
        _REPORTED.add((str(path), problem))
        log.warning("command rules %s: %s", path, problem)


class ExecRules:
    """The prefix rules one session goes by: the rules file's, read again when it changes (so
    a rule added or revoked in one thread holds in the others), and the allow rules approved in
    this session, kept even when the file cannot be written."""

    def __init__(self, codex_home: Path | None) -> None:
        self._path = codex_home / RULES_FILE if codex_home is not None else None
        self._stamp: tuple[int, int] | None = None
        self._file_rules: list[PrefixRule] = []
        self._session: list[PrefixRule] = []
        self._revoked: set[PrefixRule] = set()
        self._notes: list[str] = []

    def _load(self) -> list[PrefixRule]:
        if self._path is None:
            return []
        try:
            info = self._path.stat()
            stamp: tuple[int, int] | None = (info.st_mtime_ns, info.st_size)
        except OSError:
            stamp = None
        if stamp != self._stamp:
            self._stamp = stamp
            self._file_rules = read_rules(self._path) if stamp is not None else []
        return self._file_rules

    def rules(self) -> list[PrefixRule]:
        """Every rule in effect, the file's first, each once."""
        seen: list[PrefixRule] = []
        for rule in [*self._load(), *self._session]:
            if rule not in seen and rule not in self._revoked:
                seen.append(rule)
        return seen

    def decision(self, argv: Sequence[str]) -> RuleDecision | None:
        """What the rules say of `argv`: the strictest decision over its commands, each taking
        the strictest rule it matches. A command no rule matches cannot be allowed by one, so
        the script then gets None (the approval policy decides), unless another of its commands
        is forbidden or prompted."""
        return self.verdict(argv)[0]

    def verdict(self, argv: Sequence[str]) -> tuple[RuleDecision | None, PrefixRule | None]:
        """`decision`, and the rule that made it (None for None)."""
        commands = simple_commands(argv)
        if commands is None:
            return None, None
        rules = self.rules()
        strictest: PrefixRule | None = None
        unmatched = False
        for words in commands:
            matched = [rule for rule in rules if rule.matches(words)]
            if not matched:
                unmatched = True
                continue
            rule = max(matched, key=lambda r: _STRICTNESS[r.decision])
            if strictest is None or _STRICTNESS[rule.decision] > _STRICTNESS[strictest.decision]:
                strictest = rule
        if strictest is None or (unmatched and strictest.decision == "allow"):
            return None, None
        return strictest.decision, strictest

    def allow(self, words: Sequence[str]) -> PrefixRule:
        """Allow commands starting with `words` from now on: in this session, and in the rules
        file for later ones (a file that cannot be written is logged, the session rule holds)."""
        rule = PrefixRule(tuple(words))
        self._revoked.discard(rule)
        if rule not in self._session:
            self._session.append(rule)
        if self._path is not None and rule not in self._load():
            try:
                self._path.parent.mkdir(parents=True, exist_ok=True)
                with self._path.open("a", encoding="utf-8") as out:
                    out.write(rule.line() + "\n")
            except OSError as err:
                log.warning("could not save the command rule in %s: %s", self._path, err)
        self._notes.append(
            "Approved command prefix saved:\n- " + json.dumps(list(words), ensure_ascii=False)
        )
        return rule

    def revoke(self, rule: PrefixRule) -> bool:
        """Stop allowing `rule`: in this session, and its lines in the rules file."""
        if rule not in self.rules():
            return False
        self._revoked.add(rule)
        if rule in self._session:
            self._session.remove(rule)
        if self._path is not None and rule in self._load():
            try:
                lines = self._path.read_text(encoding="utf-8").splitlines(keepends=True)
                kept = [line for line in lines if parse_rule(line) != rule]
                self._path.write_text("".join(kept), encoding="utf-8")
            except OSError as err:
                log.warning("could not remove the command rule from %s: %s", self._path, err)
        return True

    def take_notes(self) -> list[str]:
        """What the model is told about rules saved since it was last told."""
        notes, self._notes = self._notes, []
        return notes
