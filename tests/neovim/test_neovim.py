"""The Neovim plugin in a real, headless Neovim against the real server and a scripted model.

Each test seeds the scripted model, runs one Lua suite from `editors/neovim/tests/`, fails
with the suite's output when it exits non-zero, and then checks what the model was told.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.engine import make_git_repo, write_config
from tests.support.nvim import run_suite
from tests.support.nvim_journeys import turn_texts
from tests.support.scripted_builders import (
    custom_tool_call_response,
    function_call_response,
    text_response,
)

APP = 'def main():\n    print("hi")\n\nmain()\n'
GREETING_PATCH = (
    "*** Begin Patch\n"
    "*** Update File: app.py\n"
    "@@ def main():\n"
    '-    print("hi")\n'
    '+    print("hello")\n'
    "*** End Patch"
)


def _setup(tmp_path: Path, scripted_model, **config) -> tuple[Path, Path]:
    home = tmp_path / "codex-home"
    ws = make_git_repo(tmp_path / "ws", {"app.py": APP})
    write_config(home, scripted_model.base_url, **config)
    return home, ws


def _check(run) -> None:
    assert run.returncode == 0, run.report()
    assert "PASS " in run.stdout, run.report()


def _user_texts(request_body: dict) -> list[str]:
    return [
        part["text"]
        for item in request_body["input"]
        if item.get("role") == "user"
        for part in item.get("content") or []
        if part.get("type") == "input_text"
    ]


def _tool_output(request_body: dict, call_id: str) -> str:
    for item in request_body["input"]:
        if item.get("type", "").endswith("_output") and item.get("call_id") == call_id:
            output = item["output"]
            return output if isinstance(output, str) else str(output)
    raise AssertionError(f"no output for {call_id} in the request")


def test_inline_edit_accepted_then_undone(scripted_model, tmp_path):
    home, ws = _setup(tmp_path, scripted_model)
    scripted_model.enqueue(custom_tool_call_response("apply_patch", GREETING_PATCH, call_id="p1"))
    scripted_model.enqueue(text_response("Changed the greeting.", response_id="resp_2"))

    _check(run_suite("inline_accept", tmp_path, codex_home=home, workspace=ws))

    asked = "\n".join(turn_texts(scripted_model.requests[0].body))
    # The instruction, the file and the selected line went to the turn.
    assert "make the greeting say hello" in asked and "app.py" in asked
    assert 'print("hi")' in asked
    # The accepted change was written; the suite's `u` took it back in the buffer only.
    assert (ws / "app.py").read_text() == APP.replace('"hi"', '"hello"')


def test_inline_edit_rejected(scripted_model, tmp_path):
    home, ws = _setup(tmp_path, scripted_model)
    scripted_model.enqueue(custom_tool_call_response("apply_patch", GREETING_PATCH, call_id="p1"))
    scripted_model.enqueue(text_response("Understood, leaving it.", response_id="resp_2"))

    _check(run_suite("inline_reject", tmp_path, codex_home=home, workspace=ws))

    told = _tool_output(scripted_model.requests[1].body, "p1")
    assert "reject" in told.lower() or "declin" in told.lower() or "denied" in told.lower(), told
    assert (ws / "app.py").read_text() == APP


def test_chat_round_trip_with_a_command_approval(scripted_model, tmp_path):
    home, ws = _setup(tmp_path, scripted_model, extra="[tools.update_plan]\nenabled = true\n")
    command = "printf 'built ok\\n' > build.log; cat build.log"
    scripted_model.enqueue(
        function_call_response(
            "exec_command",
            {
                "cmd": command,
                "workdir": str(ws),
                "sandbox_permissions": "require_escalated",
                "justification": "write the build log",
            },
            call_id="c1",
        )
    )
    plan = {
        "explanation": "Two steps.",
        "plan": [
            {"step": "Build", "status": "completed"},
            {"step": "Report", "status": "in_progress"},
        ],
    }
    scripted_model.enqueue(
        function_call_response("update_plan", plan, call_id="c2", response_id="resp_2")
    )
    scripted_model.enqueue(
        text_response("All **done**: `build.log` says *built ok*.", response_id="resp_3")
    )
    scripted_model.enqueue([{"stall_s": 60}], when="now wait forever")
    scripted_model.enqueue(
        text_response("It prints a greeting.", response_id="resp_ask"),
        when="what does this line do?",
    )

    _check(run_suite("chat", tmp_path, codex_home=home, workspace=ws))

    assert "built ok" in _tool_output(scripted_model.requests[1].body, "c1")
    asked = "\n".join(turn_texts(scripted_model.requests[-1].body))
    assert "what does this line do?" in asked and 'print("hi")' in asked  # question + selection


def test_checkhealth(scripted_model, tmp_path):
    home, ws = _setup(tmp_path, scripted_model)
    with (home / "config.toml").open("a") as config:
        config.write('env_key = "SCRIPTED_API_KEY"\n')  # lands in [model_providers.scripted]

    _check(run_suite("health", tmp_path, codex_home=home, workspace=ws))


def test_plugin_units_and_start_up_failures(tmp_path):
    home = tmp_path / "codex-home"
    home.mkdir()
    bad = tmp_path / "bad-home"
    bad.mkdir()
    (bad / "config.toml").write_text('model = "m"\napproval_policy = "sometimes"\n')

    _check(run_suite("units", tmp_path, codex_home=home, env={"CODEX_NVIM_BAD_HOME": str(bad)}))


def test_patches_are_on_disk_for_the_next_command_and_undo_this_turn(scripted_model, tmp_path):
    home, ws = _setup(tmp_path, scripted_model)
    (ws / "lib.py").write_text("LIB = 1\n")
    patch = GREETING_PATCH.replace(
        "*** End Patch", "*** Update File: lib.py\n@@\n-LIB = 1\n+LIB = 2\n*** End Patch"
    )
    scripted_model.enqueue(custom_tool_call_response("apply_patch", patch, call_id="p1"))
    scripted_model.enqueue(
        function_call_response(
            "exec_command",
            {"cmd": "cat app.py lib.py", "workdir": str(ws)},
            call_id="c1",
            response_id="resp_cat",
        )
    )
    scripted_model.enqueue(text_response("Checked both files.", response_id="resp_3"))

    _check(run_suite("disk_truth", tmp_path, codex_home=home, workspace=ws))

    output = _tool_output(scripted_model.requests[2].body, "c1")
    assert 'print("hello")' in output and "LIB = 2" in output, output
    assert (ws / "app.py").read_text() == APP
    assert (ws / "lib.py").read_text() == "LIB = 1\n"
