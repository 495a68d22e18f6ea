"""Escape 8: metadata changes outside the roots when only Landlock is available.

Without a mount namespace (unprivileged user namespaces disabled), `chmod`, `chown`,
`utime` and `setxattr` on files outside the roots succeeded: Landlock does not mediate
metadata. Those calls are now refused outright in that mode (the filter cannot tell
inside from outside), the session says so up front, and a user can opt back in.
`CODEX_LSP_SANDBOX_DISABLE=mountns` forces the mode on any machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from codex_lsp.sandbox import SandboxOptions
from tests.sandbox.helpers import PY, run
from tests.support.engine import make_git_repo, write_config
from tests.support.scripted_builders import function_call_response, text_response

META = r"""
import os, sys
for path in sys.argv[1:]:
    for label, change in (
        ("chmod", lambda: os.chmod(path, 0o777)),
        ("chown", lambda: os.chown(path, os.getuid(), os.getgid())),
        ("utime", lambda: os.utime(path, (0, 0))),
        ("setxattr", lambda: os.setxattr(path, "user.codex", b"1")),
    ):
        try:
            change()
            print(label, path, "changed")
        except OSError as exc:
            print(label, path, "refused:", exc.strerror)
"""


def _metadata(path: Path) -> tuple[int, int, float, list[str]]:
    info = path.stat()
    return info.st_mode, info.st_uid, info.st_mtime, os.listxattr(path)


def test_metadata_outside_the_roots_cannot_change(ws: Path, outside: Path, mode: str) -> None:
    victim = outside / "victim.txt"
    before = _metadata(victim)
    result = run([PY, "-c", META, str(victim)], ws, mode)
    assert "changed" not in result.output, result.output
    assert result.output.count("refused") == 4
    assert _metadata(victim) == before


def test_the_opt_in_allows_metadata_changes_again(ws: Path) -> None:
    own = ws / "src" / "tool.sh"
    own.write_text("#!/bin/sh\n")
    opt_in = SandboxOptions(fallback_metadata_changes=True)
    refused = run(f"chmod +x {own}", ws, "landlock-only")
    assert "Operation not permitted" in refused.output
    allowed = run(f"chmod +x {own}", ws, "landlock-only", options=opt_in)
    assert allowed.code == 0, allowed.output
    assert os.access(own, os.X_OK)


def test_the_session_says_why_up_front(scripted_model, tmp_path: Path) -> None:
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws", {"a.txt": "a\n"})
    write_config(home, scripted_model.base_url, approval_policy="never")
    scripted_model.enqueue(
        function_call_response("exec_command", {"cmd": "chmod +x a.txt"}, call_id="c1")
    )
    scripted_model.enqueue(text_response("done"))
    env = {**os.environ, "CODEX_HOME": str(home), "CODEX_LSP_SANDBOX_DISABLE": "mountns"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "codex_lsp",
            "exec",
            "--raw-events",
            "-C",
            str(ws),
            "make it runnable",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    events = [json.loads(line)["msg"] for line in done.stdout.splitlines()]
    kinds = [event["type"] for event in events]
    warnings = [event["message"] for event in events if event["type"] == "warning"]
    assert len(warnings) == 1, (warnings, done.stderr)
    assert "no private mount namespace" in warnings[0]
    assert "fallback_metadata_changes" in warnings[0]
    assert kinds.index("warning") < kinds.index("task_started")
    assert not os.access(ws / "a.txt", os.X_OK)
    ran = json.dumps(scripted_model.requests[-1].body)
    assert "Operation not permitted" in ran, ran[-2000:]
