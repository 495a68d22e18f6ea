"""Latency the engine adds between an SSE delta arriving and its event on the Event Queue.

The scripted model server (same process, real HTTP on 127.0.0.1) stamps each
`response.output_text.delta` with the moment it writes it; the bench reads events off the
queue and subtracts. What it reports is an upper bound on the engine's own cost: it includes
loopback transit and the HTTP client. Budget: p95 under 1 ms.

    .venv/bin/python bench/engine_delta_latency.py [--deltas 2000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.engine import running_engine, write_config
from tests.support.scripted_model import ScriptedModelServer

BUDGET_MS = 1.0


def stamped_script(count: int, pause_s: float) -> list[dict]:
    """A response whose deltas carry the server's send time; paced so nothing queues up."""
    steps: list[dict] = [{"sse": {"type": "response.created", "response": {"id": "r"}}}]
    for index in range(count):
        steps.append({"stall_s": pause_s})
        steps.append({"stamp_delta": index})
    steps.append({"sse": {"type": "response.completed", "response": {"id": "r"}}})
    return steps


async def measure(count: int, pause_s: float) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp, ScriptedModelServer() as server:
        home = Path(tmp) / "home"
        write_config(home, server.base_url)
        server.enqueue(stamped_script(count, pause_s))
        latencies: list[float] = []
        async with running_engine(home) as engine:
            await engine.configure(cwd=tmp, ephemeral=True)
            await engine.send("go")
            while True:
                event = await engine.codex.next_event()
                received = time.perf_counter_ns()
                kind = event.msg.type
                if kind == "agent_message_delta":
                    sent = int(event.msg.delta.split(":", 1)[1])
                    latencies.append((received - sent) / 1e6)
                elif kind in ("task_complete", "error"):
                    return latencies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=2000)
    parser.add_argument("--pause-ms", type=float, default=1.0)
    args = parser.parse_args()
    latencies = anyio.run(measure, args.deltas, args.pause_ms / 1000)
    latencies.sort()
    p50 = statistics.median(latencies)
    p95 = latencies[int(len(latencies) * 0.95) - 1]
    print(f"deltas measured: {len(latencies)}")
    print(f"SSE delta -> event queue latency: p50 {p50:.3f} ms, p95 {p95:.3f} ms")
    print(f"p95 / budget ({BUDGET_MS} ms): {p95 / BUDGET_MS:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
