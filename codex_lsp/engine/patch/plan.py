"""The fully computed effect of a patch, before anything is written.

A `PatchPlan` holds one `FileOperation` per hunk, in patch order, with the old and new text of
every file. Approval prompts, the core `FileChange` map, the LSP `workspace/applyEdit` and the
disk writer are all derived from it, so every consumer sees exactly the same change.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .diff import LineEdit, unified_diff, unified_diff_of_edits
from .parser import Hunk

if TYPE_CHECKING:
    from .confined import WriteConfinement

OperationKind = Literal["add", "delete", "update"]
DEV_NULL = "/dev/null"


@dataclass(frozen=True)
class FileOperation:
    """One file-level change. Paths are absolute; `display_*` are the paths as the patch wrote them.

    `old_content` is None for an add and `new_content` is None for a delete. An update with
    `move_path` writes `new_content` at `move_path` and removes `path`.
    """

    kind: OperationKind
    path: Path
    display_path: str
    old_content: str | None
    new_content: str | None
    move_path: Path | None = None
    display_move_path: str | None = None
    # Where an update's chunks landed in the old text, when that tells the whole change: the
    # diff then compares those lines only.
    edits: tuple[LineEdit, ...] | None = None

    @property
    def destination(self) -> Path:
        """Where the new content lives after the operation."""
        return self.move_path or self.path

    @property
    def display_destination(self) -> str:
        return self.display_move_path or self.display_path

    def unified_diff(self) -> str:
        """This operation alone as a unified diff (`/dev/null` for the absent side)."""
        old_label = DEV_NULL if self.kind == "add" else self.display_path
        new_label = DEV_NULL if self.kind == "delete" else self.display_destination
        return _diff(self, self.old_content, old_label, new_label)


@dataclass(frozen=True)
class PatchPlan:
    """A verified patch: what every file will contain once it is applied."""

    cwd: Path
    operations: tuple[FileOperation, ...]
    hunks: tuple[Hunk, ...] = ()
    # Where the disk writer may put this plan's files, decided when it was approved;
    # None writes wherever the paths lead (danger-full-access, or no policy at all).
    confinement: WriteConfinement | None = None

    def touched_paths(self) -> list[Path]:
        """Every path written or removed, move destinations included, in patch order."""
        seen: dict[Path, None] = {}
        for op in self.operations:
            seen.setdefault(op.path)
            if op.move_path is not None:
                seen.setdefault(op.move_path)
        return list(seen)

    def summary(self) -> str:
        """The text the model sees on success: added, then modified, then deleted files."""
        added = [op.display_path for op in self.operations if op.kind == "add"]
        modified = [op.display_destination for op in self.operations if op.kind == "update"]
        deleted = [op.display_path for op in self.operations if op.kind == "delete"]
        lines = ["Success. Updated the following files:"]
        lines += [f"A {path}" for path in added]
        lines += [f"M {path}" for path in modified]
        lines += [f"D {path}" for path in deleted]
        return "\n".join(lines) + "\n"

    def unified_diff(self, path: str | Path) -> str:
        """The net unified diff of one file, named as in the patch, relative to cwd, or absolute.

        A moved file can be named by its source or its destination. If the patch touches the
        file several times, the diff runs from its state before the first hunk to after the last.
        Raises KeyError if the patch does not touch `path`.
        """
        target = Path(os.path.normpath(self.cwd / path))
        matching = [op for op in self.operations if target in (op.path, op.move_path)]
        if not matching:
            raise KeyError(f"the patch does not touch {path}")
        first, last = matching[0], matching[-1]
        old_label = DEV_NULL if first.kind == "add" else first.display_path
        new_label = DEV_NULL if last.kind == "delete" else last.display_destination
        return unified_diff(first.old_content or "", last.new_content or "", old_label, new_label)

    def diff(self) -> str:
        """Every operation's unified diff, concatenated in patch order."""
        return "".join(op.unified_diff() for op in self.operations)

    def changes(self) -> dict[str, dict[str, Any]]:
        """The core protocol's `FileChange` map, keyed by absolute path.

        Values are `{"type": "add", "content"}`, `{"type": "delete", "content"}` or
        `{"type": "update", "unified_diff", "move_path"}`. When a patch touches a file more than
        once the entries are folded into the file's net change, since a map holds one per path.
        """
        changes: dict[str, dict[str, Any]] = {}
        # Content of each key before the patch touched it, for folding repeated hunks.
        before: dict[str, str | None] = {}
        for op in self.operations:
            key = str(op.path)
            previous = changes.get(key)
            if previous is None or previous.get("move_path"):
                before[key] = op.old_content
                changes[key] = _change_entry(op, op.old_content)
                continue
            folded = _fold(previous["type"], before[key], op)
            if folded is None:
                del changes[key]
                del before[key]
            else:
                changes[key] = folded
        return changes


def _change_entry(op: FileOperation, base: str | None) -> dict[str, Any]:
    if op.kind == "add":
        return {"type": "add", "content": op.new_content}
    if op.kind == "delete":
        return {"type": "delete", "content": base}
    move = str(op.move_path) if op.move_path is not None else None
    diff = _diff(op, base, op.display_path, op.display_destination)
    return {"type": "update", "unified_diff": diff, "move_path": move}


def _fold(previous_type: str, base: str | None, op: FileOperation) -> dict[str, Any] | None:
    """Merge `op` into an earlier entry for the same path; None when the two cancel out."""
    if previous_type == "add":
        if op.kind == "delete":
            return None
        if op.kind == "update" and op.move_path is None:
            return {"type": "add", "content": op.new_content}
        return _change_entry(op, op.old_content)
    if op.kind == "add":
        # The file existed before the patch (it was updated or deleted earlier), so recreating
        # it is, in net, an update.
        return _change_entry(
            FileOperation("update", op.path, op.display_path, base, op.new_content), base
        )
    return _change_entry(op, base)


def _diff(op: FileOperation, base: str | None, old_label: str, new_label: str) -> str:
    """`op`'s diff from `base`, from the chunks' own ranges when `base` is what they edited."""
    if op.edits is not None and base is op.old_content and base is not None:
        return unified_diff_of_edits(base, op.new_content or "", op.edits, old_label, new_label)
    return unified_diff(base or "", op.new_content or "", old_label, new_label)
