""" "Always allow commands starting with …" side by side with the real `codex app-server` 0.171:
the line saved in `$CODEX_HOME/rules/default.rules`, what the model is told, and that later
commands starting the same way run without a question, in a new thread and after a restart.

Where the command runs differs on purpose (see differences.toml): the reference runs a command
its rule allows outside its sandbox, codex-lsp keeps it inside. The journey runs without a
sandbox so that only the rule is compared; the last test pins the difference."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conformance.servers import Run, Side, run_on
from tests.conformance.steps import answer_request, run_turn, shell_call, start_thread, start_turn
from tests.support.scripted_builders import text_response

APPROVAL = "item/commandExecution/requestApproval"


def _command_turn(run: Run, thread_id: str, script: str, call_id: str) -> None:
    shell_call(run, script, call_id=call_id)
    run.model.enqueue(text_response(f"done {call_id}"))
    run_turn(run, thread_id, f"run {call_id}")


def _journey(side: Side, tmp_path: Path) -> dict[str, Any]:
    with run_on(side, tmp_path) as run:
        shell_call(run, "touch one.flag", call_id="first")
        run.model.enqueue(text_response("done first"))
        thread_id = start_thread(run, approvalPolicy="untrusted")
        start_turn(run, thread_id, "run first")
        asked = answer_request(
            run,
            APPROVAL,
            {
                "decision": {
                    "acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["touch", "one.flag"]}
                }
            },
        )
        run.client.wait_method("turn/completed", threadId=thread_id)
        rules = (run.home / "rules" / "default.rules").read_text()
        told = [
            part["text"]
            for item in run.model.requests[-1].body["input"]
            if item.get("role") == "developer" and item.get("type") == "message"
            for part in item["content"]
            if "prefix" in part.get("text", "")
        ]
        _command_turn(run, thread_id, "touch one.flag two.flag", "more-args")
        _command_turn(run, start_thread(run, approvalPolicy="untrusted"), "touch one.flag x", "new")
        run.restart()
        _command_turn(run, start_thread(run, approvalPolicy="untrusted"), "touch one.flag y", "rs")
        questions = [
            entry.message["params"]["itemId"]
            for entry in run.transcript
            if entry.message.get("method") == APPROVAL
        ]
        made = sorted(p.name for p in run.ws.iterdir())
        return {
            "proposed": asked["params"]["proposedExecpolicyAmendment"],
            "rules": rules,
            "told": told,
            "questions": questions,
            "made": made,
        }


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_an_always_allowed_prefix_as_the_real_server_keeps_it(side: Side, tmp_path: Path) -> None:
    real = _journey("real", tmp_path / "real")
    assert real == {
        "proposed": ["touch", "one.flag"],
        "rules": 'prefix_rule(pattern=["touch", "one.flag"], decision="allow")\n',
        "told": ['Approved command prefix saved:\n- ["touch", "one.flag"]'],
        "questions": ["first"],
        "made": ["one.flag", "two.flag", "x", "y"],
    }
    assert _journey(side, tmp_path / side) == real


def _allowed_write_outside(side: Side, tmp_path: Path) -> dict[str, Any]:
    with run_on(side, tmp_path) as run:
        (run.home / "rules").mkdir()
        (run.home / "rules" / "default.rules").write_text(
            'prefix_rule(pattern=["touch"], decision="allow")\n'
        )
        outside = run.home.parent / "outside"
        outside.mkdir()
        shell_call(run, f"touch inside.flag {outside}/escaped.flag", call_id="allowed")
        run.model.enqueue(text_response("done"))
        thread_id = start_thread(run, approvalPolicy="untrusted", sandbox="workspace-write")
        start_turn(run, thread_id, "run allowed")
        reasons: list[str] = []
        while True:
            message = run.client.wait(
                lambda m: m.get("method") in (APPROVAL, "turn/completed") and "params" in m
            )
            if message["method"] == "turn/completed":
                break
            reasons.append(message["params"].get("reason"))
            run.client.answer(message, {"decision": "decline"})
        return {
            "reasons": reasons,
            "inside": (run.ws / "inside.flag").exists(),
            "escaped": (outside / "escaped.flag").exists(),
        }


def test_a_command_a_rule_allows_stays_in_the_sandbox_where_the_reference_lets_it_out(
    tmp_path: Path,
) -> None:
    # Neither asks before running it; the reference runs it unsandboxed, codex-lsp in the
    # sandbox, which refuses the write outside and offers a rerun the user declines.
    assert _allowed_write_outside("real", tmp_path / "real") == {
        "reasons": [],
        "inside": True,
        "escaped": True,
    }
    assert _allowed_write_outside("ours", tmp_path / "ours") == {
        "reasons": ["command failed; retry without sandbox?"],
        "inside": True,
        "escaped": False,
    }
