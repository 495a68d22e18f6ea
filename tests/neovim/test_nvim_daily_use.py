"""Journeys of everyday use in Neovim: opening the chat to type at once, stopping an inline edit,
deciding nearby changes apart, keys that leave the user's own mappings alone, and a Neovim that
leaves no server behind when it quits."""

from __future__ import annotations

import json
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.nvim import run_suite
from tests.support.nvim_journeys import check, tool_output, user_texts, workspace
from tests.support.scripted_builders import (
    custom_tool_call_response,
    function_call_response,
    text_response,
)
from tests.support.warm import warm_runtime


@pytest.mark.parametrize("auto_insert", ["0", "1"])
def test_codex_opens_in_the_input_area_and_no_typed_line_is_lost(
    scripted_model, tmp_path, auto_insert
):
    home, ws = workspace(tmp_path, scripted_model)
    env = {"CODEX_NVIM_AUTO_INSERT": auto_insert}
    check(run_suite("open_chat", tmp_path, codex_home=home, workspace=ws, env=env))


NEAR = "def first():\n    return 1\n\n\ndef second():\n    return 2\n"
NEAR_PATCH = (
    "*** Begin Patch\n"
    "*** Update File: calc.py\n"
    "@@\n"
    " def first():\n"
    "-    return 1\n"
    "+    return 10\n"
    " \n"
    " \n"
    " def second():\n"
    "-    return 2\n"
    "+    return 20\n"
    "*** End Patch"
)


def test_changes_three_lines_apart_are_decided_apart(scripted_model, tmp_path):
    home, ws = workspace(tmp_path, scripted_model, {"calc.py": NEAR})
    scripted_model.enqueue(custom_tool_call_response("apply_patch", NEAR_PATCH, call_id="p1"))
    scripted_model.enqueue(text_response("Done.", response_id="r2"))

    check(run_suite("near_hunks", tmp_path, codex_home=home, workspace=ws))

    assert (ws / "calc.py").read_text() == NEAR.replace("return 1\n", "return 10\n")
    told = tool_output(scripted_model.requests[-1].body, "p1")
    assert "The user declined 1 of 2 hunks; it was not applied:" in told
    assert "+    return 20" in told and "+    return 10" not in told


@pytest.mark.parametrize("key", ["0", "1"], ids=["command", "ctrl-c"])
def test_an_inline_edit_can_be_stopped(scripted_model, tmp_path, key):
    home, ws = workspace(tmp_path, scripted_model)
    scripted_model.enqueue([{"stall_s": 60}])

    check(
        run_suite(
            "edit_interrupt",
            tmp_path,
            codex_home=home,
            workspace=ws,
            env={"CODEX_NVIM_STOP_KEY": key},
        )
    )


@pytest.fixture
def runtime() -> Iterator[Path]:
    with warm_runtime() as path:
        yield path


def test_the_launcher_is_looked_up_once_and_never_at_start_up(scripted_model, tmp_path, runtime):
    home, ws = workspace(tmp_path, scripted_model)
    calls = tmp_path / "calls.log"
    # `codex-lsp` that notes each run, then is the real one.
    fake = tmp_path / "codex-lsp"
    fake.write_text(
        f'#!/bin/sh\nprintf \'%s\\n\' "$*" >> {calls}\nexec {sys.executable} -m codex_lsp "$@"\n'
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    env = {"XDG_RUNTIME_DIR": str(runtime), "CODEX_NVIM_CALLS": str(calls)}

    # Three Neovims, one after the other, sharing the cache: autostart off, then on.
    for autostart in ("0", "1", "1"):
        run = run_suite(
            "lazy_launcher",
            tmp_path,
            codex_home=home,
            workspace=ws,
            env={**env, "CODEX_NVIM_AUTOSTART": autostart},
            server=[str(fake), "serve"],
        )
        check(run)

    asked = [line for line in calls.read_text().splitlines() if "--print-launcher" in line]
    assert len(asked) == 1, calls.read_text()


def test_default_keys_never_replace_the_users(scripted_model, tmp_path):
    home, ws = workspace(tmp_path, scripted_model)
    check(run_suite("keymaps", tmp_path, codex_home=home, workspace=ws))


def _alive(pid: int, start: str) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    fields = stat.rsplit(") ", 1)[1].split()
    return fields[19] == start and fields[0] != "Z"


def test_quitting_neovim_ends_its_server(scripted_model, tmp_path, runtime):
    home, ws = workspace(tmp_path, scripted_model)
    pids = tmp_path / "pids.json"
    env = {
        "XDG_RUNTIME_DIR": str(runtime),
        "CODEX_NVIM_RUNTIME": str(runtime),
        "CODEX_NVIM_PIDS": str(pids),
    }

    check(run_suite("quit", tmp_path, codex_home=home, workspace=ws, env=env))

    held = json.loads(pids.read_text())
    deadline = time.monotonic() + 10
    while any(_alive(p["pid"], p["start"]) for p in held) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p["pid"] for p in held if _alive(p["pid"], p["start"])]
    assert not left, f"still running after Neovim quit: {left}"


PLAN_PATCH = "*** Begin Patch\n*** Add File: planned.txt\n+from the plan\n*** End Patch\n"
PROPOSED = "Here it is.\n<proposed_plan>\n1. Add planned.txt\n</proposed_plan>"


def _steps(first: str, second: str) -> dict[str, object]:
    return {
        "plan": [
            {"step": "Add planned.txt", "status": first},
            {"step": "Report", "status": second},
        ]
    }


def test_plan_mode_then_a_checklist_that_updates(scripted_model, tmp_path):
    home, ws = workspace(tmp_path, scripted_model, extra="[tools.update_plan]\nenabled = true\n")
    scripted_model.enqueue(custom_tool_call_response("apply_patch", PLAN_PATCH, call_id="p1"))
    scripted_model.enqueue(text_response(PROPOSED, response_id="r2"))
    for n, (first, second) in enumerate([("in_progress", "pending"), ("completed", "in_progress")]):
        scripted_model.enqueue(
            function_call_response(
                "update_plan", _steps(first, second), call_id=f"u{n}", response_id=f"ru{n}"
            )
        )
    scripted_model.enqueue(custom_tool_call_response("apply_patch", PLAN_PATCH, call_id="p2"))
    scripted_model.enqueue(text_response("Done.", response_id="r4"))

    check(run_suite("plan_mode", tmp_path, codex_home=home, workspace=ws))

    refused = tool_output(scripted_model.requests[1].body, "p1")
    assert "Plan mode is read-only" in refused
    assert (ws / "planned.txt").read_text() == "from the plan\n"


def test_denying_with_a_reason_tells_the_model(scripted_model, tmp_path):
    home, ws = workspace(tmp_path, scripted_model)
    call = {
        "cmd": "./build.sh",
        "workdir": str(ws),
        "sandbox_permissions": "require_escalated",
        "justification": "build",
    }
    scripted_model.enqueue(function_call_response("exec_command", call, call_id="c1"))
    scripted_model.enqueue(text_response("Using make.", response_id="r2"))

    check(run_suite("deny_reason", tmp_path, codex_home=home, workspace=ws))

    sent = scripted_model.requests[1].body
    assert (
        "declined" in tool_output(sent, "c1").lower()
        or "rejected" in tool_output(sent, "c1").lower()
    )
    assert "I declined that. use make instead, the script is stale" in user_texts(sent)


def test_a_long_reply_to_an_inline_edit_shows_whole(scripted_model, tmp_path):
    home, ws = workspace(tmp_path, scripted_model)
    lines = [f"Line {n} of the answer." for n in range(3, 31)]
    reply = 'It prints a greeting.\n\n```python\nprint("hi")\n```\n' + "\n".join(lines)
    scripted_model.enqueue(text_response(reply))

    check(run_suite("edit_reply", tmp_path, codex_home=home, workspace=ws))


GREETING = (
    "*** Begin Patch\n*** Update File: app.py\n@@ def main():\n"
    '-    print("hi")\n+    print("hello")\n*** End Patch'
)


def test_ga_in_the_chat_accepts_the_previewed_change(scripted_model, tmp_path):
    home, ws = workspace(tmp_path, scripted_model)
    scripted_model.enqueue(custom_tool_call_response("apply_patch", GREETING, call_id="p1"))
    scripted_model.enqueue(text_response("Changed.", response_id="r2"))

    check(run_suite("chat_accept", tmp_path, codex_home=home, workspace=ws))

    assert 'print("hello")' in (ws / "app.py").read_text()


def test_the_retry_note_ends_with_the_failed_turn(scripted_model, tmp_path):
    home, ws = workspace(tmp_path, scripted_model)  # nothing scripted: every request fails

    check(run_suite("failed_turn", tmp_path, codex_home=home, workspace=ws))


def test_a_message_sent_while_a_turn_runs_steers_it(scripted_model, tmp_path):
    home, ws = workspace(tmp_path, scripted_model)
    scripted_model.enqueue([{"stall_s": 30}])  # abandoned once the second message arrives
    scripted_model.enqueue(text_response("Answered both."))

    check(run_suite("steer", tmp_path, codex_home=home, workspace=ws))

    texts = user_texts(scripted_model.requests[-1].body)
    assert "first question" in texts and "and also this" in texts


def test_a_preview_near_the_bottom_is_scrolled_into_view(scripted_model, tmp_path):
    lines = [f"value_{n} = {n}\n" for n in range(1, 61)]
    home, ws = workspace(tmp_path, scripted_model, {"long.py": "".join(lines)})
    # The window of a 32-line screen ends at line 30: line 29 is replaced by six.
    new = "".join(f"+value_{c} = {n}\n" for n, c in enumerate("abcdef", start=1))
    patch = "*** Begin Patch\n*** Update File: long.py\n@@\n-value_29 = 29\n" + new
    scripted_model.enqueue(
        custom_tool_call_response("apply_patch", patch + "*** End Patch", call_id="p1")
    )
    scripted_model.enqueue(text_response("Left as it is.", response_id="r2"))

    check(run_suite("preview_view", tmp_path, codex_home=home, workspace=ws, screen=True))


def test_a_prompt_of_the_library_is_sent_with_its_argument(scripted_model, tmp_path):
    home, ws = workspace(tmp_path, scripted_model)
    scripted_model.enqueue(text_response("It prints hi."))

    check(run_suite("prompts", tmp_path, codex_home=home, workspace=ws))

    sent = user_texts(scripted_model.requests[-1].body)
    assert "Explain the main function to a newcomer,\nin three short sentences." in sent
