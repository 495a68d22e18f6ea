"""`codex.message`: a chat message with the editor's context attached as data, which the
server reads (unsaved buffers included) and words for the model.

Drives the real server process through pytest-lsp, against the scripted model.
"""

from __future__ import annotations

import asyncio
import base64
import os
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from tests.lsp.test_lsp_review import developer_text
from tests.support.engine import make_git_repo
from tests.support.lsp_client import EditorSession
from tests.support.scripted_builders import text_response


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_git_repo(
        tmp_path / "ws",
        {"app.py": 'print("on disk")\n', "lib/util.py": "def helper():\n    return 7\n"},
    )


def _user_parts(body: dict) -> list[str]:
    return [
        part.get("text", "")
        for item in body["input"]
        if item.get("type") == "message" and item.get("role") == "user"
        for part in item.get("content", [])
    ]


async def test_buffer_selection_file_and_diagnostics_reach_the_model(home, ws, scripted_model):
    scripted_model.enqueue(text_response("Looked at all of it."))
    async with EditorSession(home, ws) as client:
        doc = client.open(ws / "app.py", 'import os\nprint("unsaved")\nx = undefined\n', version=3)
        thread_id = await client.start_thread(ws)
        result = await client.command(
            "codex.message",
            {
                "threadId": thread_id,
                "text": "What is wrong with #buffer and @lib/util.py?",
                "context": [
                    {"type": "buffer", "uri": doc},
                    {
                        "type": "selection",
                        "uri": doc,
                        "range": {
                            "start": {"line": 1, "character": 0},
                            "end": {"line": 2, "character": 0},
                        },
                    },
                    {"type": "file", "path": "lib/util.py"},
                    {
                        "type": "diagnostics",
                        "uri": doc,
                        "diagnostics": [
                            {
                                "range": {
                                    "start": {"line": 2, "character": 4},
                                    "end": {"line": 2, "character": 13},
                                },
                                "message": "undefined name 'undefined'",
                                "severity": 1,
                                "source": "pyflakes",
                            }
                        ],
                    },
                ],
            },
        )
        assert result["threadId"] == thread_id
        completed = await client.turn_completed(thread_id, result["turn"]["id"])
        assert completed["turn"]["status"] == "completed"

    request = scripted_model.requests[-1]
    # The user's words, intact, and a label per item; the context itself follows as the
    # engine's instructions.
    assert _user_parts(request.body)[-5:] == [
        "What is wrong with #buffer and @lib/util.py?",
        "Context: app.py",
        "Context: app.py, line 2",
        "Context: lib/util.py",
        "Context: problems in app.py",
    ]
    told = developer_text(request)
    buffer = told[told.index("`app.py`:") :]
    assert 'print("unsaved")' in buffer.split("```", 2)[1] and "on disk" not in told
    assert '`app.py`, line 2:\n```py\nprint("unsaved")\n```' in told
    assert "`lib/util.py`:\n```py\ndef helper():\n    return 7\n```" in told
    assert "- app.py:3 error: undefined name 'undefined' (pyflakes)\n    x = undefined" in told


# The smallest valid PNG: one transparent pixel.
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d4944415478da63fccfc0500f000485018084a98c210000000049454e44ae426082"
)


async def test_an_attached_image_reaches_the_model_as_an_image(home, ws, scripted_model):
    (ws / "shot.png").write_bytes(PIXEL)
    scripted_model.enqueue(text_response("A single pixel."))
    async with EditorSession(home, ws) as client:
        thread_id = await client.start_thread(ws)
        result = await client.command(
            "codex.message",
            {
                "threadId": thread_id,
                "text": "What is in this picture?",
                "context": [{"type": "image", "path": "shot.png"}],
            },
        )
        completed = await client.turn_completed(thread_id, result["turn"]["id"])
        assert completed["turn"]["status"] == "completed"

    body = scripted_model.requests[-1].body
    images = [
        part.get("image_url", "")
        for item in body["input"]
        if item.get("type") == "message" and item.get("role") == "user"
        for part in item.get("content", [])
        if part.get("type") == "input_image"
    ]
    assert images == [f"data:image/png;base64,{base64.b64encode(PIXEL).decode()}"]
    assert "What is in this picture?" in _user_parts(body)


async def test_an_unreadable_item_is_refused_and_nothing_is_sent(home, ws, scripted_model):
    async with EditorSession(home, ws) as client:
        thread_id = await client.start_thread(ws)
        for item, says in [
            ({"type": "file", "path": "missing.py"}, "cannot read"),
            ({"type": "buffer"}, "needs a 'uri'"),
            ({"type": "image", "path": "missing.png"}, "missing.png is not a file"),
            ({"type": "clipboard", "uri": "file:///x"}, "file, diagnostics or image"),
        ]:
            with pytest.raises(JsonRpcException) as err:
                await client.command(
                    "codex.message", {"threadId": thread_id, "text": "hi", "context": [item]}
                )
            assert says in str(err.value)
        # The server is still there and the thread takes a plain message.
        scripted_model.enqueue(text_response("Hello."))
        result = await client.command("codex.message", {"threadId": thread_id, "text": "hi"})
        done = await client.turn_completed(thread_id, result["turn"]["id"])
        assert done["turn"]["status"] == "completed"
    assert len(scripted_model.requests) == 1


async def test_planted_files_as_context_are_refused_with_the_reason(home, ws, scripted_model):
    """A FIFO named like a source file and a sparse 1.5 GB file, as text or as an image:
    refused at once, unread."""
    os.mkfifo(ws / "main.py")
    huge = 1536 * 1024 * 1024
    (ws / "big.py").write_bytes(b"x = 1\n")
    os.truncate(ws / "big.py", huge)
    async with EditorSession(home, ws) as client:
        thread_id = await client.start_thread(ws)
        for item, says in [
            ({"type": "file", "path": "main.py"}, "not a regular file: a FIFO"),
            ({"type": "buffer", "uri": (ws / "main.py").as_uri()}, "not a regular file: a FIFO"),
            ({"type": "file", "path": "big.py"}, f"too large ({huge} bytes, limit 16777216)"),
            ({"type": "image", "path": "main.py"}, "main.py is not a file"),
            ({"type": "image", "path": "big.py"}, f"too large ({huge} bytes, limit 20971520)"),
        ]:
            with pytest.raises(JsonRpcException) as err:
                await asyncio.wait_for(
                    client.command(
                        "codex.message", {"threadId": thread_id, "text": "hi", "context": [item]}
                    ),
                    30,
                )
            assert says in str(err.value)
    assert scripted_model.requests == []
