"""Unified diffs of whole files: always correct (applying one gives the new text), minimal on
ordinary edits, the same from a patch's own line ranges, and linear on inputs where difflib
is quadratic (checked by counting work, not by timing)."""

from __future__ import annotations

import random
import re
from pathlib import Path

from codex_lsp.engine.patch import plan_patch, unified_diff
from codex_lsp.engine.patch.diff import line_opcodes, split_lines
from codex_lsp.engine.workspace import DiskWorkspace

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def apply_unified(old: str, diff: str) -> str:
    """Apply a unified diff the way patch(1) does, checking every context and removed line."""
    source = split_lines(old)
    out: list[str] = []
    lines = diff.splitlines(keepends=True)[2:]
    at = 0
    index = 0
    while index < len(lines):
        match = _HUNK.match(lines[index])
        assert match, lines[index]
        start, count = int(match.group(1)), int(match.group(2) or 1)
        first = start - 1 if count else start
        out += source[at:first]
        at = first
        index += 1
        while index < len(lines) and not lines[index].startswith("@@"):
            line = lines[index]
            ends = index + 1 < len(lines) and lines[index + 1].startswith("\\ No newline")
            text = line[1:] if not ends else line[1:-1]
            if line[0] in " -":
                assert source[at] == text, (source[at], text)
                at += 1
            if line[0] in " +":
                out.append(text)
            index += 2 if ends else 1
    return "".join(out + source[at:])


def _edit(rng: random.Random, lines: list[str], alphabet: int) -> list[str]:
    edited = list(lines)
    for _ in range(rng.randint(0, 6)):
        spot = rng.randint(0, len(edited))
        roll = rng.random()
        if roll < 0.4:
            edited.insert(spot, f"new {rng.randint(0, alphabet)}\n")
        elif edited and roll < 0.8:
            del edited[min(spot, len(edited) - 1)]
        elif edited:
            edited[min(spot, len(edited) - 1)] = f"changed {rng.randint(0, alphabet)}\n"
    return edited


def test_every_diff_applies_to_give_the_new_text() -> None:
    rng = random.Random(12)
    for _ in range(2000):
        alphabet = rng.choice([2, 8, 1000])
        old_lines = [f"line {rng.randint(0, alphabet)}\n" for _ in range(rng.randint(0, 40))]
        old, new = "".join(old_lines), "".join(_edit(rng, old_lines, alphabet))
        if rng.random() < 0.2:
            old = old.rstrip("\n")
        if rng.random() < 0.2:
            new = new.rstrip("\n")
        diff = unified_diff(old, new, "a/f", "b/f")
        assert (diff == "") == (old == new)
        assert apply_unified(old, diff) == new, diff


def test_a_one_line_change_is_one_small_hunk() -> None:
    old = "".join(f"line {n}\n" for n in range(1000))
    new = old.replace("line 500\n", "line five hundred\n")
    assert unified_diff(old, new, "a/f", "b/f") == (
        "--- a/f\n+++ b/f\n@@ -498,7 +498,7 @@\n line 497\n line 498\n line 499\n"
        "-line 500\n+line five hundred\n line 501\n line 502\n line 503\n"
    )


def test_a_last_line_without_newline_is_marked() -> None:
    assert unified_diff("a\nb", "a\nc", "a/f", "b/f") == (
        "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n"
        "\\ No newline at end of file\n"
    )


class Counting(list[str]):
    """A list that counts how often its lines are looked at."""

    reads = 0

    def __getitem__(self, index):  # type: ignore[no-untyped-def, override]
        Counting.reads += 1
        return super().__getitem__(index)


def test_work_stays_linear_where_difflib_is_quadratic() -> None:
    """Every other line of 20,000 changed, and 20,000 lines of six distinct values: difflib
    takes minutes on these. Lines looked at stay within a fixed multiple of the input."""
    lines = [f"line {n}\n" for n in range(20_000)]
    every_other = [line.upper() if n % 2 else line for n, line in enumerate(lines)]
    rng = random.Random(3)
    noise_a = [f"{rng.randint(0, 5)}\n" for _ in range(20_000)]
    noise_b = [f"{rng.randint(0, 5)}\n" for _ in range(20_000)]
    for a, b in ((lines, every_other), (noise_a, noise_b)):
        Counting.reads = 0
        codes = line_opcodes(Counting(a), Counting(b))
        assert Counting.reads < 64 * (len(a) + len(b)), Counting.reads
        rebuilt = [line for _tag, _i1, _i2, j1, j2 in codes for line in b[j1:j2]]
        assert rebuilt == b
        for tag, i1, i2, j1, j2 in codes:
            if tag == "equal":
                assert a[i1:i2] == b[j1:j2]


def test_a_patch_diff_from_its_own_chunks_matches_the_whole_file_diff(tmp_path: Path) -> None:
    lines = [f"value_{n} = {n % 7}" for n in range(3000)]
    (tmp_path / "f.py").write_text("\n".join(lines) + "\n")
    chunks = []
    for n in range(5, 3000, 97):
        chunks += ["@@", f" {lines[n - 1]}", f"-{lines[n]}", f"+{lines[n]}  # seen", "+# added"]
    patch = "*** Begin Patch\n*** Update File: f.py\n" + "\n".join(chunks) + "\n*** End Patch"
    plan = plan_patch(patch, tmp_path, DiskWorkspace())
    [operation] = plan.operations
    assert operation.edits is not None, "the chunks' ranges were recorded"
    from_chunks = operation.unified_diff()
    whole = unified_diff(operation.old_content or "", operation.new_content or "", "f.py", "f.py")
    assert from_chunks == whole
    assert apply_unified(operation.old_content or "", from_chunks) == operation.new_content
