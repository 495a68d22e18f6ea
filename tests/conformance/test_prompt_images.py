"""Images side by side with the real `codex app-server` 0.171: a large image the model looks
at with `view_image`, or the user attaches, reaches the model scaled to the same size and
format; a small one unchanged; attachments are framed and numbered alike. The bytes of a
re-encoded image differ (another encoder); its size, format and pixel mode do not."""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.conformance.servers import Side, run_on
from tests.conformance.steps import start_thread, text_input
from tests.support.scripted_builders import function_call_response, text_response


def _encoded(size: tuple[int, int], fmt: str) -> bytes:
    image = Image.new("RGB", size, (200, 30, 30))
    for x in range(0, size[0], 97):
        image.putpixel((x, x % size[1]), (x % 256, 90, 10))
    out = io.BytesIO()
    image.save(out, fmt)
    return out.getvalue()


FILES = {
    "big.png": _encoded((4000, 3000), "PNG"),
    "small.png": _encoded((64, 32), "PNG"),
    "big.jpg": _encoded((2600, 1000), "JPEG"),
    "small.gif": _encoded((40, 30), "GIF"),
}


def _seen(part: dict[str, Any], ws: str) -> Any:
    if part.get("type") != "input_image":
        return part.get("text", "").replace(ws, "<ws>")
    head, payload = part["image_url"].split(",", 1)
    data = base64.b64decode(payload)
    image = Image.open(io.BytesIO(data))
    kept = data == FILES.get("small.png")
    return (head, image.format, image.size, image.mode, part.get("detail"), kept)


def _journey(side: Side, tmp_path: Path, model: str) -> dict[str, Any]:
    with run_on(side, tmp_path) as run:
        for name, data in FILES.items():
            (run.ws / name).write_bytes(data)
        for n, name in enumerate(FILES):
            run.model.enqueue(
                function_call_response(
                    "view_image", {"path": name}, call_id=f"v{n}", response_id=f"r{n}"
                )
            )
        run.model.enqueue(text_response("Seen.", response_id="r_end"))
        thread_id = start_thread(run, model=model)
        inputs = [text_input("Look at these.")]
        inputs += [{"type": "localImage", "path": name} for name in [*FILES, "missing.png"]]
        run.client.call("turn/start", {"threadId": thread_id, "input": inputs})
        run.client.wait_method("turn/completed", threadId=thread_id)
        ws = str(run.ws)
        body = run.model.requests[-1].body
        user = [i for i in body["input"] if i.get("type") == "message" and i["role"] == "user"]
        outputs = {
            item["call_id"]: [_seen(part, ws) for part in item["output"]]
            for item in body["input"]
            if item.get("type") == "function_call_output"
        }
        return {"user": [_seen(part, ws) for part in user[-1]["content"]], "tools": outputs}


@pytest.mark.parametrize("model", ["gpt-5.5", "gpt-5.2"])
def test_images_reach_the_model_as_the_real_server_sends_them(model: str, tmp_path: Path) -> None:
    real = _journey("real", tmp_path / "real", model)
    detail = "original" if model == "gpt-5.5" else "high"
    big = (3669, 2752) if model == "gpt-5.5" else (1824, 1368)
    assert real["tools"]["v0"] == [("data:image/png;base64", "PNG", big, "RGBA", detail, False)]
    assert real["tools"]["v1"] == [("data:image/png;base64", "PNG", (64, 32), "RGB", detail, True)]
    assert _journey("ours", tmp_path / "ours", model) == real


URLS = [
    "https://example.com/cat.png",
    "HTTP://example.com/cat.png",
    "data:text/plain;base64,aGVsbG8=",
    "data:image/png;base64,aGVsbG8=",
    "data:image/png,abc",
    "file:///tmp/cat.png",
]


def _urls(side: Side, tmp_path: Path) -> list[Any]:
    """For each `image` URL: turn/start's error, or the image part the model was sent."""
    seen: list[Any] = []
    with run_on(side, tmp_path) as run:
        thread_id = start_thread(run, model="gpt-5.5")
        for url in URLS:
            run.model.enqueue(text_response("ok", response_id="r"))
            params = {
                "threadId": thread_id,
                "input": [text_input("x"), {"type": "image", "url": url}],
            }
            answer = run.client.response(run.client.request("turn/start", params))
            if "error" in answer:
                seen.append(answer["error"])
                continue
            run.client.wait_method("turn/completed", threadId=thread_id)
            body = run.model.requests[-1].body
            user = [i for i in body["input"] if i.get("type") == "message" and i["role"] == "user"]
            seen.append(user[-1]["content"][1:])
    return seen


def test_image_urls_are_taken_or_refused_as_the_real_server_does(tmp_path: Path) -> None:
    real = _urls("real", tmp_path / "real")
    refused = {
        "code": -32600,
        "message": "remote image URLs are not supported; use an inline data URL instead",
    }
    assert real[:2] == [refused, refused]
    assert _urls("ours", tmp_path / "ours") == real
