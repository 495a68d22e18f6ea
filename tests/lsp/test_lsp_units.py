"""The language server's pieces on their own: prompts, questions, progress text, logs, framing."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pydantic import TypeAdapter

from codex_lsp.engine.bootstrap import load_services
from codex_lsp.lsp.approvals import (
    ApprovalBroker,
    command_message,
    decision_for,
    file_change_message,
)
from codex_lsp.lsp.framing import FrameReader
from codex_lsp.lsp.logs import EditorLogHandler, redact
from codex_lsp.lsp.progress import describe_item
from codex_lsp.lsp.server import build_server
from codex_lsp.lsp.transport import dispatch
from codex_lsp.protocol.approvals.models import (
    CommandExecutionRequestApprovalParams,
    FileChangeRequestApprovalParams,
    ToolRequestUserInputParams,
)
from codex_lsp.protocol.common import dump
from codex_lsp.protocol.turns.items import FileUpdateChange, ThreadItem
from tests.support.engine import write_config

# The fields every server request carries: which thread, turn and item it is about.
ASKED = {"threadId": "t", "turnId": "1", "itemId": "call_1", "startedAtMs": 0}
CHANGES = TypeAdapter(list[FileUpdateChange])
ASK_TO_RUN_LS = CommandExecutionRequestApprovalParams.model_validate({**ASKED, "command": "ls"})

# -- approval prompts ------------------------------------------------------------------------


def test_command_prompt_shows_command_cwd_and_reason():
    text = command_message(
        CommandExecutionRequestApprovalParams.model_validate(
            {
                **ASKED,
                "command": "/bin/bash -lc 'rm -rf build'",
                "cwd": "/repo",
                "reason": "clean the build",
                "networkApprovalContext": {"host": "pypi.org", "protocol": "https"},
            }
        )
    )
    assert text.splitlines() == [
        "Codex wants to run a command:",
        "$ /bin/bash -lc 'rm -rf build'",
        "in /repo",
        "It needs network access to pypi.org (https).",
        "Reason: clean the build",
    ]


def test_patch_prompt_lists_files_relative_to_the_thread_and_cuts_the_diff():
    diff = "".join(f"+line {i}\n" for i in range(30))
    changes = CHANGES.validate_python(
        [
            {"path": "/repo/src/a.py", "kind": {"type": "update", "move_path": None}, "diff": diff},
            {"path": "/repo/b.txt", "kind": {"type": "add"}, "diff": "+b\n"},
            {
                "path": "/repo/old.py",
                "kind": {"type": "update", "move_path": "/repo/new.py"},
                "diff": "",
            },
            {"path": "/elsewhere/c.txt", "kind": {"type": "delete"}, "diff": "-c\n"},
        ]
    )
    params = FileChangeRequestApprovalParams.model_validate(
        {**ASKED, "reason": "needs write access"}
    )
    text = file_change_message(params, changes, Path("/repo"))
    lines = text.splitlines()
    assert lines[:6] == [
        "Codex wants to change 4 files:",
        "  M src/a.py",
        "  A b.txt",
        "  M old.py -> new.py",
        "  D /elsewhere/c.txt",
        "Reason: needs write access",
    ]
    assert "+line 19" in lines and "+line 20" not in lines
    assert lines[-1] == "... 12 more diff lines"


@pytest.mark.parametrize(
    ("title", "decision"),
    [
        ("Approve", "accept"),
        ("Approve for session", "acceptForSession"),
        ("Deny", "decline"),
        ("Abort turn", "cancel"),
        ("Something else", "decline"),
        (None, "decline"),
    ],
)
def test_actions_map_to_v2_decisions(title, decision):
    choice = None if title is None else types.MessageActionItem(title=title)
    assert decision_for(choice) == decision


class FakeProtocol:
    """Records requests; answers from a list (a callable gets the request)."""

    def __init__(self, answers: list[Any]) -> None:
        self.answers = answers
        self.sent: list[tuple[str, Any]] = []
        self.notified: list[tuple[str, Any]] = []

    async def send_request_async(self, method: str, params: Any, msg_id: Any = None) -> Any:
        self.sent.append((method, params))
        answer = self.answers.pop(0)
        if answer == "hang":
            await asyncio.Event().wait()
        return answer

    def notify(self, method: str, params: Any) -> None:
        self.notified.append((method, params))


class FakeServer:
    def __init__(self, answers: list[Any]) -> None:
        self.protocol = FakeProtocol(answers)
        # An editor that answers window/showMessageRequest.
        self.client_capabilities = types.ClientCapabilities(
            window=types.WindowClientCapabilities(
                show_message=types.ShowMessageRequestClientCapabilities()
            )
        )


QUESTIONS = {
    "threadId": "t",
    "turnId": "1",
    "itemId": "call_q",
    "questions": [
        {
            "id": "db",
            "header": "Database",
            "question": "Which database?",
            "options": [
                {"label": "Postgres", "description": "the usual"},
                {"label": "SQLite", "description": "embedded"},
            ],
        },
        {"id": "name", "header": "Name", "question": "Project name?", "options": None},
        {
            "id": "ci",
            "header": "CI",
            "question": "Set up CI?",
            "options": [{"label": "Yes", "description": ""}, {"label": "No", "description": ""}],
        },
    ],
}


QUESTIONS_ASKED = ToolRequestUserInputParams.model_validate(QUESTIONS)


async def test_questions_become_prompts_with_their_options_as_actions():
    server = FakeServer(
        [types.MessageActionItem(title="SQLite"), types.MessageActionItem(title="No")]
    )
    broker = ApprovalBroker(server, rich=lambda: False)  # type: ignore[arg-type]
    result = await broker.ask("item/tool/requestUserInput", QUESTIONS_ASKED)
    assert result == {"answers": {"db": {"answers": ["SQLite"]}, "ci": {"answers": ["No"]}}}
    first = server.protocol.sent[0][1]
    assert [a.title for a in first.actions] == ["Postgres", "SQLite"]
    assert "Which database?" in first.message and "SQLite: embedded" in first.message
    assert len(server.protocol.sent) == 2, "a free-text question cannot be a message prompt"


async def test_dismissing_a_question_skips_the_rest():
    server = FakeServer([None])
    broker = ApprovalBroker(server, rich=lambda: False)  # type: ignore[arg-type]
    assert await broker.ask("item/tool/requestUserInput", QUESTIONS_ASKED) == {"answers": {}}
    assert len(server.protocol.sent) == 1


async def test_rich_clients_get_the_v2_request_and_answer_it_verbatim():
    answer = {"answers": {"db": {"answers": ["Postgres"]}}}
    server = FakeServer([answer])
    broker = ApprovalBroker(server, rich=lambda: True)  # type: ignore[arg-type]
    assert await broker.ask("item/tool/requestUserInput", QUESTIONS_ASKED) == answer
    assert server.protocol.sent == [("codex/item/tool/requestUserInput", dump(QUESTIONS_ASKED))]


async def test_patch_prompt_falls_back_to_the_pending_items_diff():
    server = FakeServer([types.MessageActionItem(title="Approve")])
    changes = CHANGES.validate_python(
        [{"path": "/repo/a.py", "kind": {"type": "add"}, "diff": "+hello\n"}]
    )
    broker = ApprovalBroker(
        server,  # type: ignore[arg-type]
        rich=lambda: False,
        thread_cwd=lambda thread: Path("/repo"),
        file_changes=lambda item: changes if item == "call_p" else None,
    )
    params = FileChangeRequestApprovalParams.model_validate({**ASKED, "itemId": "call_p"})
    assert await broker.ask("item/fileChange/requestApproval", params) == {"decision": "accept"}
    message = server.protocol.sent[0][1].message
    assert "A a.py" in message and "+hello" in message


async def test_a_prompt_whose_turn_ends_is_withdrawn_from_the_editor():
    server = FakeServer(["hang"])
    broker = ApprovalBroker(server, rich=lambda: False)  # type: ignore[arg-type]
    asking = asyncio.ensure_future(
        broker.ask("item/commandExecution/requestApproval", ASK_TO_RUN_LS)
    )
    while not server.protocol.sent:
        await asyncio.sleep(0)
    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asking
    [(method, params)] = server.protocol.notified
    assert method == "$/cancelRequest"
    assert params.id.startswith("codex-")


# -- progress and commands -------------------------------------------------------------------


RUNNING = {"status": "inProgress"}


def _added(path: str) -> dict[str, Any]:
    return {"path": path, "kind": {"type": "add"}, "diff": ""}


@pytest.mark.parametrize(
    ("item", "text"),
    [
        (
            {"type": "commandExecution", "id": "c", "command": "pytest -q", "cwd": "/r", **RUNNING},
            "Running pytest -q",
        ),
        (
            {"type": "fileChange", "id": "f", "changes": [_added("/r/a.py"), _added("/r/b.py")]}
            | RUNNING,
            "Editing a.py, b.py",
        ),
        ({"type": "reasoning", "id": "r"}, "Thinking"),
        ({"type": "agentMessage", "id": "m", "text": ""}, "Writing the answer"),
        ({"type": "userMessage", "id": "u", "content": []}, None),
    ],
)
def test_progress_messages_say_what_the_agent_does(item, text):
    assert describe_item(TypeAdapter(ThreadItem).validate_python(item)) == text


# -- logs ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "leak",
    [
        "params={'type': 'apiKey', 'apiKey': 'sk-live-abcdef123456'}",
        '{"apiKey": "sk-proj-XYZ0987654321"}',
        "Authorization: Bearer abc.def.ghi",
        "OPENAI_API_KEY=sk-abcdefghijklmnop",
    ],
)
def test_secrets_never_reach_a_log_line(leak):
    cleaned = redact(leak)
    assert "***" in cleaned
    for secret in ("abcdef123456", "XYZ0987654321", "abc.def.ghi", "abcdefghijklmnop"):
        assert secret not in cleaned


def test_editor_log_handler_forwards_warnings_redacted():
    sent: list[tuple[int, str]] = []
    logger = logging.getLogger("codex_lsp.test_forwarding")
    handler = EditorLogHandler(lambda level, message: sent.append((level, message)))
    logger.addHandler(handler)
    try:
        logger.info("not forwarded")
        logger.warning("login failed for apiKey=sk-secret-0123456789")
    finally:
        logger.removeHandler(handler)
    assert sent == [(logging.WARNING, "codex_lsp.test_forwarding: login failed for apiKey=***")]


def test_the_configured_secrets_never_reach_a_log_line(tmp_path, monkeypatch):
    # Secrets no pattern recognises, known because the loaded config holds or names them.
    home = tmp_path / "home"
    config = write_config(home, "http://codex:pw-in-url-5150@127.0.0.1:9/v1")
    config.write_text(
        config.read_text()
        + 'env_key = "LLM_PASS"\nhttp_headers = { "x-team" = "team-header-1984" }\n'
    )
    monkeypatch.setenv("LLM_PASS", "plain-words-key-2001")
    load_services(codex_home=home)
    sent: list[tuple[int, str]] = []
    logger = logging.getLogger("codex_lsp.test_configured")
    handler = EditorLogHandler(lambda level, message: sent.append((level, message)))
    logger.addHandler(handler)
    try:
        logger.warning("sent pw-in-url-5150, team-header-1984 and plain-words-key-2001")
    finally:
        logger.removeHandler(handler)
    assert sent == [
        (logging.WARNING, "codex_lsp.test_configured: sent [REDACTED], [REDACTED] and [REDACTED]")
    ]


# -- framing ---------------------------------------------------------------------------------


async def test_frames_are_read_past_extra_headers_and_blank_lines():
    reader = asyncio.StreamReader()
    body = b'{"jsonrpc": "2.0"}'
    reader.feed_data(b"\r\nContent-Type: x\r\ncontent-length: %d\r\n\r\n" % len(body) + body)
    reader.feed_eof()
    frames = FrameReader(lambda: reader.read(7))  # split anywhere: 7 bytes at a time
    assert await frames.next() == body
    assert await frames.next() is None


def test_dispatch_answers_requests_without_params_for_unknown_methods():
    server = build_server()
    out: list[bytes] = []

    class Writer:
        def write(self, data: bytes) -> None:
            out.append(data)

        def close(self) -> None:
            pass

    server.protocol.set_writer(Writer(), include_headers=False)
    dispatch(server.protocol, b'{"jsonrpc": "2.0", "id": 1, "method": "no/such"}')
    [reply] = [json.loads(chunk) for chunk in out]
    assert reply["id"] == 1 and reply["error"]["code"] == -32601


def test_an_unusable_answer_fails_the_pending_request_instead_of_hanging_it():
    server = build_server()

    class Writer:
        def write(self, data: bytes) -> None:
            pass

        def close(self) -> None:
            pass

    server.protocol.set_writer(Writer(), include_headers=False)
    params = types.ApplyWorkspaceEditParams(edit=types.WorkspaceEdit())
    pending = server.protocol.send_request("workspace/applyEdit", params, msg_id="edit-1")
    dispatch(server.protocol, b'{"jsonrpc": "2.0", "id": "edit-1", "result": {"failedChange": 1}}')
    assert pending.done()
    assert pending.exception() is not None


async def test_without_message_requests_an_interrupted_approval_stops_waiting():
    server = FakeServer([])
    shown: list[types.ShowMessageParams] = []
    server.window_show_message = shown.append  # type: ignore[attr-defined]
    # The client said it shows no prompts (experimental.codex.messageRequests: false).
    broker = ApprovalBroker(
        server,  # type: ignore[arg-type]
        rich=lambda: False,
        message_requests=lambda: False,
    )
    asking = asyncio.ensure_future(
        broker.ask("item/commandExecution/requestApproval", ASK_TO_RUN_LS)
    )

    async def waiting() -> None:
        while not broker.pending.entries():
            await asyncio.sleep(0)

    await asyncio.wait_for(waiting(), 5)
    [entry] = broker.pending.entries()
    assert entry.summary == "run `ls`"
    assert 'codex.approve or codex.deny with {"id": "1"}' in shown[0].message
    assert server.protocol.sent == []  # no showMessageRequest
    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asking
    assert broker.pending.entries() == []
