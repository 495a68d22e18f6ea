"""What the Neovim plugin adds to Neovim's start-up when it is loaded but idle.

Runs `nvim --headless --startuptime FILE +qa` with an init that loads the plugin and calls
`setup()` with its defaults (a file is not opened, so no server starts), and with an init that
does not, interleaved, and reads the time to "NVIM STARTED" from each log. Printed: the median
of each in ms, the difference and the ratio. Budget: the difference within 5 ms.

    .venv/bin/python bench/nvim_startup.py [--runs 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PLUGIN = REPO / "editors" / "neovim"
BUDGET_MS = 5.0
SERVER = str(Path(sys.executable).parent / "codex-lsp")

WITH_PLUGIN = f"""
vim.opt.runtimepath:prepend({str(PLUGIN)!r})
vim.cmd("runtime plugin/codex.lua")
require("codex").setup({{ cmd = {{ {SERVER!r}, "serve" }} }})
"""
WITHOUT = "-- the same Neovim, nothing loaded\n"


def started_ms(log: Path) -> float:
    for line in log.read_text().splitlines():
        if "NVIM STARTED" in line:
            return float(line.split()[0])
    raise RuntimeError(f"no NVIM STARTED line in {log}")


def one_run(nvim: str, init: Path, tmp: Path) -> float:
    log = tmp / "startup.log"
    log.unlink(missing_ok=True)
    env = {**os.environ}
    for key in ("CONFIG", "DATA", "STATE", "CACHE"):
        env[f"XDG_{key}_HOME"] = str(tmp / key.lower())
    subprocess.run(
        [nvim, "--headless", "-u", str(init), "-i", "NONE", "--startuptime", str(log), "+qa!"],
        env=env,
        cwd=str(tmp),
        check=True,
        timeout=60,
        capture_output=True,
    )
    return started_ms(log)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from tests.support.nvim import find_nvim

    nvim = find_nvim()
    with tempfile.TemporaryDirectory(prefix="codex-nvim-bench-") as name:
        tmp = Path(name)
        inits = {"with": tmp / "with.lua", "without": tmp / "without.lua"}
        inits["with"].write_text(WITH_PLUGIN)
        inits["without"].write_text(WITHOUT)
        times: dict[str, list[float]] = {"with": [], "without": []}
        one_run(nvim, inits["with"], tmp)  # warm the disk cache and the help tags
        for _ in range(args.runs):
            for which in ("without", "with"):
                times[which].append(one_run(nvim, inits[which], tmp))
    with_ms = statistics.median(times["with"])
    without_ms = statistics.median(times["without"])
    print(f"runs: {args.runs} each, interleaved")
    print(f"neovim alone:          {without_ms:7.2f} ms (median to NVIM STARTED)")
    print(f"with codex.nvim idle:  {with_ms:7.2f} ms")
    print(f"difference:            {with_ms - without_ms:7.2f} ms (budget {BUDGET_MS:.0f} ms)")
    print(f"ratio:                 {with_ms / without_ms:7.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
