"""Render unified diffs of whole-file text, for approval prompts and the turn diff.

difflib finds the matching blocks; the text is rendered here so that a last line without a
newline gets the standard `\\ No newline at end of file` marker, which difflib omits.
"""

from __future__ import annotations

from difflib import SequenceMatcher

DEFAULT_CONTEXT = 3
NO_NEWLINE_MARKER = "\\ No newline at end of file\n"


def split_keepends(text: str) -> list[str]:
    # Only "\n" ends a line; str.splitlines would also split on form feeds and U+2028.
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


Opcode = tuple[str, int, int, int, int]


def grouped_opcodes(
    old_lines: list[str], new_lines: list[str], context: int = DEFAULT_CONTEXT
) -> list[list[Opcode]]:
    """difflib's opcodes grouped into hunks: the hunks of `unified_diff`, in order."""
    # autojunk would treat frequent lines (blank lines, closing braces) as noise in files over
    # 200 lines and produce needlessly large hunks.
    matcher = SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    return list(matcher.get_grouped_opcodes(context))


def hunk_header(group: list[Opcode]) -> str:
    """The `@@ -a,b +c,d @@` line of one group, without its newline."""
    first, last = group[0], group[-1]
    return f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@"


def _range(start: int, stop: int) -> str:
    length = stop - start
    if length == 1:
        return str(start + 1)
    # An empty range names the line before it, as diff(1) and git do.
    first = start + 1 if length else start
    return f"{first},{length}"


def _emit(prefix: str, line: str, out: list[str]) -> None:
    if line.endswith("\n"):
        out.append(prefix + line)
    else:
        out.append(prefix + line + "\n")
        out.append(NO_NEWLINE_MARKER)


def unified_diff(
    old: str, new: str, old_label: str, new_label: str, context: int = DEFAULT_CONTEXT
) -> str:
    """Return a unified diff from `old` to `new`, or "" when they are equal.

    Labels go on the `---`/`+++` lines verbatim; pass `/dev/null` for a side that is absent.
    """
    old_lines = split_keepends(old)
    new_lines = split_keepends(new)
    out: list[str] = []
    for group in grouped_opcodes(old_lines, new_lines, context):
        if not out:
            out.append(f"--- {old_label}\n")
            out.append(f"+++ {new_label}\n")
        out.append(hunk_header(group) + "\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for line in old_lines[i1:i2]:
                    _emit(" ", line, out)
                continue
            for line in old_lines[i1:i2]:
                _emit("-", line, out)
            for line in new_lines[j1:j2]:
                _emit("+", line, out)
    return "".join(out)
