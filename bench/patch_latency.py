"""How long other requests wait while the app-server applies a patch to a very long file.

The scripted model answers with one `apply_patch` that changes every eighth line of a 20,000-
and an 80,000-line file. While that turn runs, a second client thread sends `model/list`
requests back to back (one at a time, each as soon as the previous was answered) and times
each answer. Printed per file size and server: the turn's duration, how many probes were
answered during it, and the median and worst probe latency; then ours / peer as ratios.
Budget: our worst probe latency under 100 ms.

The peer is the real `codex app-server` (npm `@openai/codex@0.171.0`, see
`bench/appserver_compare.py`), skipped when it is not installed.

    .venv/bin/python bench/patch_latency.py [--peer PATH] [--sizes 20000,80000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.scripted_builders import (
    custom_tool_call_response,
    function_call_response,
    text_response,
)
from tests.support.scripted_model import ScriptedModelServer

DEFAULT_PEER = (
    Path.home() / ".cache/codex-peer/node_modules/@openai/codex-linux-x64/vendor"
    "/x86_64-unknown-linux-musl/bin/codex"
)
OURS = [sys.executable, "-m", "codex_lsp", "app-server"]
BUDGET_MS = 100.0
EVERY = 8


class Client:
    """JSONL over the server's stdio; a reader thread hands responses to their waiters."""

    def __init__(self, argv: list[str], home: Path, cwd: Path) -> None:
        env = {**os.environ, "CODEX_HOME": str(home), "RUST_LOG": "error"}
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
        )
        self._lock = threading.Lock()
        self._ids = iter(range(1, 10**9))
        self._waiting: dict[int, tuple[threading.Event, list[dict[str, Any]]]] = {}
        self.turn_done = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            message = json.loads(line)
            if message.get("method") == "turn/completed":
                self.turn_done.set()
            waiter = self._waiting.pop(message.get("id"), None) if "method" not in message else None
            if waiter is not None:
                waiter[1].append(message)
                waiter[0].set()

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        with self._lock:
            msg_id = next(self._ids)
            done: threading.Event = threading.Event()
            box: list[dict[str, Any]] = []
            self._waiting[msg_id] = (done, box)
            assert self.proc.stdin is not None
            line = json.dumps({"id": msg_id, "method": method, "params": params or {}})
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()
        if not done.wait(600):
            raise RuntimeError(f"{method} was not answered")
        return box[0]

    def notify(self, method: str) -> None:
        with self._lock:
            assert self.proc.stdin is not None
            self.proc.stdin.write(json.dumps({"method": method}).encode() + b"\n")
            self.proc.stdin.flush()

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def write_files(root: Path, lines: int, base_url: str) -> tuple[Path, Path, str]:
    home, ws = root / "home", root / "ws"
    home.mkdir()
    ws.mkdir()
    (home / "config.toml").write_text(
        'model = "gpt-5.4"\nmodel_provider = "scripted"\napproval_policy = "never"\n'
        'sandbox_mode = "danger-full-access"\n[model_providers.scripted]\nname = "Scripted"\n'
        f'base_url = "{base_url}"\nwire_api = "responses"\n'
    )
    source = [f"value_{n} = {n}" for n in range(lines)]
    (ws / "big.py").write_text("\n".join(source) + "\n")
    chunks = []
    for n in range(0, lines, EVERY):
        chunks += ["@@", f"-{source[n]}", f"+{source[n]}  # checked"]
    patch = "*** Begin Patch\n*** Update File: big.py\n" + "\n".join(chunks) + "\n*** End Patch"
    return home, ws, patch


def measure(
    argv: list[str], lines: int, model: ScriptedModelServer, *, peer: bool = False
) -> dict[str, float]:
    with tempfile.TemporaryDirectory(dir=Path.home() / ".cache") as tmp:
        home, ws, patch = write_files(Path(tmp), lines, model.base_url)
        model.reset()
        if peer:
            # The peer offers no apply_patch tool to this model; it intercepts the command.
            command = {"cmd": f"apply_patch <<'EOF'\n{patch}\nEOF", "workdir": str(ws)}
            model.enqueue(function_call_response("exec_command", command, call_id="call_big"))
        else:
            model.enqueue(custom_tool_call_response("apply_patch", patch, call_id="call_big"))
        model.enqueue(text_response("done", response_id="resp_2"))
        client = Client(argv, home, ws)
        try:
            info = {"name": "bench", "title": "bench", "version": "1"}
            client.call("initialize", {"clientInfo": info})
            client.notify("initialized")
            client.call("model/list")  # the first call loads the engine; not part of the turn
            thread = client.call("thread/start", {"cwd": str(ws)})["result"]["thread"]
            text = {"type": "text", "text": "mark every eighth line", "text_elements": []}
            started = time.perf_counter()
            client.call("turn/start", {"threadId": thread["id"], "input": [text]})
            latencies: list[float] = []
            while not client.turn_done.is_set():
                sent = time.perf_counter()
                client.call("model/list")
                latencies.append((time.perf_counter() - sent) * 1000)
            duration = time.perf_counter() - started
            patched = (ws / "big.py").read_text().count("# checked")
        finally:
            client.close()
    if patched != -(-lines // EVERY):
        raise RuntimeError(f"the patch did not land ({patched} lines changed)")
    return {
        "turn_s": duration,
        "probes": float(len(latencies)),
        "p50_ms": statistics.median(latencies),
        "max_ms": max(latencies),
    }


def show(label: str, result: dict[str, float]) -> None:
    print(
        f"  {label:<6} turn {result['turn_s']:7.2f} s   probes {int(result['probes']):5d}   "
        f"p50 {result['p50_ms']:8.1f} ms   max {result['max_ms']:9.1f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--peer", type=Path, default=DEFAULT_PEER)
    parser.add_argument("--sizes", default="20000,80000")
    args = parser.parse_args()
    worst = 0.0
    with ScriptedModelServer() as model:
        for lines in (int(size) for size in args.sizes.split(",")):
            print(f"{lines} lines, {-(-lines // EVERY)} chunks")
            ours = measure(OURS, lines, model)
            show("ours", ours)
            worst = max(worst, ours["max_ms"])
            if args.peer.exists():
                theirs = measure([str(args.peer), "app-server"], lines, model, peer=True)
                show("peer", theirs)
                print(
                    f"  ratio  turn {ours['turn_s'] / theirs['turn_s']:.2f}   "
                    f"max latency {ours['max_ms'] / theirs['max_ms']:.2f}"
                )
            else:
                print(f"  (peer not found at {args.peer})")
    verdict = "within" if worst < BUDGET_MS else "OVER"
    print(f"worst probe latency {worst:.1f} ms: {verdict} the {BUDGET_MS:.0f} ms budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())
