"""A patch's change hunk by hunk: the pieces a user may accept or decline one at a time.

The hunks of a file are the blocks of changed lines of the unified diff the user is shown for
it (the diff in a file-change approval, the diff an editor previews): its `@@` hunks, each cut
wherever an unchanged line separates two changes (zero lines of context), so changes a few
lines apart are decided apart; counted from 0 in diff order. Updating a file in place splits
into those hunks;
adding, deleting or moving a file is a single hunk, taken or left whole. Files are named by
the absolute path that keys the change (the source of a move).

`plan_hunks` lists them, `without_hunks` gives the plan that applies only the others, and
`applied_hunks` works out which hunks a file holds after an editor applied some of them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from .diff import LineEdit, diff_hunks, hunk_header, split_lines
from .plan import FileOperation, PatchPlan

HunkKind = Literal["update", "add", "delete", "move"]


@dataclass(frozen=True)
class ChangeHunk:
    """One hunk of one file's change. Line numbers are 0-based; `end`s are exclusive."""

    path: Path
    display_path: str
    index: int
    kind: HunkKind
    header: str
    old_start: int = 0
    old_end: int = 0
    new_start: int = 0
    new_end: int = 0
    removed: tuple[str, ...] = ()
    added: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[str, int]:
        return (str(self.path), self.index)

    def describe(self) -> str:
        """The hunk as the model reads it: the file, the header, the lines out and in."""
        lines = [f"{self.display_path} {self.header}"]
        lines += [f"-{line.rstrip(chr(10))}" for line in self.removed]
        lines += [f"+{line.rstrip(chr(10))}" for line in self.added]
        return "\n".join(lines)


@dataclass(frozen=True)
class FileHunks:
    """One file's change: its text before and after the whole patch, and its hunks."""

    path: Path
    display_path: str
    before: str | None
    after: str | None
    hunks: tuple[ChangeHunk, ...]
    # Set when the change is split into line hunks (an update in place).
    split: bool


def _ops_by_path(plan: PatchPlan) -> dict[Path, list[FileOperation]]:
    """The operations of each path, in patch order; a move belongs to its source."""
    by_path: dict[Path, list[FileOperation]] = {}
    for op in plan.operations:
        by_path.setdefault(op.path, []).append(op)
    return by_path


def _moved_paths(plan: PatchPlan) -> set[Path]:
    moved: set[Path] = set()
    for op in plan.operations:
        if op.move_path is not None:
            moved.update((op.path, op.move_path))
    return moved


def file_hunks(plan: PatchPlan) -> list[FileHunks]:
    """Every file of the plan with its hunks, in the order the patch first touches them."""
    moved = _moved_paths(plan)
    out: list[FileHunks] = []
    for path, ops in _ops_by_path(plan).items():
        first, last = ops[0], ops[-1]
        before = first.old_content
        after = None if last.kind == "delete" or last.move_path is not None else last.new_content
        display = first.display_path
        if path in moved:
            whole: HunkKind = "move"
        elif before is None and after is None:
            continue  # added, then deleted again: nothing to show
        elif before is None:
            whole = "add"
        elif after is None:
            whole = "delete"
        else:
            # The diff of a file touched once is made from the patch's own line ranges.
            edits = first.edits if len(ops) == 1 else None
            split = _split_update(path, display, before, after, edits)
            if split.hunks:
                out.append(split)
            continue
        header = {
            "move": f"move to {last.display_destination}",
            "add": "add file",
            "delete": "delete file",
        }[whole]
        hunk = ChangeHunk(path, display, 0, whole, header)
        out.append(FileHunks(path, display, before, after, (hunk,), split=False))
    return out


def _split_update(
    path: Path, display: str, before: str, after: str, edits: tuple[LineEdit, ...] | None
) -> FileHunks:
    old, new = split_lines(before), split_lines(after)
    hunks: list[ChangeHunk] = []
    for index, group in enumerate(diff_hunks(before, after, edits, context=0)):
        changed = [op for op in group if op[0] != "equal"]
        i1, j1 = changed[0][1], changed[0][3]
        i2, j2 = changed[-1][2], changed[-1][4]
        hunks.append(
            ChangeHunk(
                path,
                display,
                index,
                "update",
                hunk_header(group),
                old_start=i1,
                old_end=i2,
                new_start=j1,
                new_end=j2,
                removed=tuple(old[i1:i2]),
                added=tuple(new[j1:j2]),
            )
        )
    return FileHunks(path, display, before, after, tuple(hunks), split=True)


def plan_hunks(plan: PatchPlan) -> list[ChangeHunk]:
    """Every hunk of the plan, file by file."""
    return [hunk for file in file_hunks(plan) for hunk in file.hunks]


def merge_hunks(before: str, hunks: Iterable[ChangeHunk], taken: Iterable[bool]) -> str:
    """`before` with the taken hunks of one split file applied and the others left out."""
    old = split_lines(before)
    out: list[str] = []
    cursor = 0
    for hunk, take in zip(hunks, taken, strict=True):
        out.extend(old[cursor : hunk.old_start])
        out.extend(hunk.added if take else old[hunk.old_start : hunk.old_end])
        cursor = hunk.old_end
    out.extend(old[cursor:])
    return "".join(out)


def without_hunks(plan: PatchPlan, declined: Iterable[tuple[str, int]]) -> PatchPlan:
    """The plan that applies every hunk but the declined ones (given as `ChangeHunk.key`s).

    A file whose hunks are all declined is left as it is; keys that name no hunk are ignored.
    """
    refused = set(declined)
    if not refused:
        return plan
    files = {file.path: file for file in file_hunks(plan)}
    moves = [h.key for file in files.values() for h in file.hunks if h.kind == "move"]
    if refused.intersection(moves):
        # A later hunk may edit a moved file at its new place: the moves go or stay together.
        refused.update(moves)
    replaced: dict[Path, FileOperation | None] = {}
    for path, file in files.items():
        taken = [hunk.key not in refused for hunk in file.hunks]
        if all(taken):
            continue
        if not any(taken) or not file.split:
            replaced[path] = None
            continue
        assert file.before is not None
        first = next(op for op in plan.operations if op.path == path)
        merged = merge_hunks(file.before, file.hunks, taken)
        replaced[path] = FileOperation("update", path, first.display_path, file.before, merged)
    if not replaced:
        return plan
    operations: list[FileOperation] = []
    placed: set[Path] = set()
    for op in plan.operations:
        if op.path not in replaced:
            operations.append(op)
            continue
        substitute = replaced[op.path]
        if substitute is not None and op.path not in placed:
            operations.append(substitute)
        placed.add(op.path)
    # The plan keeps its confinement: leaving hunks out never widens where it may write.
    return replace(plan, operations=tuple(operations))


def applied_hunks(before: str, result: str, hunks: tuple[ChangeHunk, ...]) -> list[bool] | None:
    """Which hunks of one split file `result` holds, each applied whole or not at all.

    None when no choice of hunks gives `result` (the file was changed some other way). When
    several choices give it, taking a hunk is preferred to leaving it out.
    """
    old = split_lines(before)
    # Between hunks the text is the same whichever hunks are taken.
    gaps: list[str] = []
    cursor = 0
    for hunk in hunks:
        gaps.append("".join(old[cursor : hunk.old_start]))
        cursor = hunk.old_end
    gaps.append("".join(old[cursor:]))
    if not result.startswith(gaps[0]):
        return None
    # Reachable offsets in `result` after each hunk and the gap that follows it, with the
    # choices that led there; a small set, since each step offers two ways at most.
    states: dict[int, list[bool]] = {len(gaps[0]): []}
    for index, hunk in enumerate(hunks):
        gap = gaps[index + 1]
        options = (
            (True, "".join(hunk.added)),
            (False, "".join(old[hunk.old_start : hunk.old_end])),
        )
        following: dict[int, list[bool]] = {}
        for offset, chosen in states.items():
            for take, text in options:
                end = offset + len(text)
                if result.startswith(text, offset) and result.startswith(gap, end):
                    following.setdefault(end + len(gap), [*chosen, take])
        if not following:
            return None
        states = following
    return states.get(len(result))
