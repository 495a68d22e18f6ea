"""Comparing two transcripts of one scenario: the real server's and ours.

Two checks, after normalising what the model or machine make differ (ids, timestamps, paths):

* order: the server-to-client methods of the real transcript (notifications and requests), in
  order and with their counts, must be a subsequence of ours. Ours may add messages; it may not
  drop or reorder theirs. Responses (named by the request they answer) are only counted: when
  a response goes out relative to the notifications around it is a race in the real server
  (`turn/start`'s answer and `turn/started`), so ordering them would make a flaky check.
* shape: for every kind of message, every key path the real server sent must be in ours.
  A path names a list's elements `[]` and, where an object carries a `type`, that type
  (`params.item<agentMessage>.phase`), so each variant of a union is checked on its own.

Each failure is a `Difference`; `differences.toml` lists the deliberate ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from tests.conformance.wire import Entry

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)


@dataclass(frozen=True)
class Difference:
    """`method`: a real message ours never sends; `order`: one ours sends, but not where the
    real server does (or fewer times); `key`: a key path of a message kind ours lacks;
    `binding`: a field the real TypeScript bindings always carry that our schema may omit."""

    kind: Literal["method", "order", "key", "binding"]
    subject: str  # a message kind (see `kind_of`)
    path: str = ""  # for `key`
    detail: str = ""

    def __str__(self) -> str:
        where = f" {self.path}" if self.path else ""
        more = f": {self.detail}" if self.detail else ""
        return f"[{self.kind}] {self.subject}{where}{more}"


def kind_of(entry: Entry) -> str:
    """`notification M`, `request M` (server to client), `response M` or `error M`."""
    message = entry.message
    method = message.get("method")
    if isinstance(method, str):
        return f"{'request' if 'id' in message else 'notification'} {method}"
    return f"{'error' if 'error' in message else 'response'} {entry.answers}"


def server_kinds(transcript: Iterable[Entry], *, fold_repeats: bool = False) -> list[str]:
    """The kinds of the server's messages, in order. With `fold_repeats`, a notification that
    repeats the one just before it word for word counts once: the real server now and then
    sends one twice from two of its tasks racing (`thread/status/changed` on an archive), which
    tells a client nothing the first did not."""
    kinds: list[str] = []
    last: dict[str, Any] | None = None
    for entry in transcript:
        if entry.direction != "s2c":
            continue
        repeat = fold_repeats and "id" not in entry.message and entry.message == last
        last = entry.message
        if not repeat:
            kinds.append(kind_of(entry))
    return kinds


def is_answer(kind: str) -> bool:
    return kind.startswith(("response ", "error "))


def _normal_key(key: str, roots: dict[str, str]) -> str:
    for root, name in roots.items():
        if root and root in key:
            key = key.replace(root, name)
    return _UUID.sub("<uuid>", key)


Path = tuple[str, ...]
"""A key path as segments: `.key`, `[]` (any element of a list), `<type>` (an object's type)."""


def render(path: Path) -> str:
    return "".join(path).removeprefix(".")


def key_paths(value: Any, roots: dict[str, str], prefix: Path = ()) -> set[Path]:
    """Every key path in `value`, with ids and the run's own directories normalised."""
    paths: set[Path] = set()
    if isinstance(value, dict):
        tag = value.get("type")
        here = prefix
        if isinstance(tag, str) and prefix:
            here = (*prefix, f"<{tag}>")
            paths.add(here)
        for key, item in value.items():
            path = (*here, f".{_normal_key(str(key), roots)}")
            paths.add(path)
            paths |= key_paths(item, roots, path)
    elif isinstance(value, list):
        for item in value:
            paths |= key_paths(item, roots, (*prefix, "[]"))
    return paths


def shapes(transcript: Iterable[Entry], roots: dict[str, str]) -> dict[str, set[Path]]:
    """Message kind -> the union of the key paths of its server-to-client messages."""
    found: dict[str, set[Path]] = {}
    for entry in transcript:
        if entry.direction != "s2c":
            continue
        body = {k: v for k, v in entry.message.items() if k not in ("id", "method")}
        found.setdefault(kind_of(entry), set()).update(key_paths(body, roots))
    return found


def order_differences(
    real: list[str], ours: list[str], *, unordered: frozenset[str] = frozenset()
) -> list[Difference]:
    """Where `real` is not a subsequence of `ours`. Kinds in `unordered` are only counted."""
    differences: list[Difference] = []
    for kind in sorted(set(real) - set(ours)):
        differences.append(Difference("method", kind, detail="never sent by ours"))
    missing = {d.subject for d in differences}
    answers = {kind for kind in real if is_answer(kind)}
    for kind in sorted((unordered | answers) - missing):
        if ours.count(kind) < real.count(kind):
            detail = f"sent {ours.count(kind)} times, the real server {real.count(kind)}"
            differences.append(Difference("order", kind, detail=detail))
    skip = missing | unordered | answers
    want = [k for k in real if k not in skip]
    have = [k for k in ours if k not in skip]
    position = 0
    for index, kind in enumerate(want):
        try:
            position = have.index(kind, position) + 1
        except ValueError:
            before = want[index - 1] if index else "the start"
            detail = (
                f"real #{index} comes after {before}; ours sends it "
                f"{have.count(kind)} times, the real server {want.count(kind)} "
                f"(real: {_window(want, index)}; ours from there: {have[position : position + 6]})"
            )
            differences.append(Difference("order", kind, detail=detail))
            break
    return differences


def _window(sequence: list[str], index: int) -> list[str]:
    return sequence[max(0, index - 3) : index + 3]


def shape_differences(real: dict[str, set[Path]], ours: dict[str, set[Path]]) -> list[Difference]:
    """Key paths of the real messages missing from ours: only the outermost of each missing
    subtree (a missing object is one difference, not one per key inside it)."""
    differences: list[Difference] = []
    for kind, paths in sorted(real.items()):
        if kind not in ours:
            continue  # reported by the order check
        have = ours[kind]
        for path in sorted(paths - have):
            parent = path[:-1]
            if parent and parent not in have:
                continue
            differences.append(Difference("key", kind, render(path)))
    return differences
