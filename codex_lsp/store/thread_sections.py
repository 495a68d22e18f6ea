"""Thread sections (user-named groups of threads, "Pinned" built in) in a `$CODEX_HOME` sidecar.

`$CODEX_HOME/thread_sections.jsonl` is append-only; a line is one of
`{"section": id, "name", "appearance"}` (created or renamed), `{"deleted": id}`, or
`{"thread": id, "into": section id or null, "before": thread id or null, "at": unix seconds}`
(a move). Replaying the lines in order gives the sections, in creation order, and each
section's threads in their order. Bad lines are skipped.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codex_lsp.store.home import new_thread_id
from codex_lsp.store.sidecar import append_line

SECTIONS_FILENAME = "thread_sections.jsonl"
PINNED_ID = "01984de2-8f74-7c91-a3b2-5c5e937cf318"
PINNED_NAME = "Pinned"

_lock = threading.Lock()


@dataclass(slots=True)
class Section:
    id: str
    name: str
    appearance: dict[str, Any] | None = None


@dataclass(slots=True)
class Sections:
    """Every section in order, and each section's threads in order (with when they entered)."""

    sections: dict[str, Section] = field(default_factory=dict)
    members: dict[str, list[str]] = field(default_factory=dict)
    entered_at: dict[str, int] = field(default_factory=dict)

    def section_of(self, thread_id: str) -> Section | None:
        for section_id, threads in self.members.items():
            if thread_id in threads:
                return self.sections.get(section_id)
        return None


class SectionNotFound(Exception):
    pass


def _path(home: Path) -> Path:
    return home / SECTIONS_FILENAME


def _apply(state: Sections, entry: dict[str, Any]) -> None:
    if isinstance(entry.get("section"), str) and isinstance(entry.get("name"), str):
        appearance = entry.get("appearance")
        state.sections[entry["section"]] = Section(
            entry["section"], entry["name"], appearance if isinstance(appearance, dict) else None
        )
    elif isinstance(entry.get("deleted"), str):
        state.sections.pop(entry["deleted"], None)
        state.members.pop(entry["deleted"], None)
    elif isinstance(entry.get("thread"), str):
        thread_id = entry["thread"]
        for threads in state.members.values():
            if thread_id in threads:
                threads.remove(thread_id)
        state.entered_at.pop(thread_id, None)
        into = entry.get("into")
        if isinstance(into, str) and into in state.sections:
            threads = state.members.setdefault(into, [])
            before = entry.get("before")
            at = threads.index(before) if before in threads else len(threads)
            threads.insert(at, thread_id)
            stamp = entry.get("at")
            state.entered_at[thread_id] = stamp if isinstance(stamp, int) else 0


def load_sections(home: Path) -> Sections:
    state = Sections(sections={PINNED_ID: Section(PINNED_ID, PINNED_NAME)})
    try:
        text = _path(home).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return state
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            _apply(state, entry)
    return state


def create_section(home: Path, name: str, appearance: dict[str, Any] | None) -> Section:
    section = Section(new_thread_id(), name, appearance)
    with _lock:
        append_line(_path(home), {"section": section.id, "name": name, "appearance": appearance})
    return section


def update_section(
    home: Path, section_id: str, name: str, appearance: dict[str, Any] | None, keep: bool
) -> Section:
    """Rename `section_id`; its appearance is replaced unless `keep`."""
    with _lock:
        current = load_sections(home).sections.get(section_id)
        if current is None:
            raise SectionNotFound(section_id)
        section = Section(section_id, name, current.appearance if keep else appearance)
        append_line(
            _path(home), {"section": section_id, "name": name, "appearance": section.appearance}
        )
    return section


def delete_section(home: Path, section_id: str) -> None:
    with _lock:
        if section_id not in load_sections(home).sections:
            raise SectionNotFound(section_id)
        append_line(_path(home), {"deleted": section_id})


def move_thread(home: Path, thread_id: str, section_id: str | None, before: str | None) -> None:
    with _lock:
        if section_id is not None and section_id not in load_sections(home).sections:
            raise SectionNotFound(section_id)
        entry = {"thread": thread_id, "into": section_id, "before": before, "at": int(time.time())}
        append_line(_path(home), entry)
