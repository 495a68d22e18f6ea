"""The schema checker on the real `codex app-server` traffic, and our models reading that traffic.

The real transcripts must pass the checker (so the checker is right); the per-method samples built
from our models are checked in `test_v2_requests` and `test_v2_events` (so our models are right).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codex_lsp.protocol import v2
from codex_lsp.protocol.approvals import models as req
from tests.support.schema_check import (
    BUNDLE_FILE,
    EDITORS_CACHE,
    SchemaChecker,
    SchemaViolation,
    TranscriptChecker,
    read_trace,
    schema_dir,
    traces_dir,
)

TRACES = sorted(traces_dir().glob("*.jsonl"))


# -- the checker itself, on the real server's traffic ----------------------------------------


@pytest.mark.parametrize("trace", TRACES, ids=lambda p: p.name)
def test_real_transcripts_pass(checker: SchemaChecker, trace: Path) -> None:
    transcript = TranscriptChecker(checker)
    assert transcript.feed_all(read_trace(trace)) == []


def test_there_are_transcripts() -> None:
    assert len(TRACES) >= 5


def test_checker_rejects_a_broken_item_with_a_precise_path(checker: SchemaChecker) -> None:
    message = {
        "method": "item/completed",
        "params": {
            "threadId": "t",
            "turnId": "u",
            "completedAtMs": 1,
            "item": {"type": "fileChange", "id": "c", "changes": [], "status": "done"},
        },
    }
    with pytest.raises(SchemaViolation) as caught:
        checker.check_notification(message)
    assert caught.value.errors == [
        "notification item/completed: at $.params.item.status: 'done' is not one of "
        "['inProgress', 'completed', 'failed', 'declined']"
    ]


def test_checker_pairs_responses_with_their_requests(checker: SchemaChecker) -> None:
    transcript = TranscriptChecker(checker, forbid_jsonrpc_from_server=True)
    transcript.feed("client", {"id": 7, "method": "thread/archive", "params": {"threadId": "t"}})
    # `thread/archive` answers `{}`, so a `thread/read`-shaped result is still valid, but a
    # missing `result` is not.
    assert transcript.feed("server", {"id": 7}) != []
    assert transcript.feed("server", {"id": 99, "result": {}}) == [
        "server response with unknown id 99"
    ]
    assert transcript.feed("server", {"jsonrpc": "2.0", "method": "warning", "params": {}}) != []


def test_checker_reads_the_answer_to_a_server_request(checker: SchemaChecker) -> None:
    transcript = TranscriptChecker(checker)
    params = {"threadId": "t", "turnId": "u", "itemId": "i", "startedAtMs": 1}
    transcript.feed(
        "server", {"id": 0, "method": "item/fileChange/requestApproval", "params": params}
    )
    errors = transcript.feed("client", {"id": 0, "result": {"decision": "maybe"}})
    assert errors and "$.decision" in errors[0]


def test_checker_accepts_error_responses(checker: SchemaChecker) -> None:
    checker.check_response("thread/read", {"id": 1, "error": {"code": -32600, "message": "no"}})
    with pytest.raises(SchemaViolation):
        checker.check_response("thread/read", {"id": 1, "error": {"message": "no code"}})


# -- our models, one sample per method -------------------------------------------------------


# -- our models read the real server's traffic -----------------------------------------------


def _real_messages():
    for trace in TRACES:
        for sender, message in read_trace(trace):
            yield trace.name, sender, message


def test_our_models_read_real_traffic_and_write_it_back_valid(checker: SchemaChecker) -> None:
    """Every real message of a method we model parses, and our re-dump still passes the schema."""
    pending: dict[object, str] = {}
    seen: set[str] = set()
    for name, sender, message in _real_messages():
        method = message.get("method")
        if sender == "client" and method in v2.CLIENT_REQUESTS:
            pending[message["id"]] = method
            parsed = v2.parse_params(method, message.get("params"))
            request = {"id": message["id"], "method": method, "params": v2.dump(parsed)}
            checker.check_client_request(request)
            seen.add(method)
        elif sender == "server" and method in v2.SERVER_NOTIFICATIONS:
            parsed = v2.SERVER_NOTIFICATIONS[method].model_validate(message["params"])
            checker.check_notification({"method": method, "params": v2.dump(parsed)})
            seen.add(method)
        elif sender == "server" and method in v2.SERVER_REQUESTS:
            parsed = v2.SERVER_REQUESTS[method][0].model_validate(message["params"])
            checker.check_server_request({"id": 0, "method": method, "params": v2.dump(parsed)})
            seen.add(method)
        elif sender == "server" and "result" in message and message["id"] in pending:
            answered = pending.pop(message["id"])
            parsed = v2.result_model(answered).model_validate(message["result"])
            checker.check_response(answered, {"id": message["id"], "result": v2.dump(parsed)})
        elif sender == "client" and "result" in message:
            # The answer to a server request; all of those in the traces are approvals.
            parsed = req.CommandExecutionRequestApprovalResponse.model_validate(message["result"])
            assert v2.dump(parsed) == message["result"], name
    assert {
        "thread/start",
        "turn/start",
        "item/started",
        "item/commandExecution/requestApproval",
    } <= seen


def test_the_schema_comes_from_the_installed_real_server(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real = schema_dir()
    # Generated by the binary the test set-up installs, not read from outside the repository.
    assert real.is_relative_to(EDITORS_CACHE) and (real / BUNDLE_FILE).is_file()
    monkeypatch.setenv("CODEX_LSP_SCHEMA_DIR", str(tmp_path))
    assert schema_dir() == tmp_path
    with pytest.raises(FileNotFoundError, match="CODEX_LSP_SCHEMA_DIR"):
        SchemaChecker()
    monkeypatch.setenv("CODEX_LSP_SCHEMA_DIR", str(real))
    assert SchemaChecker().client_requests["thread/start"].startswith("/definitions/ClientRequest")
