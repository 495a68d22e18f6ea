"""A command a prefix rule allows still runs in the sandbox, and the model cannot write rules.

"Always allow commands starting with …" lifts only the question: the command runs under the
same policy as any other, in both sandbox modes. The rules file lives in `$CODEX_HOME`, which
no sandboxed command can write, so the model cannot allow itself anything.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.appserver import app_server, make_home
from tests.support.scripted_builders import function_call_response, text_response

APPROVAL = "item/commandExecution/requestApproval"
RULES = 'prefix_rule(pattern=["mkdir"], decision="allow")\nprefix_rule(pattern=["true"])\n'


def _turn(model, marker: str, script: str, ws: Path) -> None:
    args = {"cmd": script, "workdir": str(ws)}
    model.enqueue(function_call_response("exec_command", args, call_id=f"c_{marker}"), when=marker)
    model.enqueue(text_response(f"done {marker}"), when=marker)


@pytest.mark.parametrize("form", ["one command", "a script of allowed commands"])
def test_an_allowed_prefix_runs_in_the_sandbox_and_cannot_write_rules(
    scripted_model, tmp_path: Path, ws: Path, outside: Path, mode: str, form: str
) -> None:
    home, _ = make_home(tmp_path, scripted_model.base_url, approval_policy="untrusted")
    rules = home / "rules" / "default.rules"
    rules.parent.mkdir()
    rules.write_text(RULES)
    escaped, git_file = outside / "escaped", ws / ".git" / "planted"
    planted_rules = rules.parent / "more"
    if form == "one command":
        script = f"mkdir {escaped} {git_file} {planted_rules}"
    else:
        # Every command is one the rule allows, so the script runs unasked, each in the sandbox.
        # (In a sub-folder: Landlock alone lets nothing new into the workspace's top folder.)
        (ws / "sub").mkdir()
        made = ws / "sub" / "made"
        script = (
            f"mkdir {made} | mkdir {git_file}; mkdir {planted_rules} && true || mkdir {escaped}"
        )
    _turn(scripted_model, "allowed", script, ws)
    env = {"CODEX_LSP_SANDBOX_DISABLE": "mountns"} if mode == "landlock-only" else {}

    with app_server(home, ws, env=env) as client:
        thread_id = client.start_thread(sandbox="workspace-write")["id"]
        client.request(
            "turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "allowed"}]}
        )
        # No question before it runs; once the sandbox denied it, the only question is whether
        # to run it again outside, which the user declines.
        asked = client.wait_method(APPROVAL, threadId=thread_id)
        assert asked["params"]["reason"] == "command failed; retry without sandbox?"
        client.answer(asked, {"decision": "decline"})
        client.wait_method("turn/completed", threadId=thread_id)
        first_run = next(
            m["params"]["item"]
            for m in client.received
            if m.get("method") == "item/completed"
            and m["params"]["item"]["type"] == "commandExecution"
        )
    assert not escaped.exists()
    assert (ws / "sub" / "made").exists() == (form != "one command")
    assert not git_file.exists()
    assert not planted_rules.exists()
    assert rules.read_text() == RULES
    assert first_run["exitCode"] != 0
    assert str(escaped) in str(first_run["aggregatedOutput"])
