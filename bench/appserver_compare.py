"""Our `codex-lsp app-server` side by side with the real `codex app-server`, same scripted model.

Both are driven over stdio (JSONL JSON-RPC) against one scripted Responses-API server in this
process. Printed for each, then as ratios (ours / theirs):

- p95 latency from an SSE delta being written to its `item/agentMessage/delta` notification;
- deltas forwarded per second when the model streams as fast as it can;
- peak resident memory of the server process during a streamed turn (VmHWM);
- time from spawn to the `initialize` answer (cold and warm).

Ours is measured twice: plain `codex-lsp app-server`, where every start is a cold one, and
`codex-lsp app-server --attach`, whose first start launches the per-user server (and serves
that client in-process) and whose later starts fork a session from it; there the turn runs
in the forked session, whose memory is the one reported. The attach warm start is also timed
with the bare launcher, `python -I -S codex_lsp/appserver/attach.py`.

The peer is the npm package `@openai/codex@0.169.0` (its linux binary comes in the optional
dependency `@openai/codex-linux-x64`); install it with
`npm install --prefix ~/.cache/codex-peer @openai/codex@0.169.0` or pass `--peer PATH`.

    .venv/bin/python bench/appserver_compare.py [--peer PATH] [--deltas 2000]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.scripted_model import ScriptedModelServer

DEFAULT_PEER = (
    Path.home() / ".cache/codex-peer/node_modules/@openai/codex-linux-x64/vendor"
    "/x86_64-unknown-linux-musl/bin/codex"
)
REPO = Path(__file__).resolve().parent.parent
OURS = [sys.executable, "-m", "codex_lsp", "app-server"]
ATTACH = [*OURS, "--attach"]
LAUNCHER = [sys.executable, "-I", "-S", str(REPO / "codex_lsp/appserver/attach.py")]


def write_home(base_url: str) -> Path:
    home = Path(tempfile.mkdtemp(prefix="bench-home-", dir=Path.home() / ".cache"))
    (home / "config.toml").write_text(
        'model = "gpt-5.4"\nmodel_provider = "scripted"\napproval_policy = "never"\n'
        'sandbox_mode = "read-only"\n[model_providers.scripted]\nname = "Scripted"\n'
        f'base_url = "{base_url}"\nwire_api = "responses"\n'
    )
    return home


def stamped(count: int, pause_s: float) -> list[dict[str, Any]]:
    item = {"type": "message", "role": "assistant", "id": "msg_stamp", "content": []}
    steps: list[dict[str, Any]] = [
        {"sse": {"type": "response.created", "response": {"id": "r"}}},
        {"sse": {"type": "response.output_item.added", "output_index": 0, "item": item}},
    ]
    for index in range(count):
        if pause_s:
            steps.append({"stall_s": pause_s})
        steps.append({"stamp_delta": index})
    done = {**item, "content": [{"type": "output_text", "text": "done"}]}
    steps.append({"sse": {"type": "response.output_item.done", "output_index": 0, "item": done}})
    steps.append(
        {
            "sse": {
                "type": "response.completed",
                "response": {
                    "id": "r",
                    "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
                },
            }
        }
    )
    return steps


class Client:
    """A minimal app-server client: one reader thread, requests by id."""

    def __init__(
        self, argv: list[str], home: Path, extra_env: dict[str, str] | None = None
    ) -> None:
        env = {**os.environ, "CODEX_HOME": str(home), "RUST_LOG": "error", **(extra_env or {})}
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=home,
        )
        self._next = 0

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, notify: bool = False
    ) -> int:
        message: dict[str, Any] = {"method": method, "params": params or {}}
        if not notify:
            self._next += 1
            message["id"] = self._next
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()
        return self._next

    def read(self) -> tuple[dict[str, Any], int]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("server closed its output")
        return json.loads(line), time.perf_counter_ns()

    def until(self, pred) -> tuple[dict[str, Any], int]:
        while True:
            message, at = self.read()
            if pred(message):
                return message, at

    def serving_pid(self) -> int:
        """The process answering this client: the spawned one, or the session an attach
        launcher handed its stdout to (the other process writing to the same pipe)."""
        pipe = os.readlink(f"/proc/{self.proc.pid}/fd/1")
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and int(entry.name) != self.proc.pid:
                try:
                    if os.readlink(entry / "fd" / "1") == pipe:
                        return int(entry.name)
                except OSError:
                    continue
        return self.proc.pid

    def peak_rss_mb(self) -> float:
        status = Path(f"/proc/{self.serving_pid()}/status").read_text()
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def start(
    argv: list[str], home: Path, cwd: Path, extra_env: dict[str, str] | None = None
) -> tuple[Client, float, str]:
    client = Client(argv, home, extra_env)
    request = client.send("initialize", {"clientInfo": {"name": "bench", "version": "1"}})
    client.until(lambda m: m.get("id") == request)
    startup_ms = (time.perf_counter() - client.started) * 1000
    client.send("initialized", notify=True)
    request = client.send("thread/start", {"cwd": str(cwd)})
    reply, _ = client.until(lambda m: m.get("id") == request)
    return client, startup_ms, reply["result"]["thread"]["id"]


def run_turn(client: Client, thread_id: str) -> tuple[list[float], float]:
    """Latencies (ms) of each stamped delta, and deltas per second over the turn."""
    client.send("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "go"}]})
    latencies: list[float] = []
    first = last = 0
    while True:
        message, at = client.read()
        method = message.get("method")
        if method == "item/agentMessage/delta":
            sent = int(message["params"]["delta"].split(":", 1)[1])
            latencies.append((at - sent) / 1e6)
            first = first or at
            last = at
        elif method == "turn/completed" or "error" in message:
            break
    rate = (len(latencies) - 1) / ((last - first) / 1e9) if last > first else 0.0
    return latencies, rate


def spawn_to_initialize(argv: list[str], home: Path, extra_env: dict[str, str] | None) -> float:
    client = Client(argv, home, extra_env)
    request = client.send("initialize", {"clientInfo": {"name": "bench", "version": "1"}})
    client.until(lambda m: m.get("id") == request)
    elapsed = (time.perf_counter() - client.started) * 1000
    client.close()
    return elapsed


def measure(
    argv: list[str],
    deltas: int,
    *,
    attach: bool = False,
    launchers: dict[str, list[str]] | None = None,
) -> dict[str, float]:
    # The attach server gets a runtime directory of its own, removed with it.
    runtime = Path(tempfile.mkdtemp(prefix="bench-run-")) if attach else None
    extra_env = {"XDG_RUNTIME_DIR": str(runtime)} if runtime is not None else None
    with ScriptedModelServer() as server:
        home = write_home(server.base_url)
        work = home / "work"
        work.mkdir()
        cold_ms = None
        try:
            if runtime is not None:
                # No server yet: this start launches it, and is served in-process meanwhile.
                cold_ms = spawn_to_initialize(argv, home, extra_env)
                wait_for_attach_server(runtime)
            client, startup_ms, thread_id = start(argv, home, work, extra_env)
            try:
                server.enqueue(stamped(deltas, 0.001))
                latencies, _ = run_turn(client, thread_id)
                server.enqueue(stamped(deltas * 5, 0.0))
                _, rate = run_turn(client, thread_id)
                peak = client.peak_rss_mb()
            finally:
                client.close()
            warm = {
                name: statistics.median(
                    spawn_to_initialize(launcher, home, extra_env) for _ in range(3)
                )
                for name, launcher in {"": argv, **(launchers or {})}.items()
            }
        finally:
            if runtime is not None:
                stop_attach_server(runtime)
                shutil.rmtree(runtime, ignore_errors=True)
    latencies.sort()
    result = {
        "p95_ms": latencies[int(len(latencies) * 0.95) - 1],
        "p50_ms": statistics.median(latencies),
        "deltas_per_s": rate,
        "peak_rss_mb": peak,
        "startup_cold_ms": cold_ms if cold_ms is not None else startup_ms,
        "startup_warm_ms": warm[""],
    }
    result.update({f"startup_warm_ms_{name}": ms for name, ms in warm.items() if name})
    return result


def wait_for_attach_server(runtime: Path, timeout: float = 30.0) -> None:
    """Until the per-user server has done its imports (it says so in its log)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        logs = list(runtime.glob("codex-lsp/*.log"))
        if logs and "preloaded" in logs[0].read_text():
            return
        time.sleep(0.05)
    raise RuntimeError(f"the attach server did not start; see {runtime}/codex-lsp")


def stop_attach_server(runtime: Path) -> None:
    for log in runtime.glob("codex-lsp/*.log"):
        for line in log.read_text().splitlines():
            if " serving " in line:
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(line.split()[2]), signal.SIGTERM)


ROWS = [
    ("p95 delta latency (ms)", "p95_ms"),
    ("p50 delta latency (ms)", "p50_ms"),
    ("deltas forwarded per second", "deltas_per_s"),
    ("peak RSS during a turn (MB)", "peak_rss_mb"),
    ("spawn to initialize, cold (ms)", "startup_cold_ms"),
    ("spawn to initialize, warm (ms)", "startup_warm_ms"),
]


def print_table(title: str, ours: dict[str, float], theirs: dict[str, float], rows) -> None:
    print(f"{title:38} {'ours':>10} {'codex':>10} {'ours/codex':>11}")
    for label, key, their_key in rows:
        ratio = ours[key] / theirs[their_key] if theirs[their_key] else float("nan")
        print(f"  {label:36} {ours[key]:10.3f} {theirs[their_key]:10.3f} {ratio:11.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", type=Path, default=DEFAULT_PEER)
    parser.add_argument("--deltas", type=int, default=2000)
    parser.add_argument("--ours", nargs="*", default=OURS)
    parser.add_argument("--no-attach", action="store_true", help="skip the --attach path")
    args = parser.parse_args()
    if not args.peer.exists():
        print(f"peer not found at {args.peer}; see this script's docstring", file=sys.stderr)
        return 2
    theirs = measure([str(args.peer), "app-server"], args.deltas)
    ours = measure(args.ours, args.deltas)
    rows = [(label, key, key) for label, key in ROWS]
    print_table("codex-lsp app-server", ours, theirs, rows)
    if not args.no_attach:
        attached = measure(ATTACH, args.deltas, attach=True, launchers={"launcher": LAUNCHER})
        rows.append(
            ("  warm, `python -I -S attach.py` (ms)", "startup_warm_ms_launcher", "startup_warm_ms")
        )
        print_table("codex-lsp app-server --attach", attached, theirs, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
