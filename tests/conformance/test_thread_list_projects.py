"""`thread/list`'s `projectId` filter side by side with the real `codex app-server` 0.171, over a
home with no project: `null` lists the threads in no project (all of them), and a project id,
empty or unknown, is refused with the reference's invalid-params error, alone and along with
other filters. (The reference files threads in projects with `project/import` and `thread/start`'s
`projectId`; codex-lsp keeps no projects, so its threads are in none.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conformance.servers import Side, run_on
from tests.conformance.steps import run_turn, start_thread
from tests.support.scripted_builders import text_response


def _listings(side: Side, tmp_path: Path) -> dict[str, Any]:
    with run_on(side, tmp_path, experimental_api=True) as run:
        ids = []
        for n in range(2):
            run.model.enqueue(text_response(f"answer {n}", response_id=f"resp_{n}"))
            thread_id = start_thread(run)
            run_turn(run, thread_id, f"question {n}")
            ids.append(thread_id)
        names = {thread_id: f"T{n}" for n, thread_id in enumerate(ids)}

        def listed(**params: Any) -> Any:
            answer = run.client.response(run.client.request("thread/list", params))
            if "error" in answer:
                return ("error", answer["error"]["code"], answer["error"]["message"])
            data = answer["result"]["data"]
            return [(names.get(t["id"], "other"), t["projectId"]) for t in data]

        unknown = "00000000-0000-0000-0000-000000000000"
        return {
            "all": listed(),
            "in no project": listed(projectId=None),
            "in no project, oldest first": listed(projectId=None, sortDirection="asc"),
            "in no project nor section": listed(projectId=None, sectionId=None),
            "in no project, one": listed(projectId=None, includedThreadIds=[ids[0]]),
            "unknown project": listed(projectId=unknown),
            "unknown project, by update": listed(projectId=unknown, sortKey="updated_at"),
            "empty project id": listed(projectId=""),
        }


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_thread_list_by_project_as_the_real_server(side: Side, tmp_path: Path) -> None:
    real = _listings("real", tmp_path / "real")
    assert real["in no project"] == [("T1", None), ("T0", None)]
    assert real["unknown project"] == (
        "error",
        -32602,
        "project not found: 00000000-0000-0000-0000-000000000000",
    )
    assert real["empty project id"] == ("error", -32602, "projectId must not be empty")
    assert _listings(side, tmp_path / side) == real
