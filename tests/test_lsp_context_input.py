"""`codex.message`: a chat message with the editor's context attached as data, which the
server reads (unsaved buffers included) and words for the model.

Drives the real server process through pytest-lsp, against the scripted model.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from tests.support.engine import make_git_repo, write_config
from tests.support.lsp_client import EditorSession
from tests.support.scripted_builders import text_response


@pytest.fixture
def home(tmp_path: Path, scripted_model) -> Path:
    home = tmp_path / "home"
    write_config(home, scripted_model.base_url)
    return home


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

    parts = _user_parts(scripted_model.requests[-1].body)
    message, buffer, selection, file, diagnostics = parts[-5:]
    assert message == "What is wrong with #buffer and @lib/util.py?"  # the user's words, intact
    assert "app.py" in buffer and 'print("unsaved")' in buffer and "on disk" not in buffer
    assert "lines 2-2 of app.py" in selection and 'print("unsaved")' in selection
    assert "import os" not in selection
    assert "lib/util.py" in file and "return 7" in file
    assert "line 3 (error, pyflakes): undefined name 'undefined'" in diagnostics
    assert "x = undefined" in diagnostics


async def test_an_unreadable_item_is_refused_and_nothing_is_sent(home, ws, scripted_model):
    async with EditorSession(home, ws) as client:
        thread_id = await client.start_thread(ws)
        for item, says in [
            ({"type": "file", "path": "missing.py"}, "cannot read"),
            ({"type": "buffer"}, "needs a 'uri'"),
            ({"type": "clipboard", "uri": "file:///x"}, "buffer, selection, file or diagnostics"),
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
