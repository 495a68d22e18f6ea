"""Scale on one machine, as curves: concurrent streams, long threads, big files, many rollouts.

Run as part of `bench/compare.py` (or alone: `.venv/bin/python bench/compare.py --only scale`).

- Concurrent streams: 1, 2, 4 and 8 threads streaming at once in one server, each paced 2 ms
  per delta; p95 delta latency over all of them. Ours over LSP from the warm server (what an
  editor uses), beside the real `codex app-server`. Budget: at 8 threads, p95 <= 2x the
  figure for 1 thread.
- Resume: `thread/resume` of a thread of 1,000 to 50,000 response items (shell calls with
  1-2 KB outputs, reasoning, answers), request to answer over LSP. Budget: 50,000 under 1 s.
- Patch: one apply_patch of three hunks in a file of 64 KiB to 4 MiB, as the engine runs it
  (parse and verify, the file change with its diff, the write). Budget: 1 MiB under 100 ms.
- List: the first page of `thread/list` over 1,000 and 10,000 rollouts, over LSP.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.doors import Door, Session, WarmServer, doors, stamped, write_home
from bench.report import Budget, percentile, print_budgets, ratio
from bench.thread_resume import write_thread
from codex_lsp.engine.patch import DiskFiles, apply_plan, plan_patch
from codex_lsp.store.synthetic import populate_sessions
from tests.support.scripted_model import ScriptedModelServer

STREAMS = (1, 2, 4, 8)
STREAM_DELTAS = 300
STREAM_PAUSE_S = 0.002
RESUME_ITEMS = (1_000, 10_000, 50_000)
PATCH_SIZES = (64 << 10, 256 << 10, 1 << 20, 4 << 20)
LIST_SIZES = (1_000, 10_000)


def _chosen_doors(peer: Path) -> list[Door]:
    by_name = {door.name: door for door in doors(peer)}
    return [by_name["codex app-server"], by_name["serve, warm"]]


def _env(door: Door, home: Path, warm: WarmServer) -> dict[str, str]:
    env = {**os.environ, "CODEX_HOME": str(home), "RUST_LOG": "error"}
    return {**env, **warm.env} if door.warm else env


# -- concurrent streams ----------------------------------------------------------------------


def concurrent_p95(
    session: Session, threads: list[str], model: ScriptedModelServer, tag: str
) -> float:
    """Stream a paced turn on each of `threads` at once; p95 latency (ms) over every delta."""
    door = session.door
    for index, _ in enumerate(threads):
        model.enqueue(stamped(STREAM_DELTAS, STREAM_PAUSE_S), when=f"{tag}-{index}")
    for index, thread_id in enumerate(threads):
        text = f"{tag}-{index}"
        session.send(
            "turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": text}]}
        )
    latencies: list[float] = []
    running = len(threads)
    delta, completed = door.method("item/agentMessage/delta"), door.method("turn/completed")
    while running:
        arrival = session.next()
        method = arrival.message.get("method")
        if method == delta:
            stamp = int(arrival.message["params"]["delta"].split(":", 1)[1])
            latencies.append((arrival.at_ns - stamp) / 1e6)
        elif method == completed:
            running -= 1
        elif "error" in arrival.message:
            raise RuntimeError(f"{door.name}: {arrival.message['error']}")
    return percentile(latencies, 0.95)


def stream_curves(
    peer: Path, model: ScriptedModelServer, warm: WarmServer, workdir: Path, reps: int
) -> dict[str, dict[int, float]]:
    curves: dict[str, dict[int, float]] = {}
    for door in _chosen_doors(peer):
        home = write_home(model.base_url, workdir)
        session = Session(door, _env(door, home, warm), home / "work")
        try:
            session.initialize()
            threads = [
                session.call("thread/start", {"cwd": str(home / "work")}).message["result"][
                    "thread"
                ]["id"]
                for _ in range(max(STREAMS))
            ]
            concurrent_p95(session, threads[:1], model, f"{door.name}-warmup")
            samples: dict[int, list[float]] = {count: [] for count in STREAMS}
            for rep in range(reps):
                for count in STREAMS:
                    tag = f"{door.name}-{count}-{rep}"
                    samples[count].append(concurrent_p95(session, threads[:count], model, tag))
        finally:
            session.close()
        curves[door.name] = {count: statistics.median(s) for count, s in samples.items()}
    return curves


# -- resume and list over LSP ----------------------------------------------------------------


def _timed_call(session: Session, method: str, params: dict[str, object]) -> float:
    sent = time.perf_counter_ns()
    arrival = session.call(method, params)
    return (arrival.at_ns - sent) / 1e6


def resume_curve(
    door: Door, model: ScriptedModelServer, warm: WarmServer, workdir: Path, reps: int
) -> dict[int, float]:
    curve: dict[int, float] = {}
    for items in RESUME_ITEMS:
        home = write_home(model.base_url, workdir)
        path, _ = write_thread(home, items, cwd=str(home / "work"))
        thread_id = path.stem[-36:]
        samples = []
        for _ in range(reps):
            # A fresh session each time: a thread already loaded would not be read again.
            session = Session(door, _env(door, home, warm), home / "work")
            try:
                session.initialize()
                samples.append(_timed_call(session, "thread/resume", {"threadId": thread_id}))
            finally:
                session.close()
        curve[items] = statistics.median(samples)
        shutil.rmtree(home, ignore_errors=True)
    return curve


def list_curves(
    peer: Path, model: ScriptedModelServer, warm: WarmServer, workdir: Path, reps: int
) -> dict[str, dict[int, float]]:
    curves: dict[str, dict[int, float]] = {door.name: {} for door in _chosen_doors(peer)}
    for count in LIST_SIZES:
        home = write_home(model.base_url, workdir)
        populate_sessions(home, count, per_day=100)
        for door in _chosen_doors(peer):
            session = Session(door, _env(door, home, warm), home / "work")
            try:
                session.initialize()
                _timed_call(session, "thread/list", {"limit": 25})  # the page cache filled
                curves[door.name][count] = statistics.median(
                    _timed_call(session, "thread/list", {"limit": 25}) for _ in range(reps)
                )
            except RuntimeError as err:
                print(f"  {door.name}: thread/list failed: {err}")
                curves[door.name][count] = float("nan")
            finally:
                session.close()
        shutil.rmtree(home, ignore_errors=True)
    return curves


# -- patch -----------------------------------------------------------------------------------


def _big_file(size: int) -> str:
    lines = []
    total = 0
    number = 0
    while total < size:
        line = f"    value_{number} = compute({number}, scale=0.5)  # line {number}\n"
        lines.append(line)
        total += len(line)
        number += 1
    return "".join(lines)


def _patch_for(text: str, name: str) -> str:
    """Three one-line changes: near the start, the middle and the end."""
    lines = text.splitlines()
    hunks = []
    for at in (10, len(lines) // 2, len(lines) - 10):
        old = lines[at]
        hunks.append(f"@@\n {lines[at - 1]}\n-{old}\n+{old}  # changed\n {lines[at + 1]}")
    return f"*** Begin Patch\n*** Update File: {name}\n" + "\n".join(hunks) + "\n*** End Patch"


def patch_ms(workdir: Path, size: int, reps: int) -> float:
    folder = workdir / f"patch-{size}"
    folder.mkdir()
    original = _big_file(size)
    target = folder / "big.py"
    patch = _patch_for(original, "big.py")

    def once() -> float:
        target.write_text(original)
        started = time.perf_counter()
        plan = plan_patch(patch, folder, DiskFiles())
        plan.changes()  # the file change with its unified diff, as the turn reports it
        apply_plan(plan)
        return (time.perf_counter() - started) * 1000

    once()
    result = statistics.median(once() for _ in range(reps))
    assert "# changed" in target.read_text()
    shutil.rmtree(folder)
    return result


# -- the section -----------------------------------------------------------------------------


def _curve(name: str, curve: dict[int, float], unit: str = "ms") -> str:
    points = ", ".join(f"{x:,}: {y:.2f}" for x, y in curve.items())
    return f"  {name:22} {points} ({unit})"


def run_scale(peer: Path, workdir: Path, reps: int) -> bool:
    warm = WarmServer()
    try:
        with ScriptedModelServer() as model:
            # The warm server's first launcher is served in-process while the server starts.
            starter = write_home(model.base_url, workdir)
            serve_warm = _chosen_doors(peer)[1]
            first = Session(serve_warm, _env(serve_warm, starter, warm), starter / "work")
            first.initialize()
            first.close()
            warm.wait_ready()

            print("concurrent streams: p95 delta latency (ms) by number of threads streaming")
            streams = stream_curves(peer, model, warm, workdir, reps)
            for name, curve in streams.items():
                print(_curve(name, curve))
            print("thread/resume over LSP (serve, warm): ms by response items in the thread")
            resume = resume_curve(serve_warm, model, warm, workdir, max(reps // 2, 2))
            print(_curve("serve, warm", resume))
            print("thread/list, first page of 25 (ms) by rollouts in CODEX_HOME")
            listing = list_curves(peer, model, warm, workdir, reps)
            for name, curve in listing.items():
                print(_curve(name, curve))
            ours_list = listing["serve, warm"]
            peer_list = listing["codex app-server"]
            print(
                "  ratio to the peer: "
                + ", ".join(f"{n:,}: {ratio(ours_list[n], peer_list[n]):.2f}x" for n in LIST_SIZES)
            )
    finally:
        warm.stop()
    print("apply_patch, three hunks (ms) by file size in bytes")
    patches = {size: patch_ms(workdir, size, reps) for size in PATCH_SIZES}
    print(_curve("engine", patches))

    ours = streams["serve, warm"]
    theirs = streams["codex app-server"]
    print(f"  the peer's 8-thread p95 over its 1-thread p95: {ratio(theirs[8], theirs[1]):.2f}x")

    def stream_ratio() -> float:
        return ratio(ours[8], ours[1])

    print("\nbudgets:")
    return print_budgets(
        [
            Budget(
                "8 concurrent streams: p95 / the 1-stream p95 (serve, warm)",
                stream_ratio,
                "<=",
                2.0,
            ),
            Budget(
                "thread/resume of 50,000 items (serve, warm)",
                lambda: resume[50_000],
                "<",
                1000,
                "ms",
            ),
            Budget("apply_patch in a 1 MiB file", lambda: patches[1 << 20], "<", 100, "ms"),
        ]
    )
