"""`thread/list` by section over a store larger than one scan: a section's threads are all
found, ordered as placed, whatever their age."""

from __future__ import annotations

from pathlib import Path

import anyio

from codex_lsp.api.threads.store import list_page
from codex_lsp.protocol.threads.models import ThreadListParams
from codex_lsp.store import thread_sections
from codex_lsp.store.synthetic import populate_sessions
from codex_lsp.store.threads import SCAN_CAP


def test_a_section_lists_threads_older_than_one_scan_reaches(tmp_path: Path) -> None:
    ids = populate_sessions(tmp_path, SCAN_CAP + 20, per_day=500)
    newest, oldest = ids[0], ids[-1]
    section = thread_sections.create_section(tmp_path, "Old and new", None)
    for thread_id in (oldest, newest):
        thread_sections.move_thread(tmp_path, thread_id, section.id, None)

    async def listed(**params: object) -> list[str]:
        page = await list_page(tmp_path, ThreadListParams.model_validate(params), {})
        return [t.id for t in page.data]

    by_position = {"sectionId": section.id, "sortKey": "section_position"}
    assert anyio.run(lambda: listed(**by_position)) == [oldest, newest]
    assert anyio.run(lambda: listed(**by_position, sortDirection="desc")) == [newest, oldest]
