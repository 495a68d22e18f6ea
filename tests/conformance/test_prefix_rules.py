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


# Scripts of several plain commands: each command is held to the rules on its own.
_SCRIPTS = {
    "both-allowed": "touch a.flag && touch b.flag",
    "piped": "touch a.flag | touch b.flag",
    "one-unruled": "touch a.flag; touch c.flag",
    "one-forbidden": "touch a.flag && rm -f gone.flag",
    "one-prompted": "touch b.flag || mkdir asked",
    "expansion": "touch a.flag && touch $HOME/d.flag",
}


def _scripts_journey(side: Side, tmp_path: Path) -> dict[str, Any]:
    with run_on(side, tmp_path) as run:
        (run.home / "rules").mkdir()
        (run.home / "rules" / "default.rules").write_text(
            'prefix_rule(pattern=["touch", ["a.flag", "b.flag"]], decision="allow")\n'
            'prefix_rule(pattern=["rm"], decision="forbidden")\n'
            'prefix_rule(pattern=["mkdir"], decision="prompt")\n'
        )
        (run.ws / "gone.flag").write_text("")
        thread_id = start_thread(run, approvalPolicy="untrusted")
        asked: list[str] = []
        refused: dict[str, bool] = {}
        for call_id, script in _SCRIPTS.items():
            shell_call(run, script, call_id=call_id)
            run.model.enqueue(text_response(f"done {call_id}"))
            start_turn(run, thread_id, f"run {call_id}")
            while True:
                message = run.client.wait(
                    lambda m: m.get("method") in (APPROVAL, "turn/completed") and "params" in m
                )
                if message["method"] == "turn/completed":
                    break
                asked.append(message["params"]["itemId"])
                run.client.answer(message, {"decision": "decline"})
            output = next(
                item
                for item in run.model.requests[-1].body["input"]
                if item.get("type") == "function_call_output" and item.get("call_id") == call_id
            )
            refused[call_id] = "forbids commands starting with `rm`" in str(output["output"])
            for flag in ("a.flag", "b.flag", "c.flag"):
                (run.ws / flag).unlink(missing_ok=True)
        return {
            "asked": asked,
            "refused": sorted(k for k, v in refused.items() if v),
            "kept": (run.ws / "gone.flag").exists(),
        }


def test_each_command_of_a_script_is_held_to_the_rules_as_by_the_real_server(
    tmp_path: Path,
) -> None:
    # Both allowed and piped run unasked; the forbidden `rm` refuses its whole script unasked.
    real = _scripts_journey("real", tmp_path / "real")
    assert real == {
        # Asked: a command no rule matches, a prompted one, and a script with an expansion.
        "asked": ["one-unruled", "one-prompted", "expansion"],
        "refused": ["one-forbidden"],
        "kept": True,
    }
    for side in ("ours", "ours-lsp"):
        assert _scripts_journey(side, tmp_path / side) == real, side
