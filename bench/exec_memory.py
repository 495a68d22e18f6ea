"""Peak resident-memory growth of `run_exec` while a command prints 100 MB.

Each case runs in a fresh interpreter so one cannot inflate the other's high-water mark:
  ours  - `run_exec`, which keeps a bounded head and tail of the output;
  peer  - `subprocess.run(capture_output=True)`, the obvious way, which keeps everything.
Growth is the process's peak RSS (VmHWM) minus its RSS just before the command starts.
The budget for ours is +20 MB.

Usage: .venv/bin/python bench/exec_memory.py [--mb 100]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUDGET_MB = 20.0


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status (Linux only)")


def _command(mb: int) -> list[str]:
    return ["bash", "-c", f"yes 'some output line' | head -c {mb * 1_000_000}"]


def _run_case(case: str, mb: int) -> dict[str, float]:
    sys.path.insert(0, str(REPO))
    import anyio

    from codex_lsp.engine.exec import ExecParams, format_for_model, run_exec

    cwd = Path(tempfile.gettempdir())
    deltas = 0

    def on_output(_stream: str, _chunk: bytes) -> None:
        nonlocal deltas
        deltas += 1

    async def ours() -> int:
        out = await run_exec(
            ExecParams(argv=_command(mb), cwd=cwd, timeout_ms=600_000), on_output=on_output
        )
        format_for_model(out)
        return out.stdout.total_bytes

    # Warm up imports, the event loop and the child-watcher machinery before measuring.
    anyio.run(run_exec, ExecParams(argv=["true"], cwd=cwd))
    subprocess.run(["true"], capture_output=True, check=True)

    before_kb = _status_kb("VmRSS")
    started = time.perf_counter()
    if case == "ours":
        total = anyio.run(ours)
    else:
        total = len(subprocess.run(_command(mb), capture_output=True, check=True).stdout)
    elapsed = time.perf_counter() - started
    peak_kb = _status_kb("VmHWM")
    return {"growth_mb": (peak_kb - before_kb) / 1024, "bytes": total, "seconds": elapsed}


def _measure(case: str, mb: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--case", case, "--mb", str(mb)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100, help="megabytes the command prints")
    parser.add_argument("--case", choices=["ours", "peer"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(_run_case(args.case, args.mb)))
        return 0

    ours = _measure("ours", args.mb)
    peer = _measure("peer", args.mb)
    print(f"command prints {args.mb} MB")
    print(
        f"run_exec                          peak RSS growth {ours['growth_mb']:8.1f} MB"
        f"   ({ours['seconds']:.2f} s)"
    )
    print(
        f"subprocess.run(capture_output)    peak RSS growth {peer['growth_mb']:8.1f} MB"
        f"   ({peer['seconds']:.2f} s)"
    )
    ratio = ours["growth_mb"] / peer["growth_mb"] if peer["growth_mb"] > 0 else float("nan")
    print(f"ratio run_exec / subprocess.run: {ratio:.3f}")
    within = ours["growth_mb"] <= BUDGET_MB
    print(f"budget +{BUDGET_MB:.0f} MB: {'ok' if within else 'EXCEEDED'}")
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())
