"""The deliberate differences from the real server, read from `differences.toml`.

Each entry names what it excuses and why:

    [[difference]]
    kind = "key"                          # "method", "order", "key" or "binding"
    subject = "notification thread/started"   # a message kind; shell-style globs allowed
    path = "params.thread.environments"   # for "key": the key path, globs allowed
    scenarios = ["plain_answer"]          # optional; default every scenario
    sides = ["ours-lsp"]                  # optional; default both of our doors
    reason = "why we differ on purpose"

An `order` entry makes its message kinds count-only in the order check (ours must still send
them at least as often). A `binding` entry names a type of the real TypeScript bindings
(`subject`, `Name` or `Name<tag>` for a union variant) and a field (`path`) that our schema does
not mark as always sent (see `test_bindings.py`).

A difference no entry excuses fails its test, and so does an entry that excuses nothing any more.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from tests.conformance.compare import Difference

FILE = Path(__file__).with_name("differences.toml")
_KINDS = ("method", "order", "key", "binding")
_WITH_PATH = ("key", "binding")
_SIDES = ("ours", "ours-lsp")


@dataclass(frozen=True)
class Listed:
    index: int
    kind: str
    subject: str
    reason: str
    path: str = ""
    scenarios: tuple[str, ...] = ("*",)
    sides: tuple[str, ...] = _SIDES

    def applies(self, scenario: str, side: str) -> bool:
        return side in self.sides and any(fnmatchcase(scenario, s) for s in self.scenarios)

    def excuses(self, difference: Difference, scenario: str, side: str) -> bool:
        return (
            self.applies(scenario, side)
            and self.kind == difference.kind
            and fnmatchcase(difference.subject, self.subject)
            and (self.kind not in _WITH_PATH or fnmatchcase(difference.path, self.path))
        )

    def __str__(self) -> str:
        path = f" {self.path}" if self.path else ""
        return f"differences.toml entry #{self.index} [{self.kind}] {self.subject}{path}"


def load(path: Path = FILE) -> list[Listed]:
    """Every entry, checked: a known kind, a subject, a path for keys, and a reason."""
    data = tomllib.loads(path.read_text())
    entries: list[Listed] = []
    for index, raw in enumerate(data.get("difference", [])):
        where = f"{path.name} entry #{index}"
        unknown = set(raw) - {"kind", "subject", "path", "scenarios", "sides", "reason"}
        if unknown:
            raise ValueError(f"{where}: unknown fields {sorted(unknown)}")
        if raw.get("kind") not in _KINDS:
            raise ValueError(f"{where}: kind must be one of {_KINDS}")
        if not str(raw.get("reason", "")).strip():
            raise ValueError(f"{where}: every difference needs its reason")
        if not raw.get("subject"):
            raise ValueError(f"{where}: subject (a message kind) is required")
        if (raw["kind"] in _WITH_PATH) != bool(raw.get("path")):
            raise ValueError(f"{where}: a path is given for, and only for, {_WITH_PATH}")
        sides = tuple(raw.get("sides", _SIDES))
        if not set(sides) <= set(_SIDES):
            raise ValueError(f"{where}: sides are among {_SIDES}")
        entries.append(
            Listed(
                index=index,
                kind=raw["kind"],
                subject=raw["subject"],
                reason=raw["reason"],
                path=raw.get("path", ""),
                scenarios=tuple(raw.get("scenarios", ("*",))),
                sides=sides,
            )
        )
    return entries


def unordered_kinds(
    entries: list[Listed], kinds: set[str], scenario: str, side: str
) -> frozenset[str]:
    """The message kinds whose order `order` entries excuse in this scenario."""
    ordering = [e for e in entries if e.kind == "order" and e.applies(scenario, side)]
    return frozenset(k for k in kinds for e in ordering if fnmatchcase(k, e.subject))
