"""`view_image` through the engine: the next request carries the image the model asked for,
and what a sandboxed command could not read (the home the sandbox hides, through any link),
what is not a regular file, too large or not an image is refused with Codex's words."""

from __future__ import annotations

import base64
import json
import os

import pytest

from codex_lsp.store.bounded_read import IMAGE_MAX_BYTES
from tests.support.engine import make_git_repo, running_engine, write_config
from tests.support.scripted_builders import function_call_response, text_response

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def _outputs(scripted_model) -> dict[str, object]:
    found: dict[str, object] = {}
    for request in scripted_model.requests:
        for item in request.body["input"]:
            if item.get("type") == "function_call_output":
                found[item["call_id"]] = item["output"]
    return found


async def _look(scripted_model, tmp_path, paths: list[str], prepare=None):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    (ws / "dot.png").write_bytes(PNG)
    if prepare is not None:
        prepare(home, ws)
    for n, path in enumerate(paths):
        scripted_model.enqueue(
            function_call_response(
                "view_image", {"path": path}, call_id=f"v{n}", response_id=f"r{n}"
            )
        )
    scripted_model.enqueue(text_response("Seen.", response_id="r_end"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("Look at the pictures.")
    return ws, home, _outputs(scripted_model), engine.of_type("view_image_tool_call", events)


async def test_the_next_request_carries_the_image(scripted_model, tmp_path):
    ws, _, outputs, shown = await _look(scripted_model, tmp_path, ["dot.png"])
    url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    # gpt-5.4 (the engine tests' model) takes images at `high` detail, as the real codex sends.
    assert outputs["v0"] == [{"type": "input_image", "image_url": url, "detail": "high"}]
    assert [(e.call_id, e.path) for e in shown] == [("v0", str(ws / "dot.png"))]
    tools = {t.get("name"): t for t in scripted_model.requests[0].body["tools"]}
    assert tools["view_image"]["parameters"]["required"] == ["path"]


async def test_what_is_not_an_image_file_is_refused_in_codex_words(scripted_model, tmp_path):
    def prepare(home, ws):
        (ws / "sub").mkdir()
        (ws / "notes.txt").write_text("hello")
        os.mkfifo(ws / "pipe.png")

    ws, _, outputs, shown = await _look(
        scripted_model, tmp_path, ["missing.png", "sub", "notes.txt", "pipe.png"], prepare
    )
    assert outputs["v0"] == (
        f"unable to locate image at `{ws / 'missing.png'}`: No such file or directory (os error 2)"
    )
    assert outputs["v1"] == f"image path `{ws / 'sub'}` is not a file"
    assert outputs["v2"] == "unable to process image: invalid or unsupported image data"
    assert outputs["v3"] == f"image path `{ws / 'pipe.png'}` is not a file"
    assert shown == []


async def test_an_image_over_the_limit_is_refused_unread(scripted_model, tmp_path):
    def prepare(home, ws):
        with open(ws / "huge.png", "wb") as f:
            f.write(PNG)
            f.truncate(IMAGE_MAX_BYTES + 1)  # sparse: costs nothing on disk

    ws, _, outputs, _ = await _look(scripted_model, tmp_path, ["huge.png"], prepare)
    assert outputs["v0"].startswith(f"image at `{ws / 'huge.png'}` is too large")


@pytest.mark.parametrize("route", ["direct", "symlink", "linked-dir"])
async def test_the_hidden_home_stays_hidden_whatever_the_path(scripted_model, tmp_path, route):
    def prepare(home, ws):
        (home / "secret.png").write_bytes(PNG)
        (ws / "link.png").symlink_to(home / "secret.png")
        (ws / "homelink").symlink_to(home)

    path = {
        "direct": str(tmp_path / "home" / "secret.png"),
        "symlink": "link.png",
        "linked-dir": "homelink/secret.png",
    }[route]
    _, _, outputs, shown = await _look(scripted_model, tmp_path, [path], prepare)
    assert isinstance(outputs["v0"], str) and "is not readable" in outputs["v0"]
    assert base64.b64encode(PNG).decode() not in json.dumps(scripted_model.requests[-1].body)
    assert shown == []


async def test_tools_view_image_false_offers_no_tool(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url, extra="[tools]\nview_image = false\n")
    scripted_model.enqueue(text_response("Hi.", response_id="r1"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        await engine.run_turn("Hello")
    names = {tool.get("name") for tool in scripted_model.requests[0].body["tools"]}
    assert "view_image" not in names
