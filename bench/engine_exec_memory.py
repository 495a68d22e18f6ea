"""Resident memory of the whole engine while a command prints 100 MB.

The scripted model asks for `head -c 100000000 /dev/zero | tr '\\0' a`; the bench drains the
Event Queue as a UI would and samples this process's RSS. Budget: growth under +20 MB.

    .venv/bin/python bench/engine_exec_memory.py [--mb 100]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.engine import running_engine, write_config
from tests.support.scripted_builders import function_call_response, text_response
from tests.support.scripted_model import ScriptedModelServer

BUDGET_MB = 20.0


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def run(megabytes: int) -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory() as tmp, ScriptedModelServer() as server:
        home = Path(tmp) / "home"
        write_config(home, server.base_url, sandbox_mode="danger-full-access")
        command = f"head -c {megabytes * 1_000_000} /dev/zero | tr '\\0' a"
        server.enqueue(function_call_response("shell_command", {"command": command}))
        server.enqueue(text_response("done"))
        peak = [0.0]
        stop = threading.Event()

        def sample() -> None:
            while not stop.is_set():
                peak[0] = max(peak[0], rss_mb())
                time.sleep(0.005)

        async with running_engine(home) as engine:
            await engine.configure(cwd=tmp, ephemeral=True)
            baseline = rss_mb()
            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            deltas = 0
            await engine.send("print a lot")
            while True:
                event = await engine.codex.next_event()
                if event.msg.type == "exec_command_output_delta":
                    deltas += 1
                elif event.msg.type in ("task_complete", "error"):
                    break
            stop.set()
            sampler.join()
        return baseline, peak[0], deltas


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    args = parser.parse_args()
    baseline, peak, deltas = anyio.run(run, args.mb)
    growth = peak - baseline
    print(f"command output: {args.mb} MB in {deltas} output-delta events")
    print(f"engine RSS: baseline {baseline:.1f} MB, peak {peak:.1f} MB, growth {growth:.1f} MB")
    print(f"growth / budget ({BUDGET_MB} MB): {growth / BUDGET_MB:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
