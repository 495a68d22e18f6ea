"""`view_image` side by side with the real `codex app-server` 0.171: the tool's spec, the
`input_image` the next request carries, the refusals, and the `imageView` item a client sees."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.servers import Side, run_on
from tests.conformance.steps import run_turn, start_thread
from tests.support.scripted_builders import function_call_response, text_response

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
PATHS = ["dot.png", "missing.png", "sub", "notes.txt"]


def _journey(side: Side, tmp_path: Path) -> dict[str, Any]:
    with run_on(side, tmp_path) as run:
        (run.ws / "dot.png").write_bytes(PNG)
        (run.ws / "notes.txt").write_text("hello")
        (run.ws / "sub").mkdir()
        for n, path in enumerate(PATHS):
            run.model.enqueue(
                function_call_response(
                    "view_image", {"path": path}, call_id=f"v{n}", response_id=f"r{n}"
                )
            )
        run.model.enqueue(text_response("Seen.", response_id="r_end"))
        thread_id = start_thread(run)
        run_turn(run, thread_id, "Look at the pictures.")
        ws = str(run.ws)
        spec = next(t for t in run.model.requests[0].body["tools"] if t.get("name") == "view_image")
        outputs = {
            item["call_id"]: json.loads(json.dumps(item["output"]).replace(ws, "<ws>"))
            for item in run.model.requests[-1].body["input"]
            if item.get("type") == "function_call_output"
        }
        items = [
            (
                m["method"],
                m["params"]["item"]["id"],
                m["params"]["item"]["path"].replace(ws, "<ws>"),
            )
            for m in (entry.message for entry in run.client.seen())
            if m.get("method") in ("item/started", "item/completed")
            and m["params"]["item"]["type"] == "imageView"
        ]
        return {"spec": spec, "outputs": outputs, "items": items}


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_view_image_as_the_real_server_has_it(side: Side, tmp_path: Path) -> None:
    real = _journey("real", tmp_path / "real")
    assert real["items"] == [
        ("item/started", "v0", "<ws>/dot.png"),
        ("item/completed", "v0", "<ws>/dot.png"),
    ]
    assert _journey(side, tmp_path / side) == real
