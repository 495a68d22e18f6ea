"""`codex-lsp sandbox -- COMMAND`: a person runs any command under the agent's sandbox.

Run as a user runs it (a real process, the real launcher), in both sandbox modes: what the
command may write (the workspace, never outside it, never its protected `.git`, `.codex` and
`.agents`), whether it reaches the network, and that its exit status comes back.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.engine import write_config

PROTECTED = (".git", ".codex", ".agents")


def _sandbox(
    home: Path, ws: Path, mode: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "CODEX_HOME": str(home), **(env or {})}
    if mode == "landlock-only":
        environ["CODEX_LSP_SANDBOX_DISABLE"] = "mountns"
    return subprocess.run(
        [sys.executable, "-m", "codex_lsp", "sandbox", "-C", str(ws), *args],
        capture_output=True,
        text=True,
        env=environ,
        timeout=60,
        start_new_session=True,
    )


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    write_config(home, "http://127.0.0.1:9/v1", sandbox_mode="read-only")
    return home


def test_read_only_by_config_writes_nothing(home, ws, outside, mode):
    script = f"touch here.txt; touch {outside}/x.txt; echo survived; exit 5"
    done = _sandbox(home, ws, mode, "--", "sh", "-c", script)

    assert done.returncode == 5, done.stderr
    assert "survived" in done.stdout
    assert not (ws / "here.txt").exists() and not (outside / "x.txt").exists()


def test_workspace_write_writes_the_workspace_only(home, ws, outside, mode):
    for name in (".codex", ".agents", "src"):
        (ws / name).mkdir(exist_ok=True)
    attempts = [f"echo evil > {name}/planted" for name in PROTECTED]
    # In a folder of the workspace: with Landlock alone, its top level takes no new names.
    attempts += [f"echo evil >> {outside}/victim.txt", "echo made > src/made.txt"]
    done = _sandbox(home, ws, mode, "--full-auto", "--", "sh", "-c", "; ".join(attempts))

    assert (ws / "src" / "made.txt").read_text() == "made\n", done.stderr
    for name in PROTECTED:
        assert not (ws / name / "planted").exists(), name
    assert (outside / "victim.txt").read_text() == "original\n"


def test_network_follows_the_policy(home, ws, mode, network):
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    try:
        done = _sandbox(
            home,
            ws,
            mode,
            "-s",
            "workspace-write",
            "-c",
            f"sandbox_workspace_write.network_access={str(network).lower()}",
            "--",
            sys.executable,
            "-c",
            f"import socket; socket.create_connection(('127.0.0.1', {port}), 5); print('in')",
        )
    finally:
        listener.close()

    assert ("in" in done.stdout) is network, done.stderr


def test_danger_full_access_is_no_sandbox(home, ws, outside, mode):
    done = _sandbox(
        home, ws, mode, "-s", "danger-full-access", "--", "sh", "-c", f"echo x > {outside}/x"
    )

    assert done.returncode == 0, done.stderr
    assert (outside / "x").read_text() == "x\n"


def test_no_command_is_a_usage_error(home, ws, mode):
    done = _sandbox(home, ws, mode)
    assert done.returncode == 2 and "COMMAND" in done.stderr
