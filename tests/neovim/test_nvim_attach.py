"""Journey: an image file and a web page attached to a chat message with `:CodexAttach`.

The image reaches the model as an image (the turn's `localImage` input), the page's text as
context read from the page a local web server serves; the next message carries neither.
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.support.nvim import run_suite
from tests.support.nvim_journeys import check, turn_texts, workspace
from tests.support.scripted_builders import text_response

# A one-pixel PNG (a valid one: the server decodes every image it sends).
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d4944415478da63fccfc0500f000485018084a98c210000000049454e44ae426082"
)
PAGE = "# Changelog\n\n## 2.0\n- The frobnicator now takes a timeout.\n"


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/markdown")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def page_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/docs/CHANGELOG.md"
    finally:
        server.shutdown()
        server.server_close()


def _images(body: dict[str, Any]) -> list[str]:
    return [
        part.get("image_url", "")
        for item in body["input"]
        if item.get("type") == "message" and item.get("role") == "user"
        for part in item.get("content", [])
        if part.get("type") == "input_image"
    ]


def test_an_image_and_a_web_page_reach_the_model(scripted_model, tmp_path, page_url):
    home, ws = workspace(tmp_path, scripted_model)
    (ws / "shot.png").write_bytes(PIXEL)
    scripted_model.enqueue(text_response("A pixel and a changelog.", response_id="r1"))
    scripted_model.enqueue(text_response("Nothing attached.", response_id="r2"))

    check(
        run_suite(
            "attach",
            tmp_path,
            codex_home=home,
            workspace=ws,
            env={"CODEX_TEST_PAGE_URL": page_url},
        )
    )

    first, second = scripted_model.requests[0].body, scripted_model.requests[1].body
    assert _images(first) == [f"data:image/png;base64,{base64.b64encode(PIXEL).decode()}"]
    told = "\n".join(turn_texts(first))
    assert "The frobnicator now takes a timeout." in told
    assert "127.0.0.1" in told  # the page is named by where it came from
    # The next message carries no new attachment: the same image, the same page, once each.
    assert _images(second) == _images(first)
    assert "\n".join(turn_texts(second)).count("The frobnicator now takes a timeout.") == 0
