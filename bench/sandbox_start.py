"""How much the Linux sandbox adds to starting a command.

Runs `true` N times directly and N times through `wrap_command` (workspace-write,
network off, cwd a fresh git repository) and prints the medians and the difference.
The budget is < 30 ms added.

    .venv/bin/python bench/sandbox_start.py [--runs 50] [--policy workspace-write|read-only]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from codex_lsp.protocol.policy import ReadOnly, WorkspaceWrite
from codex_lsp.sandbox import wrap_command

BUDGET_MS = 30.0


def median_ms(argv: list[str], env: dict[str, str], cwd: str, runs: int) -> float:
    """Median wall time of `runs` start-to-exit runs of `argv`, in milliseconds."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, env=env, cwd=cwd, check=True)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument(
        "--policy", choices=("workspace-write", "read-only"), default="workspace-write"
    )
    args = parser.parse_args()

    workspace = tempfile.mkdtemp(prefix="sandbox-bench-")
    try:
        subprocess.run(["git", "init", "-q", workspace], check=True)
        policy = WorkspaceWrite() if args.policy == "workspace-write" else ReadOnly()
        env = dict(os.environ)
        true = shutil.which("true") or "/bin/true"
        wrapped, wrapped_env = wrap_command([true], policy, workspace, env)
        # One untimed run each so caches (page cache, .pyc files) are warm for both.
        subprocess.run([true], env=env, cwd=workspace, check=True)
        subprocess.run(wrapped, env=wrapped_env, cwd=workspace, check=True)
        plain = median_ms([true], env, workspace, args.runs)
        boxed = median_ms(wrapped, wrapped_env, workspace, args.runs)
    finally:
        shutil.rmtree(workspace, ignore_errors=True)

    diff = boxed - plain
    print(f"policy: {args.policy}, network off, {args.runs} runs of `true`")
    print(f"without sandbox: median {plain:7.2f} ms")
    print(f"with sandbox:    median {boxed:7.2f} ms")
    verdict = "within" if diff < BUDGET_MS else "OVER"
    print(f"added by sandbox: {diff:6.2f} ms ({verdict} the {BUDGET_MS:.0f} ms budget)")


if __name__ == "__main__":
    main()
