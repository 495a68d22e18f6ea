"""`codex-lsp serve` holding a conversation: streamed answers, progress, commands, restarts.

Every test drives the real server process through pytest-lsp, against the scripted model.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.lsp.test_lsp_review import developer_text, shown_user_messages
from tests.support.engine import write_config
from tests.support.lsp_client import EditorSession, uri
from tests.support.scripted_builders import function_call_response, text_response


def _user_texts(body: dict) -> list[str]:
    texts = []
    for item in body["input"]:
        if item.get("type") == "message" and item.get("role") == "user":
            texts += [part.get("text", "") for part in item.get("content", [])]
    return texts


def _assistant_texts(body: dict) -> list[str]:
    texts = []
    for item in body["input"]:
        if item.get("type") == "message" and item.get("role") == "assistant":
            texts += [part.get("text", "") for part in item.get("content", [])]
    return texts


async def test_streamed_answer_arrives_as_codex_notifications(home, ws, scripted_model):
    scripted_model.enqueue(text_response("Hello from the scripted model."))
    async with EditorSession(home, ws) as client:
        thread_id = await client.start_thread(ws)
        started = await client.wait_for("thread/started")
        assert started["thread"]["id"] == thread_id

        turn_id = await client.start_turn(thread_id, "say hello")
        completed = await client.turn_completed(thread_id, turn_id)

        assert completed["turn"]["status"] == "completed"
        deltas = [
            p["delta"]
            for p in client.notifications("item/agentMessage/delta")
            if p["threadId"] == thread_id
        ]
        assert len(deltas) > 1, "the answer should stream in pieces"
        assert "".join(deltas) == "Hello from the scripted model."
        names = [name for name, _ in client.protocol.codex_notifications]
        assert names.index("turn/started") < names.index("item/agentMessage/delta")
        assert names.index("item/agentMessage/delta") < names.index("turn/completed")
        finished = [
            p["item"]
            for p in client.notifications("item/completed")
            if p["item"]["type"] == "agentMessage"
        ]
        assert finished[-1]["text"] == "Hello from the scripted model."


async def test_a_turn_is_a_work_done_progress(home, ws, scripted_model):
    scripted_model.enqueue(text_response("done"))
    async with EditorSession(home, ws) as client:
        thread_id = await client.start_thread(ws)
        turn_id = await client.start_turn(thread_id, "work")
        await client.turn_completed(thread_id, turn_id)

        def ended() -> list:
            return [
                reports
                for reports in client.progress_reports.values()
                if reports and isinstance(reports[-1], types.WorkDoneProgressEnd)
            ]

        reports = (await client.wait_until(ended))[0]
        begin = reports[0]
        assert isinstance(begin, types.WorkDoneProgressBegin)
        assert begin.title == "Codex" and begin.cancellable is True
        assert reports[-1].message == "Done"


async def test_interrupt_through_progress_cancel(tmp_path, ws, scripted_model):
    home = tmp_path / "home"
    write_config(
        home, scripted_model.base_url, approval_policy="never", sandbox_mode="danger-full-access"
    )
    scripted_model.enqueue(
        function_call_response(
            "exec_command",
            {"cmd": "sleep 60", "workdir": str(ws), "timeout_ms": 120_000},
            call_id="call_sleep",
        )
    )
    scripted_model.enqueue(text_response("never needed"))
    async with EditorSession(home, ws) as client:
        thread_id = await client.start_thread(ws)
        turn_id = await client.start_turn(thread_id, "run something long")
        await client.wait_for("item/started", lambda p: p["item"]["type"] == "commandExecution")

        def running_token() -> object:
            for token, reports in client.progress_reports.items():
                if any(
                    isinstance(r, types.WorkDoneProgressReport) and "sleep 60" in (r.message or "")
                    for r in reports
                ):
                    return token
            return None

        token = await client.wait_until(running_token)
        client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))

        completed = await client.turn_completed(thread_id, turn_id)
        assert completed["turn"]["status"] == "interrupted"
        await client.wait_until(
            lambda: isinstance(client.progress_reports[token][-1], types.WorkDoneProgressEnd)
        )
        assert client.progress_reports[token][-1].message == "Interrupted"


async def test_resume_after_a_server_restart_continues_with_history(home, ws, scripted_model):
    scripted_model.enqueue(text_response("The capital is Paris.", response_id="resp_1"))
    scripted_model.enqueue(text_response("About 2 million people.", response_id="resp_2"))

    async with EditorSession(home, ws) as client:
        thread_id = await client.start_thread(ws)
        first = await client.run_turn(thread_id, "What is the capital of France?")
        assert first["turn"]["status"] == "completed"

    async with EditorSession(home, ws) as client:
        resumed = await client.codex("thread/resume", {"threadId": thread_id})
        assert resumed["thread"]["id"] == thread_id
        assert len(resumed["thread"]["turns"]) == 1
        second = await client.run_turn(thread_id, "And its population?")
        assert second["turn"]["status"] == "completed"

    body = scripted_model.requests[-1].body
    assert "What is the capital of France?" in " ".join(_user_texts(body))
    assert "The capital is Paris." in " ".join(_assistant_texts(body))
    assert "And its population?" in _user_texts(body)[-1]


async def test_text_beyond_ascii_arrives_intact_in_deltas_and_answers(home, ws, scripted_model):
    # Frames are counted in bytes: text of several bytes per character must not cut a message
    # short; the resumed thread (one large answer) carries the same text back.
    answer = "Grüße aus Köln, 東京 and 😀 — done."
    scripted_model.enqueue(text_response(answer))
    async with EditorSession(home, ws) as client:
        thread_id = await client.start_thread(ws)
        done = await client.run_turn(thread_id, "café ☕ question")
        assert done["turn"]["status"] == "completed"
        deltas = client.notifications("item/agentMessage/delta")
        assert "".join(p["delta"] for p in deltas if p["threadId"] == thread_id) == answer

    async with EditorSession(home, ws) as client:
        resumed = await client.codex("thread/resume", {"threadId": thread_id})
        items = [item for turn in resumed["thread"]["turns"] for item in turn["items"]]
        assert [item["text"] for item in items if item["type"] == "agentMessage"] == [answer]
        asked = [item for item in items if item["type"] == "userMessage"]
        assert asked[0]["content"][0]["text"] == "café ☕ question"


async def test_two_threads_run_turns_at_the_same_time(tmp_path, ws, scripted_model):
    # The first thread's command waits for a file that only the second thread's turn creates:
    # the first turn can finish only if the second ran while it was still going.
    home = tmp_path / "home"
    write_config(
        home, scripted_model.base_url, approval_policy="never", sandbox_mode="danger-full-access"
    )
    wait = "for i in $(seq 600); do [ -f go ] && break; sleep 0.05; done; cat go"
    scripted_model.enqueue(
        function_call_response("exec_command", {"cmd": wait, "workdir": str(ws)}),
        when="first question",
    )
    scripted_model.enqueue(
        function_call_response(
            "exec_command", {"cmd": "echo ready > go", "workdir": str(ws)}, call_id="c2"
        ),
        when="second question",
    )
    scripted_model.enqueue(text_response("slow answer"), when="call_1")
    scripted_model.enqueue(text_response("quick answer"), when="c2")
    async with EditorSession(home, ws) as client:
        slow, quick = await client.start_thread(ws), await client.start_thread(ws)
        slow_turn = await client.start_turn(slow, "first question")
        await client.wait_for(
            "item/started",
            lambda p: p["threadId"] == slow and p["item"]["type"] == "commandExecution",
        )
        quick_turn = await client.start_turn(quick, "second question")

        quick_done = await client.turn_completed(quick, quick_turn)
        slow_done = await client.turn_completed(slow, slow_turn)
        assert quick_done["turn"]["status"] == slow_done["turn"]["status"] == "completed"
        # Both finished (the slow one could only finish because the quick one ran meanwhile);
        # which of the two last model answers lands first is a race, not part of the behaviour.
        finished = [p["threadId"] for p in client.notifications("turn/completed")]
        assert sorted(finished) == sorted([quick, slow])

        def answer(thread_id: str) -> str:
            return "".join(
                p["delta"]
                for p in client.notifications("item/agentMessage/delta")
                if p["threadId"] == thread_id
            )

        assert answer(slow) == "slow answer"
        assert answer(quick) == "quick answer"
        waited = next(
            p["item"]
            for p in client.notifications("item/completed")
            if p["threadId"] == slow and p["item"]["type"] == "commandExecution"
        )
        assert "ready" in waited["aggregatedOutput"]


async def test_a_failing_turn_fails_alone(home, ws, scripted_model):
    scripted_model.enqueue(
        [{"status": 400, "body": {"error": {"message": "bad request from the model"}}}],
        when="doomed",
    )
    scripted_model.enqueue(text_response("fine"), when="healthy")
    async with EditorSession(home, ws) as client:
        doomed, healthy = await client.start_thread(ws), await client.start_thread(ws)
        failed = await client.run_turn(doomed, "doomed")
        assert failed["turn"]["status"] == "failed"
        assert failed["turn"]["error"]["message"]

        ok = await client.run_turn(healthy, "healthy")
        assert ok["turn"]["status"] == "completed"
        # The failed thread itself takes another turn.
        scripted_model.enqueue(text_response("recovered"))
        again = await client.run_turn(doomed, "try again")
        assert again["turn"]["status"] == "completed"


async def test_ask_command_shows_the_question_and_gives_the_model_the_unsaved_selection(
    home, ws, scripted_model
):
    scripted_model.enqueue(text_response("It prints a greeting."))
    async with EditorSession(home, ws) as client:
        doc = client.open(ws / "app.py", 'print("hi")\ndef unsaved():\n    return 42\n', version=4)
        result = await client.command(
            "codex.ask",
            {
                "prompt": "What does this do?",
                "uri": doc,
                "range": {
                    "start": {"line": 1, "character": 0},
                    "end": {"line": 3, "character": 0},
                },
            },
        )
        thread_id = result["threadId"]
        completed = await client.turn_completed(thread_id, result["turn"]["id"])
        assert completed["turn"]["status"] == "completed"
        # The question, and a label naming what was attached: not the selection's text.
        shown = "What does this do?\nContext: app.py, lines 2-3"
        assert shown_user_messages(client, thread_id) == [shown]
        read = await client.codex("thread/read", {"threadId": thread_id, "includeTurns": True})
        [user] = [i for i in read["thread"]["turns"][0]["items"] if i["type"] == "userMessage"]
        assert "\n".join(c["text"] for c in user["content"]) == shown

    request = scripted_model.requests[-1]
    assert _user_texts(request.body)[-2:] == ["What does this do?", "Context: app.py, lines 2-3"]
    told = developer_text(request)
    assert "`app.py`, lines 2-3:\n```py\ndef unsaved():\n    return 42\n```" in told
    assert 'print("hi")' not in told


async def test_edit_command_asks_for_an_in_place_change_with_the_pickers_settings(
    home, ws, scripted_model
):
    scripted_model.enqueue(text_response("Renamed."))
    async with EditorSession(home, ws) as client:
        doc = client.open(ws / "app.py", "def f():\n    return 1\n", version=2)
        result = await client.command(
            "codex.edit",
            {
                "instruction": "rename f to answer",
                "uri": doc,
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}},
                "model": "gpt-5.4-mini",
                "effort": "low",
                "approvalPolicy": "never",
            },
        )
        completed = await client.turn_completed(result["threadId"], result["turn"]["id"])
        assert completed["turn"]["status"] == "completed"
        assert shown_user_messages(client, result["threadId"]) == ["rename f to answer"]

    request = scripted_model.requests[-1]
    assert _user_texts(request.body)[-1] == "rename f to answer"
    told = developer_text(request)
    assert "lines 1-2 of `app.py`" in told and "in place" in told and "apply_patch" in told
    assert "```py\ndef f():\n    return 1\n```" in told
    assert request.body["model"] == "gpt-5.4-mini"
    assert request.body["reasoning"]["effort"] == "low"
    assert "The user will never be asked" in json.dumps(request.body["input"])


async def test_new_thread_and_interrupt_commands(tmp_path, ws, scripted_model):
    home = tmp_path / "home"
    write_config(
        home, scripted_model.base_url, approval_policy="never", sandbox_mode="danger-full-access"
    )
    scripted_model.enqueue(
        function_call_response(
            "exec_command", {"cmd": "sleep 60", "workdir": str(ws)}, call_id="call_sleep"
        )
    )
    async with EditorSession(home, ws) as client:
        started = await client.command("codex.newThread", {})
        thread_id = started["thread"]["id"]
        assert Path(started["cwd"]) == ws
        idle = await client.command("codex.interrupt", {"threadId": thread_id})
        assert idle == {"interrupted": False}

        turn_id = await client.start_turn(thread_id, "run something long")
        await client.wait_for("item/started", lambda p: p["item"]["type"] == "commandExecution")
        stopped = await client.command("codex.interrupt", {"threadId": thread_id})
        assert stopped == {"interrupted": True}
        completed = await client.turn_completed(thread_id, turn_id)
        assert completed["turn"]["status"] == "interrupted"


async def test_server_advertises_its_commands_and_sync(home, ws):
    session = EditorSession(home, ws)
    async with session:
        capabilities = session.initialize_result.capabilities
        assert set(capabilities.execute_command_provider.commands) == {
            "codex.newThread",
            "codex.ask",
            "codex.edit",
            "codex.interrupt",
            "codex.review",
            "codex.fixFinding",
            "codex.explainFinding",
            "codex.dismissFinding",
            "codex.undoTurn",
            "codex.message",
            "codex.approve",
            "codex.deny",
            "codex.answer",
            "codex.sessionApprovals",
            "codex.revokeApproval",
        }
        sync = capabilities.text_document_sync
        assert sync.open_close is True
        assert sync.change == types.TextDocumentSyncKind.Incremental

        # A client that speaks only v2 can still make the v2 handshake under codex/.
        client = session.client
        info = await client.codex("initialize", {"clientInfo": {"name": "panel", "version": "2"}})
        assert Path(info["codexHome"]) == home.resolve()
        assert "(panel; 2)" in info["userAgent"]


class _TokenOnFirstMessage:
    """The client's writer, with `Authorization: Bearer <token>` added to the first message's
    header block: how a client shows the `serve --tcp` door its token."""

    def __init__(self, writer: Any, token: str) -> None:
        self._writer = writer
        self._header: bytes | None = f"Authorization: Bearer {token}\r\n".encode()

    def write(self, data: bytes) -> Any:
        header, self._header = self._header, None
        return self._writer.write(header + data if header else data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._writer, name)


async def test_tcp_transport_serves_a_client_that_shows_the_token(home, ws, scripted_model):
    import sys

    scripted_model.enqueue(text_response("over tcp"))
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "codex_lsp",
        "serve",
        "--tcp",
        "127.0.0.1:0",
        stderr=asyncio.subprocess.PIPE,
        env={**__import__("os").environ, "CODEX_HOME": str(home)},
    )
    try:
        line = await asyncio.wait_for(process.stderr.readline(), 30)
        assert b"listening on" in line
        port = int(line.decode().rsplit(":", 1)[1])
        told = await asyncio.wait_for(process.stderr.readline(), 30)
        token_file = home / "listen-token"
        assert str(token_file).encode() in told
        token = token_file.read_text().strip()
        assert token.encode() not in told
        from tests.support.lsp_client import Editor, editor_capabilities, make_editor_client

        client = make_editor_client(Editor())
        await client.start_tcp("127.0.0.1", port)
        client.protocol.set_writer(_TokenOnFirstMessage(client.protocol.writer, token))
        await client.initialize_session(
            types.InitializeParams(capabilities=editor_capabilities(), root_uri=uri(ws))
        )
        thread_id = await client.start_thread(ws)
        completed = await client.run_turn(thread_id, "hi")
        assert completed["turn"]["status"] == "completed"
        await client.shutdown_async(None)
        client.exit(None)
        assert await asyncio.wait_for(process.wait(), 30) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
