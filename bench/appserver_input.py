"""How long the app-server takes to read and answer one very long line: 1, 10 and 50 MB.

Each line is a `thread/read` whose `threadId` is that long (answered with "thread not found"),
written in one go to the server's stdin. Printed per size: seconds to the answer and MB/s for
ours and for the real `codex app-server` (see `bench/appserver_compare.py`), then ours / peer.
Reading is linear when MB/s stays flat as the line grows. Budget: 50 MB under 5 s.

    .venv/bin/python bench/appserver_input.py [--peer PATH] [--sizes 1,10,50]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

DEFAULT_PEER = (
    Path.home() / ".cache/codex-peer/node_modules/@openai/codex-linux-x64/vendor"
    "/x86_64-unknown-linux-musl/bin/codex"
)
REPO = Path(__file__).resolve().parent.parent
OURS = [sys.executable, "-m", "codex_lsp", "app-server"]
BUDGET_S = 5.0


def answer_time(argv: list[str], megabytes: int) -> float:
    with tempfile.TemporaryDirectory(dir=Path.home() / ".cache") as home:
        env = {**os.environ, "CODEX_HOME": home, "PYTHONPATH": str(REPO), "RUST_LOG": "error"}
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=home,
        )
        assert proc.stdin is not None and proc.stdout is not None
        try:
            info = {"name": "bench", "title": "bench", "version": "1"}
            init = {"id": 1, "method": "initialize", "params": {"clientInfo": info}}
            proc.stdin.write(json.dumps(init).encode() + b"\n")
            proc.stdin.write(b'{"method":"initialized"}\n')
            proc.stdin.flush()
            proc.stdout.readline()
            # Load the API first, so only reading and answering the long line is timed.
            proc.stdin.write(b'{"id":2,"method":"thread/read","params":{"threadId":"x"}}\n')
            proc.stdin.flush()
            proc.stdout.readline()
            line = b'{"id":3,"method":"thread/read","params":{"threadId":"'
            line += b"y" * (megabytes * 1_000_000) + b'"}}\n'
            started = time.perf_counter()
            writer = threading.Thread(target=lambda: (proc.stdin.write(line), proc.stdin.flush()))
            writer.start()
            while json.loads(proc.stdout.readline()).get("id") != 3:
                pass
            elapsed = time.perf_counter() - started
            writer.join()
            return elapsed
        finally:
            proc.kill()
            proc.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--peer", type=Path, default=DEFAULT_PEER)
    parser.add_argument("--sizes", default="1,10,50")
    args = parser.parse_args()
    largest = 0.0
    for megabytes in (int(size) for size in args.sizes.split(",")):
        ours = answer_time(OURS, megabytes)
        largest = ours
        line = f"{megabytes:4d} MB   ours {ours:6.2f} s ({megabytes / ours:6.1f} MB/s)"
        if args.peer.exists():
            theirs = answer_time([str(args.peer), "app-server"], megabytes)
            line += f"   peer {theirs:6.2f} s ({megabytes / theirs:6.1f} MB/s)"
            line += f"   ratio {ours / theirs:5.2f}"
        print(line)
    verdict = "within" if largest < BUDGET_S else "OVER"
    print(f"largest line answered in {largest:.2f} s: {verdict} the {BUDGET_S:.0f} s budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())
