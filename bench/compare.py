"""Every door of codex-lsp side by side with the real `codex app-server`, in one interleaved run.

    .venv/bin/python bench/compare.py [--reps 5] [--deltas 1000] [--only doors|scale]

The doors: the real `codex app-server` 0.171.0 (the peer, `--peer PATH`; the test set-up
installs it), and ours: `app-server` and `serve` started cold (`python -m codex_lsp ...`, every
start imports everything), and both started warm from the per-user server (`python -I -S
attach.py app-server|serve`, the command the editor shims spawn). Each repetition starts every
door once, in a rotating order, so a change in the machine's load hits them all alike; each
figure is the median over the repetitions, and each ratio is ours / the peer's in the same run.

Per session, against one scripted Responses-API server in this process:
- spawn -> `initialize` answer, and spawn -> first `thread/start` answer;
- the wait for `thread/start`'s answer when it is sent 1 s after the `initialize` answer (in a
  session of its own), as an editor whose user takes a second to type sees it;
- `turn/start` -> the first `item/agentMessage/delta` (over LSP: `codex/item/...`);
- p50/p95 latency from an SSE delta being written to its notification arriving (paced 1 ms);
- deltas per second when the model streams as fast as it can;
- memory per client: peak RSS of a process of its own, proportional set size of a session
  forked from the warm server (shared pages split with it and the other sessions).

Then the scale curves (`bench/scale.py`) and the budgets, each marked met or OVER.

Conditions that move the absolute figures (printed at the top): the load average (the figures
hold best on a quiet machine; the ratios hold better than the figures under load), CPUs,
whether codex-lsp is an editable install (its import hook costs every cold start of ours tens of
milliseconds that an installed wheel does not pay), and whether httpx's command-line extras
(rich, pygments: development tools bring them) are installed, which httpx imports with itself.
Byte-code is compiled first, as an install would have it.
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.doors import REPO, Door, Session, WarmServer, default_peer, doors, stamped, write_home
from bench.report import Budget, percentile, print_budgets, ratio
from bench.scale import run_scale
from tests.support.scripted_model import ScriptedModelServer

PEER_NAME = "codex app-server"
METRICS: list[tuple[str, str, bool]] = [
    # (label, key, lower is better)
    ("spawn -> initialize answer (ms)", "initialize_ms", True),
    ("spawn -> thread/start answer (ms)", "thread_start_ms", True),
    ("thread/start 1 s after initialize (ms)", "paused_thread_start_ms", True),
    ("turn/start -> first delta (ms)", "first_delta_ms", True),
    ("delta latency p50 (ms)", "p50_ms", True),
    ("delta latency p95 (ms)", "p95_ms", True),
    ("deltas per second", "deltas_per_s", False),
    ("memory per client (MB)", "memory_mb", True),
]


def stream_turn(session: Session, thread_id: str, text: str) -> tuple[list[float], float, float]:
    """Run a turn; its delta latencies (ms), turn/start -> first delta (ms), deltas per second."""
    door = session.door
    delta_method = door.method("item/agentMessage/delta")
    completed = door.method("turn/completed")
    sent = time.perf_counter_ns()
    session.send("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": text}]})
    latencies: list[float] = []
    first = last = 0
    while True:
        arrival = session.next()
        message = arrival.message
        method = message.get("method")
        if method == delta_method:
            stamp = int(message["params"]["delta"].split(":", 1)[1])
            latencies.append((arrival.at_ns - stamp) / 1e6)
            first = first or arrival.at_ns
            last = arrival.at_ns
        elif method == completed:
            break
        elif "error" in message:
            raise RuntimeError(f"{door.name}: {message['error']}")
    rate = (len(latencies) - 1) / ((last - first) / 1e9) if last > first else 0.0
    return latencies, (first - sent) / 1e6, rate


def measure(
    door: Door, home: Path, env: dict[str, str], model: ScriptedModelServer, tag: str, deltas: int
) -> dict[str, float]:
    """One session of `door`: every figure of `METRICS`."""
    session = Session(door, env, home / "work")
    try:
        initialized = session.initialize()
        thread = session.call("thread/start", {"cwd": str(home / "work")})
        thread_id = thread.message["result"]["thread"]["id"]
        model.enqueue(stamped(deltas, 0.001), when=f"{tag}-paced")
        latencies, first_delta_ms, _ = stream_turn(session, thread_id, f"{tag}-paced")
        model.enqueue(stamped(deltas * 5, 0.0), when=f"{tag}-fast")
        _, _, rate = stream_turn(session, thread_id, f"{tag}-fast")
        memory = session.memory_mb()
    finally:
        session.close()
    return {
        "initialize_ms": (initialized - session.started_ns) / 1e6,
        "thread_start_ms": (thread.at_ns - session.started_ns) / 1e6,
        "first_delta_ms": first_delta_ms,
        "p50_ms": percentile(latencies, 0.50),
        "p95_ms": percentile(latencies, 0.95),
        "deltas_per_s": rate,
        "memory_mb": memory,
    }


PAUSE_S = 1.0


def measure_after_pause(door: Door, home: Path, env: dict[str, str]) -> float:
    """A session whose client pauses `PAUSE_S` after the `initialize` answer, then starts a
    thread: the wait for that answer (ms)."""
    session = Session(door, env, home / "work")
    try:
        session.initialize()
        time.sleep(PAUSE_S)
        sent = time.perf_counter_ns()
        answer = session.call("thread/start", {"cwd": str(home / "work")})
    finally:
        session.close()
    return (answer.at_ns - sent) / 1e6


def compare_doors(peer: Path, reps: int, deltas: int, workdir: Path) -> dict[str, dict[str, float]]:
    """Medians of every metric, per door."""
    every = doors(peer)
    samples: dict[str, list[dict[str, float]]] = {door.name: [] for door in every}
    warm = WarmServer()
    try:
        with ScriptedModelServer() as model:
            homes = {door.name: write_home(model.base_url, workdir) for door in every}

            def env(door: Door) -> dict[str, str]:
                base = {**os.environ, "CODEX_HOME": str(homes[door.name]), "RUST_LOG": "error"}
                return {**base, **warm.env} if door.warm else base

            # A first, unmeasured session of each: disk caches filled, the warm server started
            # (its first launcher is served in-process while it starts).
            for door in every:
                measure(door, homes[door.name], env(door), model, f"{door.name}-warmup", 50)
            warm.wait_ready()
            for door in every:
                if door.warm:  # now forked from the warm server
                    measure(door, homes[door.name], env(door), model, f"{door.name}-warmup2", 50)
            for rep in range(reps):
                order = every[rep % len(every) :] + every[: rep % len(every)]
                for door in order:
                    tag = f"{door.name}-{rep}"
                    figures = measure(door, homes[door.name], env(door), model, tag, deltas)
                    figures["paused_thread_start_ms"] = measure_after_pause(
                        door, homes[door.name], env(door)
                    )
                    samples[door.name].append(figures)
    finally:
        warm.stop()
    return {
        name: {key: statistics.median(s[key] for s in runs) for _, key, _ in METRICS}
        for name, runs in samples.items()
    }


def print_doors(medians: dict[str, dict[str, float]]) -> None:
    names = list(medians)
    width = max(len(label) for label, _, _ in METRICS) + 2
    print(f"{'':{width}}" + "".join(f"{name:>21}" for name in names))
    peer = medians[PEER_NAME]
    for label, key, _ in METRICS:
        print(f"{label:{width}}" + "".join(f"{medians[n][key]:>21.2f}" for n in names))
        ratios = "".join(f"{ratio(medians[n][key], peer[key]):>20.2f}x" for n in names)
        print(f"{'  ratio to the peer':{width}}" + ratios)


def door_budgets(medians: dict[str, dict[str, float]]) -> list[Budget]:
    """The budgets between doors: ratios to the peer in this run."""
    peer = medians[PEER_NAME]
    warm, cold = medians["serve, warm"], medians["serve"]

    def to_peer(row: dict[str, float], key: str) -> Callable[[], float]:
        return lambda: ratio(row[key], peer[key])

    return [
        Budget(
            "spawn -> initialize, editors' default (serve, warm)",
            to_peer(warm, "initialize_ms"),
            "<=",
            1.0,
        ),
        Budget("spawn -> initialize, cold serve", to_peer(cold, "initialize_ms"), "<=", 4.0),
        Budget(
            "spawn -> first thread/start, warm (serve, warm)",
            to_peer(warm, "thread_start_ms"),
            "<=",
            1.0,
        ),
        Budget(
            "turn/start -> first delta over LSP (serve, warm)",
            to_peer(warm, "first_delta_ms"),
            "<=",
            1.0,
        ),
        Budget("delta p95 over LSP (serve, warm)", to_peer(warm, "p95_ms"), "<=", 0.8),
        Budget("deltas/s over LSP (serve, warm)", to_peer(warm, "deltas_per_s"), ">=", 1.5),
        Budget("memory per client, PSS (serve, warm)", to_peer(warm, "memory_mb"), "<=", 0.5),
    ]


def conditions(peer: Path) -> str:
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    editable = any(
        path.name.startswith("__editable__") and "codex_lsp" in path.name
        for entry in sys.path
        if entry.endswith("site-packages") and Path(entry).is_dir()
        for path in Path(entry).iterdir()
    )
    version = subprocess.run([str(peer), "--version"], capture_output=True, text=True).stdout
    # httpx imports its command line's modules when they are installed: here they come with
    # the development tools (import-linter, pytest), and a cold start of ours pays for them.
    extras = [name for name in ("rich", "pygments") if importlib.util.find_spec(name)]
    return (
        f"{platform.node()}: {os.cpu_count()} CPUs, load average {load}; "
        f"Python {platform.python_version()}; codex-lsp "
        f"{'editable install' if editable else 'installed'}; peer {version.strip()}"
        + (f"; httpx's CLI extras installed ({', '.join(extras)})" if extras else "")
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", type=Path, default=default_peer())
    parser.add_argument("--reps", type=int, default=5, help="sessions per door (default 5)")
    parser.add_argument("--deltas", type=int, default=1000, help="paced deltas per turn")
    parser.add_argument("--only", choices=("doors", "scale"), help="one part of the bench")
    args = parser.parse_args()
    if not args.peer.exists():
        print(f"peer not found at {args.peer}; run scripts/setup-editors", file=sys.stderr)
        return 2
    compileall.compile_dir(REPO / "codex_lsp", quiet=1)
    print(f"conditions: {conditions(args.peer)}")
    met = True
    with tempfile.TemporaryDirectory(prefix="bench-compare-", dir=Path.home() / ".cache") as tmp:
        if args.only in (None, "doors"):
            print(f"\n== doors: median of {args.reps} interleaved sessions each ==")
            medians = compare_doors(args.peer, args.reps, args.deltas, Path(tmp))
            print_doors(medians)
            print("\nbudgets (ratio to the peer, same run):")
            met &= print_budgets(door_budgets(medians))
        if args.only in (None, "scale"):
            print("\n== scale: one server ==")
            met &= run_scale(args.peer, Path(tmp), args.reps)
    print(f"\nconditions at the end: load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("every budget met" if met else "some budgets are OVER")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
