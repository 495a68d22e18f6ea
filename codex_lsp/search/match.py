"""Rank paths against a query the way a file picker does.

A path matches when the query's characters appear in it in order (case-insensitive unless the
query has a capital letter). Where they appear decides the tier, and the tier comes first: the
file's own name equal to the query, then containing it, then containing its letters in order,
then the letters spread over the whole path. Within a tier, matches at the start of the name or
of a word, closer together, in shorter names and paths rank higher; equal scores go by path.

Matching runs over each chunk's paths joined into one string, with regular expressions, so the
scan is done in C; only the candidates of the tiers needed to fill a page are scored in Python,
and a lower tier is not even scanned once the higher ones fill the page.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

TIER = 1 << 16
_BOUNDARY = frozenset("/_-. ")
# Candidates of one tier scored at most; the shortest names go first, as they score highest.
SCORED_PER_TIER = 4000
# Candidates taken from one chunk per tier: its entries are shortest first, so its best ones.
PER_CHUNK = 400


@dataclass(frozen=True)
class Match:
    path: str
    is_dir: bool
    score: int
    indices: list[int]

    @property
    def file_name(self) -> str:
        return self.path.rpartition("/")[2]


@dataclass
class _Chunk:
    paths: list[str]
    is_dir: list[bool]
    names: list[str]
    name_starts: list[int]  # where the name begins in the path
    path_blob: str
    name_blob: str
    path_lines: list[int]  # offset of each line in the blobs
    name_lines: list[int]
    folded_paths: str
    folded_names: str

    @classmethod
    def build(cls, paths: list[str], is_dir: list[bool]) -> _Chunk:
        # Shortest names first: a scan then meets the best-scoring candidates of a tier first
        # and can stop once it has enough of them.
        order = sorted(
            range(len(paths)), key=lambda i: (len(paths[i]) - paths[i].rfind("/"), len(paths[i]))
        )
        paths = [paths[i] for i in order]
        is_dir = [is_dir[i] for i in order]
        names = [p.rpartition("/")[2] for p in paths]
        path_blob = "\n".join(paths)
        name_blob = "\n".join(names)
        return cls(
            paths=paths,
            is_dir=is_dir,
            names=names,
            name_starts=[len(p) - len(n) for p, n in zip(paths, names, strict=True)],
            path_blob=path_blob,
            name_blob=name_blob,
            path_lines=_line_offsets(paths),
            name_lines=_line_offsets(names),
            folded_paths=path_blob.lower(),
            folded_names=name_blob.lower(),
        )


def _line_offsets(lines: list[str]) -> list[int]:
    offsets, at = [], 0
    for line in lines:
        offsets.append(at)
        at += len(line) + 1
    return offsets


@dataclass
class FileIndex:
    """The paths of one root, added in batches as they are listed."""

    chunks: list[_Chunk] = field(default_factory=list)
    _dirs: set[str] = field(default_factory=set)
    count: int = 0

    def add(self, files: list[str]) -> None:
        dirs: list[str] = []
        seen = self._dirs
        for path in files:
            parent = path.rpartition("/")[0]
            while parent and parent not in seen:
                seen.add(parent)
                dirs.append(parent)
                parent = parent.rpartition("/")[0]
        paths = files + dirs
        self.chunks.append(_Chunk.build(paths, [False] * len(files) + [True] * len(dirs)))
        self.count += len(paths)

    def search(self, query: str, limit: int) -> list[Match]:
        needle = "".join(query.split())
        if not needle or limit <= 0:
            return []
        sensitive = needle != needle.lower()
        scored: list[tuple[int, str, _Chunk, int, int]] = []
        taken: set[tuple[int, int]] = set()
        for tier in (2, 1, 0):
            candidates = self._candidates(tier, needle, sensitive)
            # Shortest first: they score highest within a tier; the rest are left unscored.
            candidates.sort(key=lambda c: len(c[0].paths[c[1]]))
            for chunk, line in candidates[:SCORED_PER_TIER]:
                key = (id(chunk), line)
                if key in taken:
                    continue  # already ranked in a higher tier
                score = _score(chunk, line, needle, sensitive, tier)
                if score is not None:
                    taken.add(key)
                    scored.append((-score, chunk.paths[line], chunk, line, tier))
            if len(scored) >= limit:
                break  # a lower tier can only rank below every match found so far
        scored.sort(key=lambda entry: (entry[0], entry[1]))
        return [
            Match(
                path=path,
                is_dir=chunk.is_dir[line],
                score=-negative,
                indices=_indices(chunk, line, needle, sensitive, tier),
            )
            for negative, path, chunk, line, tier in scored[:limit]
        ]

    def _candidates(self, tier: int, needle: str, sensitive: bool) -> list[tuple[_Chunk, int]]:
        flags = 0
        if tier == 2:
            pattern = re.compile(re.escape(needle), flags)
        else:
            pattern = re.compile(_subsequence(needle), flags)
        found: list[tuple[_Chunk, int]] = []
        for chunk in self.chunks:
            if tier == 0:
                blob = chunk.path_blob if sensitive else chunk.folded_paths
                lines = chunk.path_lines
            else:
                blob = chunk.name_blob if sensitive else chunk.folded_names
                lines = chunk.name_lines
            last, kept = -1, 0
            for hit in pattern.finditer(blob):
                line = bisect_right(lines, hit.start()) - 1
                if line != last:
                    found.append((chunk, line))
                    last = line
                    kept += 1
                    if kept >= PER_CHUNK:
                        break
        return found


def _subsequence(needle: str) -> str:
    """`a[^\\nb]*b[^\\nc]*c`: the letters in order on one line, without backtracking."""
    parts = [re.escape(needle[0])]
    for char in needle[1:]:
        escaped = re.escape(char)
        parts.append(f"[^\\n{escaped}]*{escaped}")
    return "".join(parts)


def _fold(text: str, sensitive: bool) -> str:
    return text if sensitive else text.lower()


def _positions(text: str, needle: str) -> list[int] | None:
    """Where the letters of `needle` fall in `text`, leftmost in order, tightened from the
    end so the match is as short as it can be."""
    positions = []
    at = 0
    for char in needle:
        at = text.find(char, at)
        if at < 0:
            return None
        positions.append(at)
        at += 1
    # Pull each letter as far right as the next one allows: `config` in `c_o_config` then
    # matches the word, not letters scattered from the start.
    for index in range(len(needle) - 2, -1, -1):
        last = text.rfind(needle[index], positions[index], positions[index + 1])
        positions[index] = last
    return positions


def _score(chunk: _Chunk, line: int, needle: str, sensitive: bool, tier: int) -> int | None:
    path = chunk.paths[line]
    name = chunk.names[line]
    if tier == 2:
        folded = _fold(name, sensitive)
        at = folded.find(needle)
        if at < 0:
            return None
        fine = 3000
        if folded == needle or folded.rsplit(".", 1)[0] == needle:
            return 3 * TIER + 4000 - len(path)
        if at == 0:
            fine += 600
        elif name[at - 1] in _BOUNDARY or (name[at].isupper() and name[at - 1].islower()):
            fine += 300
        return tier * TIER + max(fine - 8 * len(name) - len(path), 1)
    text = name if tier == 1 else path
    positions = _positions(_fold(text, sensitive), needle)
    if positions is None:
        return None
    fine = 3000
    for index, position in enumerate(positions):
        if position == 0 or text[position - 1] in _BOUNDARY:
            fine += 80
        if index and position == positions[index - 1] + 1:
            fine += 40
    fine -= 6 * (positions[-1] - positions[0] + 1 - len(needle))
    fine -= 4 * len(name) + len(path)
    return tier * TIER + max(min(fine, TIER - 1), 1)


def _indices(chunk: _Chunk, line: int, needle: str, sensitive: bool, tier: int) -> list[int]:
    """The positions in the whole path of the letters that matched."""
    start = chunk.name_starts[line]
    if tier == 2:
        at = _fold(chunk.names[line], sensitive).find(needle)
        return list(range(start + at, start + at + len(needle)))
    if tier == 1:
        found = _positions(_fold(chunk.names[line], sensitive), needle) or []
        return [start + position for position in found]
    return _positions(_fold(chunk.paths[line], sensitive), needle) or []
