"""Real Emacs (Debian's emacs-nox with elpa-eglot and elpa-lsp-mode), headless, as a plain LSP
client of the real server with a scripted model: no shim, nothing but what the editor has.

Each test seeds the scripted model, runs one journey (`tests/emacs/*_journey.el`) in
`emacs --batch`, fails with its output when it exits non-zero, and checks what the model was
told. `scripts/setup-editors` installs the packages.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.engine import make_git_repo, write_config
from tests.support.scripted_builders import (
    custom_tool_call_response,
    function_call_response,
    text_response,
)

HERE = Path(__file__).parent
REPO = HERE.parents[1]
RUN_TIMEOUT_S = 300


def _emacs() -> str:
    emacs = shutil.which("emacs")
    eglot = Path("/usr/share/emacs/site-lisp/elpa")
    if emacs is None or not any(eglot.glob("eglot-*")):
        pytest.fail("emacs-nox and elpa-eglot are not installed: run scripts/setup-editors")
    return emacs


def _run(journey: str, tmp: Path, home: Path, ws: Path) -> subprocess.CompletedProcess[str]:
    user_home = tmp / "user-home"
    user_home.mkdir(exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(user_home),
        "LANG": "C.UTF-8",
        "CODEX_HOME": str(home),
        "CODEX_EMACS_WS": str(ws),
        "CODEX_EMACS_SERVER_CMD": json.dumps([sys.executable, "-m", "codex_lsp", "serve"]),
        "PYTHONPATH": str(REPO),
    }
    argv = [_emacs(), "--batch", "-l", str(HERE / "helpers.el"), "-l", str(HERE / journey)]
    return subprocess.run(
        argv,
        cwd=str(ws),
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )


def _check(run: subprocess.CompletedProcess[str]) -> None:
    report = f"exit {run.returncode}\n--- stdout\n{run.stdout}\n--- stderr\n{run.stderr}"
    assert run.returncode == 0 and "PASS " in run.stdout, report


def _replace(path: str, old: str, new: str, n: int) -> list:
    patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n-{old}\n+{new}\n*** End Patch"
    return custom_tool_call_response(
        "apply_patch", patch, call_id=f"call_patch_{n}", response_id=f"resp_patch_{n}"
    )


def _outputs(scripted_model) -> list[str]:
    body = scripted_model.requests[-1].body
    return [str(i["output"]) for i in body["input"] if str(i.get("type", "")).endswith("_output")]


def test_eglot_asks_approves_and_finds_every_patch_on_disk(scripted_model, tmp_path):
    home = tmp_path / "codex-home"
    write_config(home, scripted_model.base_url)
    ws = make_git_repo(tmp_path / "ws", {"app.py": "x0 = 0\nx1 = 1\n", "lib.py": "LIB = 1\n"})
    scripted_model.enqueue(_replace("app.py", "x0 = 0", "x0 = 10", 0))
    scripted_model.enqueue(_replace("app.py", "x1 = 1", "x1 = 11", 1))
    scripted_model.enqueue(_replace("lib.py", "LIB = 1", "LIB = 2", 2))
    scripted_model.enqueue(
        function_call_response(
            "exec_command",
            {
                "cmd": "cat app.py lib.py",
                "workdir": str(ws),
                "sandbox_permissions": "require_escalated",
                "justification": "to check both files",
            },
            call_id="call_cat",
            response_id="resp_cat",
        )
    )
    scripted_model.enqueue(text_response("Checked both files.", response_id="resp_done"))

    _check(_run("eglot_journey.el", tmp_path, home, ws))

    outputs = _outputs(scripted_model)
    assert all("Success" in out for out in outputs[:3]), outputs
    assert "x0 = 10\nx1 = 11\nLIB = 2" in outputs[3], "the command read the patched files"


def test_lsp_mode_gets_the_answer_without_a_warning_per_delta(scripted_model, tmp_path):
    home = tmp_path / "codex-home"
    write_config(home, scripted_model.base_url)
    ws = make_git_repo(tmp_path / "ws", {"app.py": "x0 = 0\nx1 = 1\n"})
    scripted_model.enqueue(
        function_call_response(
            "exec_command",
            {
                "cmd": "cat app.py",
                "workdir": str(ws),
                "sandbox_permissions": "require_escalated",
                "justification": "to read the file",
            },
            call_id="call_cat",
            response_id="resp_cat",
        )
    )
    answer = "The file sets x0 and x1 " + "and says nothing else " * 20
    scripted_model.enqueue(text_response(answer.strip(), response_id="resp_done"))

    _check(_run("lspmode_journey.el", tmp_path, home, ws))

    assert "x0 = 0\nx1 = 1" in _outputs(scripted_model)[0], "the approved command ran"


DIVIDE = 'def main():\n    print("hi")\n\n\ndef divide(a, b):\n    return a / b\n\n\nmain()\n'
FIX_PATCH = (
    "*** Begin Patch\n"
    "*** Update File: app.py\n"
    "@@ def divide(a, b):\n"
    "-    return a / b\n"
    "+    if b == 0:\n"
    '+        raise ValueError("b must not be zero")\n'
    "+    return a / b\n"
    "*** End Patch"
)


def test_eglot_shows_review_findings_in_flymake_and_fixes_one(scripted_model, tmp_path):
    home = tmp_path / "codex-home"
    write_config(home, scripted_model.base_url)
    ws = make_git_repo(tmp_path / "ws", {"app.py": DIVIDE})
    app = str(ws / "app.py")
    findings = {
        "findings": [
            {
                "title": "[P1] Guard against division by zero",
                "body": "`divide(1, 0)` raises ZeroDivisionError.",
                "confidence_score": 0.9,
                "priority": 1,
                "code_location": {"absolute_file_path": app, "line_range": {"start": 5, "end": 6}},
            }
        ],
        "overall_correctness": "patch is incorrect",
        "overall_explanation": "One blocking bug.",
        "overall_confidence_score": 0.8,
    }
    scripted_model.enqueue(text_response(json.dumps(findings), response_id="review"))
    scripted_model.enqueue(custom_tool_call_response("apply_patch", FIX_PATCH, call_id="fix"))
    scripted_model.enqueue(text_response("Guarded the division.", response_id="resp_fix"))

    _check(_run("review_journey.el", tmp_path, home, ws))

    assert 'raise ValueError("b must not be zero")' in (ws / "app.py").read_text()
