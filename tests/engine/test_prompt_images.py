"""Images reach the model scaled to the model's budget, as Codex sends them: the file
`view_image` reads, a file the user attaches (`localImage`) and a pasted data URL. What the
scripted model received is decoded to check the size and format it was given."""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from codex_lsp.engine.prompt_images import patch_count, prepare_image
from codex_lsp.protocol.core.inputs import ImageInput, LocalImageInput, TextInput
from codex_lsp.protocol.core.ops import UserInputOp
from tests.support.engine import make_git_repo, running_engine, write_config
from tests.support.scripted_builders import function_call_response, text_response

# Model -> (detail sent, size a 4000x3000 image arrives at), as the real codex 0.171 sends them.
BUDGETS = {
    "gpt-5.5": ("original", (3669, 2752)),
    "gpt-5.2": ("high", (1824, 1368)),
    "codex-auto-review": (None, (3669, 2752)),
    "my-local-model": ("high", (1824, 1368)),
}


def encoded(size: tuple[int, int], fmt: str) -> bytes:
    image = Image.new("RGB", size, (200, 30, 30))
    for x in range(0, size[0], 97):  # some detail, so the encoders have work to do
        image.putpixel((x, x % size[1]), (x % 256, 90, 10))
    out = io.BytesIO()
    image.save(out, fmt)
    return out.getvalue()


BIG, SMALL = encoded((4000, 3000), "PNG"), encoded((64, 32), "PNG")


def received(part: dict[str, Any]) -> tuple[str, str, tuple[int, int], str | None]:
    """(mime, decoded format, size, detail) of an `input_image` the model received."""
    head, payload = part["image_url"].split(",", 1)
    image = Image.open(io.BytesIO(base64.b64decode(payload)))
    return (
        head.removeprefix("data:").removesuffix(";base64"),
        image.format,
        image.size,
        part.get("detail"),
    )


def raw(part: dict[str, Any]) -> bytes:
    return base64.b64decode(part["image_url"].split(",", 1)[1])


def _user_parts(body: dict[str, Any]) -> list[dict[str, Any]]:
    messages = [i for i in body["input"] if i.get("type") == "message" and i["role"] == "user"]
    return messages[-1]["content"]


async def _turn(scripted_model, tmp_path: Path, model: str, items, files: dict[str, bytes]):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    for name, data in files.items():
        (ws / name).write_bytes(data)
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws), model=model)
        await engine.codex.submit(UserInputOp(items=items(ws)))
        await engine.until(("task_complete", "error"))
    return ws


@pytest.mark.parametrize("model", list(BUDGETS))
async def test_view_image_sends_a_large_image_scaled_and_a_small_one_unchanged(
    scripted_model, tmp_path, model
):
    for n, name in enumerate(["big.png", "small.png"]):
        scripted_model.enqueue(
            function_call_response(
                "view_image", {"path": name}, call_id=f"v{n}", response_id=f"r{n}"
            )
        )
    scripted_model.enqueue(text_response("Seen.", response_id="r_end"))
    await _turn(
        scripted_model,
        tmp_path,
        model,
        lambda ws: [TextInput(text="Look.")],
        {"big.png": BIG, "small.png": SMALL},
    )
    outputs = {
        item["call_id"]: item["output"][0]
        for item in scripted_model.requests[-1].body["input"]
        if item.get("type") == "function_call_output"
    }
    detail, size = BUDGETS[model]
    assert received(outputs["v0"]) == ("image/png", "PNG", size, detail)
    assert received(outputs["v1"]) == ("image/png", "PNG", (64, 32), detail)
    assert raw(outputs["v1"]) == SMALL


@pytest.mark.parametrize("model", ["gpt-5.5", "gpt-5.2"])
async def test_attached_images_are_scaled_framed_and_numbered(scripted_model, tmp_path, model):
    scripted_model.enqueue(text_response("Seen.", response_id="r1"))
    pasted = "data:image/png;base64," + base64.b64encode(BIG).decode()
    ws = await _turn(
        scripted_model,
        tmp_path,
        model,
        lambda ws: [
            TextInput(text="Look."),
            ImageInput(image_url=pasted),
            LocalImageInput(path=str(ws / "big.png")),
            LocalImageInput(path="small.png"),
            LocalImageInput(path="missing.png"),
            LocalImageInput(path="notes.png"),
        ],
        {"big.png": BIG, "small.png": SMALL, "notes.png": b"not an image"},
    )
    detail, size = BUDGETS[model]
    parts = _user_parts(scripted_model.requests[0].body)
    shown = [part["text"] if part["type"] == "input_text" else received(part) for part in parts]
    assert shown == [
        "Look.",
        ("image/png", "PNG", size, detail),
        f'<image name=[Image #2] path="{ws / "big.png"}">',
        ("image/png", "PNG", size, detail),
        "</image>",
        '<image name=[Image #3] path="small.png">',
        ("image/png", "PNG", (64, 32), detail),
        "</image>",
        "Codex could not read the local image at `missing.png`: "
        "No such file or directory (os error 2)",
        '<image name=[Image #5] path="notes.png">',
        "image content omitted because it could not be processed",
        "</image>",
    ]
    assert raw(parts[6]) == SMALL


async def test_formats_are_kept_or_turned_into_png_as_codex_does(scripted_model, tmp_path):
    files = {
        "big.jpg": encoded((4000, 3000), "JPEG"),
        "big.webp": encoded((3000, 2500), "WEBP"),
        "big.gif": encoded((3000, 2500), "GIF"),
        "small.gif": encoded((40, 30), "GIF"),
        "small.webp": encoded((40, 30), "WEBP"),
    }
    scripted_model.enqueue(text_response("Seen.", response_id="r1"))
    await _turn(
        scripted_model,
        tmp_path,
        "gpt-5.2",
        lambda ws: [LocalImageInput(path=name) for name in files],
        files,
    )
    images = [p for p in _user_parts(scripted_model.requests[0].body) if p["type"] == "input_image"]
    assert [received(p) for p in images] == [
        ("image/jpeg", "JPEG", (1824, 1368), "high"),
        ("image/webp", "WEBP", (1727, 1440), "high"),
        ("image/png", "PNG", (1727, 1440), "high"),
        ("image/png", "PNG", (40, 30), "high"),
        ("image/webp", "WEBP", (40, 30), "high"),
    ]
    assert raw(images[4]) == files["small.webp"]


@pytest.mark.parametrize(
    ("size", "detail"),
    [
        ((6401, 100), "original"),
        ((3201, 3201), "original"),
        ((2049, 10), "high"),
        ((1, 9000), "high"),
    ],
)
def test_a_scaled_image_stays_within_its_budget(size, detail):
    side, patches = {"high": (2048, 2500), "original": (6000, 10_000)}[detail]
    image = prepare_image(encoded(size, "PNG"), detail)
    assert max(image.width, image.height) <= side
    assert patch_count(image.width, image.height) <= patches
    assert Image.open(io.BytesIO(image.data)).size == (image.width, image.height)


def test_the_same_image_is_decoded_once():
    data = encoded((3000, 2000), "PNG")
    assert prepare_image(data, "high") is prepare_image(data, "high")
    assert prepare_image(data, "original") is not prepare_image(data, "high")
