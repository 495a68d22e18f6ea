"""The before and after text of a patch's file, as ACP `diff` content wants them.

The API describes an update as a unified diff; ACP clients show `oldText`/`newText`. The old
text is read when the change is announced (before it is applied), and the diff's hunks are
applied to it here. A diff that does not fit the text it was read against gives no new text:
the caller then shows the unified diff as it is.
"""

from __future__ import annotations

import re

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def apply_unified(old: str, diff: str) -> str | None:
    """`old` with the hunks of `diff` applied, or None when they do not match it."""
    source = old.splitlines(keepends=True)
    result: list[str] = []
    cursor = 0
    lines = diff.splitlines(keepends=True)
    index = 0
    seen_hunk = False
    while index < len(lines):
        header = _HUNK.match(lines[index])
        index += 1
        if header is None:
            continue
        seen_hunk = True
        start = max(int(header.group(1)) - 1, 0)
        if int(header.group(2) or "1") == 0:
            start = int(header.group(1))  # an insertion after line N
        if start < cursor or start > len(source):
            return None
        result.extend(source[cursor:start])
        cursor = start
        last = ""
        while index < len(lines) and not lines[index].startswith("@@"):
            line = lines[index]
            index += 1
            if line.startswith("\\"):
                # "\ No newline at end of file": the line before it ends the file bare.
                if last in (" ", "+") and result and result[-1].endswith("\n"):
                    result[-1] = result[-1][:-1]
                continue
            tag, body = line[:1], line[1:]
            last = tag
            if tag in (" ", "-"):
                if cursor >= len(source) or source[cursor].rstrip("\n") != body.rstrip("\n"):
                    return None
                if tag == " ":
                    result.append(source[cursor])
                cursor += 1
            elif tag == "+":
                result.append(body if body.endswith("\n") else body + "\n")
    if not seen_hunk:
        return None
    result.extend(source[cursor:])
    return "".join(result)
