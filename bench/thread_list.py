"""First-page latency of `list_threads` over 1k, 10k and 50k rollouts: the curve must stay flat.

  ours  - `list_threads(limit=25)`: walks year/month/day directories newest first and reads
          the heads of only the files the page needs;
  peer  - the obvious approach: `rglob` every rollout, sort them all by name, then read the
          heads of the first 25. Its cost grows with the number of files.

Rollouts are synthetic (same layout and line shapes as recorded ones), 100 per day directory.
Budget: ours under 100 ms at 10k, and no growth from 1k to 50k beyond noise.

    .venv/bin/python bench/thread_list.py [--sizes 1000,10000,50000] [--repeat 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from codex_lsp.store.rollout import parse_line
from codex_lsp.store.synthetic import populate_sessions
from codex_lsp.store.threads import list_threads

BUDGET_MS = 100.0
PAGE = 25


def naive_first_page(home: Path) -> list[str]:
    files = sorted((home / "sessions").rglob("rollout-*.jsonl"), key=lambda p: p.name)
    previews = []
    for path in reversed(files[-PAGE:]):
        with open(path, "rb") as handle:
            for raw in handle:
                line = parse_line(raw)
                if line and line.type == "event_msg" and line.payload.get("type") == "user_message":
                    previews.append(line.payload["message"])
                    break
    return previews


def timed_ms(function, repeat: int) -> tuple[float, float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples), max(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]

    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-thread-list-") as tmp:
        for size in sizes:
            home = Path(tmp) / f"home-{size}"
            start = time.perf_counter()
            populate_sessions(home, size, per_day=100)
            made_s = time.perf_counter() - start
            first = list_threads(home, limit=PAGE)  # also warms the page cache, like a 2nd call
            assert len(first.items) == PAGE and not first.warnings
            ours, ours_max = timed_ms(lambda home=home: list_threads(home, limit=PAGE), args.repeat)
            cursor = first.next_cursor
            second, _ = timed_ms(
                lambda home=home, cursor=cursor: list_threads(home, limit=PAGE, cursor=cursor),
                args.repeat,
            )
            peer, _ = timed_ms(lambda home=home: naive_first_page(home), max(args.repeat // 4, 3))
            rows.append((size, ours, ours_max, second, peer, made_s))

    print(f"first page of {PAGE} threads (median of {args.repeat} warm runs)")
    header = ("rollouts", "ours ms", "max ms", "page 2", "peer ms", "peer/ours")
    print("{:>9} {:>9} {:>8} {:>8} {:>9} {:>10}".format(*header))
    for size, ours, ours_max, second, peer, _made in rows:
        print(
            f"{size:>9} {ours:>9.2f} {ours_max:>8.2f} {second:>8.2f} {peer:>9.1f} "
            f"{peer / ours:>9.0f}x"
        )
    base = rows[0][1]
    growth = ", ".join(f"{size}: {ours / base:.2f}x" for size, ours, *_ in rows)
    print(f"ours relative to {rows[0][0]} rollouts: {growth}")
    at_10k = [ours for size, ours, *_ in rows if size == 10_000]
    if at_10k:
        verdict = "within" if at_10k[0] < BUDGET_MS else "OVER"
        print(f"budget: {at_10k[0]:.2f} ms at 10k, {verdict} the {BUDGET_MS:.0f} ms budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())
