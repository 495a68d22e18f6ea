"""Thread sections side by side with the real `codex app-server` 0.171: create, list (with the
built-in "Pinned" first, and in pages), rename, move threads in and out (with
`thread/section/changed`), delete, and the errors for an unknown section or thread. Ids are
compared by what they refer to, so the two servers' different uuids do not matter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conformance.servers import Side, run_on
from tests.conformance.steps import start_thread

_NO_THREAD = "00000000-0000-0000-0000-000000000000"


def _journey(side: Side, tmp_path: Path) -> list[Any]:
    with run_on(side, tmp_path, experimental_api=True) as run:
        client = run.client
        threads = [start_thread(run), start_thread(run)]
        sections: list[str] = []

        def named(value: Any) -> Any:
            if isinstance(value, dict):
                return {k: named(v) for k, v in value.items()}
            if isinstance(value, list):
                return [named(v) for v in value]
            if value in threads:
                return f"<thread {threads.index(value) + 1}>"
            if value in sections:
                return f"<section {sections.index(value) + 1}>"
            return value

        seen: list[Any] = []

        def call(method: str, params: dict[str, Any]) -> Any:
            answer = client.response(client.request(method, params))
            answer.pop("id", None)
            if "error" in answer:
                answer["error"].pop("message", None)
            seen.append((method, named(answer)))
            return answer.get("result")

        def placed(thread_id: str) -> None:
            """The section `thread/read` reports for `thread_id`, and whether it says since when."""
            thread = client.call("thread/read", {"threadId": thread_id})["thread"]
            entered = thread.get("sectionEnteredAt")
            seen.append(("read", named(thread.get("section")), isinstance(entered, int)))

        listed = client.call("threadSection/list", {})
        sections.extend(s["id"] for s in listed["data"])
        seen.append(("threadSection/list", named({"result": listed})))
        for name, appearance in (("Work", None), ("Home", {"color": "red", "icon": None})):
            params: dict[str, Any] = {"name": name}
            if appearance is not None:
                params["appearance"] = appearance
            sections.append(
                client.response(client.request("threadSection/create", params))["result"][
                    "section"
                ]["id"]
            )
        work = sections[1]
        call("threadSection/list", {})
        call("threadSection/list", {"limit": 1})
        call("threadSection/update", {"sectionId": work, "name": "Job"})
        call("threadSection/update", {"sectionId": "nope", "name": "Job"})
        call("thread/section/move", {"threadId": threads[0], "sectionId": work})
        call(
            "thread/section/move",
            {"threadId": threads[1], "sectionId": work, "beforeThreadId": threads[0]},
        )
        call("thread/section/move", {"threadId": _NO_THREAD, "sectionId": work})
        call("thread/section/move", {"threadId": threads[0], "sectionId": "nope"})
        placed(threads[1])
        call("thread/section/move", {"threadId": threads[0], "sectionId": None})
        placed(threads[0])
        call("threadSection/delete", {"sectionId": work})
        call("threadSection/delete", {"sectionId": work})
        call("threadSection/list", {})
        changed = [
            m["params"]
            for m in (entry.message for entry in client.seen())
            if m.get("method") == "thread/section/changed"
        ]
        seen.append(("changed", named(changed)))
        return seen


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_thread_sections_as_the_real_server_keeps_them(side: Side, tmp_path: Path) -> None:
    real = _journey("real", tmp_path / "real")
    assert real[0] == (
        "threadSection/list",
        {
            "result": {
                "data": [{"id": "<section 1>", "name": "Pinned", "appearance": None}],
                "nextCursor": None,
            }
        },
    )
    assert _journey(side, tmp_path / side) == real
