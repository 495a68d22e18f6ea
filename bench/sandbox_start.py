"""How much the Linux sandbox adds to starting a command, against the real Codex's sandbox.

Runs `true` N times three ways, in a fresh git repository (workspace-write, network off):
directly, through our `wrap_command`, and through the real Codex's own `codex sandbox`
(its bubblewrap-based Linux sandbox, when the peer binary is installed). Prints the median
wall time and CPU time of each, what our sandbox adds to a bare `true`, and the ratio of
ours to the peer's. The budget is < 30 ms added per command.

    .venv/bin/python bench/sandbox_start.py [--runs 50] [--policy workspace-write|read-only]
        [--temp-repos N]

Every repository in `/tmp` and `$TMPDIR` has its `.git`, `.codex` and `.agents` covered by
a read-only mount, so the start time grows with them: the report says how many entries
the run protected; `--temp-repos N` adds N repositories in a `$TMPDIR` of the bench's own.

Set CODEX_PEER to the peer binary if it is not where the test set-up installs it.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from codex_lsp.protocol.core.policy import ReadOnly, WorkspaceWrite
from codex_lsp.sandbox import wrap_command

BUDGET_MS = 30.0
PEER = Path.home() / (
    ".cache/codex-peer/node_modules/@openai/codex-linux-x64/vendor/"
    "x86_64-unknown-linux-musl/bin/codex"
)


@dataclass(frozen=True)
class Timing:
    wall_ms: float  # median
    cpu_ms: float  # median
    best_ms: float  # the fastest run: what an idle machine would see


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(
    argv: list[str], env: dict[str, str], cwd: str, runs: int, pass_fds: tuple[int, ...] = ()
) -> Timing:
    """Median wall and CPU time (the command's and its children's) of `runs` runs."""
    walls, cpus = [], []
    for _ in range(runs):
        cpu = _children_cpu_s()
        start = time.perf_counter()
        subprocess.run(
            argv, env=env, cwd=cwd, check=True, stdin=subprocess.DEVNULL, pass_fds=pass_fds
        )
        walls.append((time.perf_counter() - start) * 1000)
        cpus.append((_children_cpu_s() - cpu) * 1000)
    return Timing(statistics.median(walls), statistics.median(cpus), min(walls))


def _load() -> str:
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "unknown"
    return f"{one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} cpus"


def peer_command(policy: str) -> list[str] | None:
    binary = Path(os.environ.get("CODEX_PEER") or PEER)
    if not binary.is_file():
        return None
    return [str(binary), "sandbox", "-c", f"sandbox_mode={policy}", "--"]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument(
        "--policy", choices=("workspace-write", "read-only"), default="workspace-write"
    )
    parser.add_argument("--temp-repos", type=int, default=0)
    args = parser.parse_args()

    workspace = tempfile.mkdtemp(prefix="sandbox-bench-", dir="/var/tmp")
    # The peer's home must not be under the system temp dir.
    peer_home = Path.home() / ".cache" / "codex-lsp" / "bench-peer-home"
    peer_home.mkdir(parents=True, exist_ok=True)
    try:
        subprocess.run(["git", "init", "-q", workspace], check=True)
        policy = WorkspaceWrite() if args.policy == "workspace-write" else ReadOnly()
        env = dict(os.environ)
        if args.temp_repos:
            tmpdir = Path(workspace + "-tmpdir")
            for i in range(args.temp_repos):
                repo = tmpdir / f"group-{i % 10}" / f"repo-{i}"
                repo.mkdir(parents=True)
                subprocess.run(["git", "init", "-q", str(repo)], check=True)
            env["TMPDIR"] = str(tmpdir)
        true = shutil.which("true") or "/bin/true"
        wrapped = wrap_command([true], policy, workspace, env)
        # The launcher reads them from a memory file: one path and a NUL each.
        protected = sum(
            os.pread(fd, os.fstat(fd).st_size, 0).count(b"\0") for fd in wrapped.pass_fds
        )
        peer = peer_command(args.policy)
        peer_env = {**env, "CODEX_HOME": str(peer_home)}
        # One untimed run each so caches (page cache, .pyc files) are warm for all.
        subprocess.run([true], env=env, cwd=workspace, check=True)
        subprocess.run(
            wrapped.argv,
            env=wrapped.env,
            cwd=workspace,
            check=True,
            pass_fds=wrapped.pass_fds,
        )
        if peer is not None:
            subprocess.run([*peer, true], env=peer_env, cwd=workspace, check=True)
        plain = measure([true], env, workspace, args.runs)
        ours = measure(wrapped.argv, wrapped.env, workspace, args.runs, wrapped.pass_fds)
        wrapped.close()
        theirs = (
            measure([*peer, true], peer_env, workspace, args.runs) if peer is not None else None
        )
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
        shutil.rmtree(workspace + "-tmpdir", ignore_errors=True)

    print(f"policy: {args.policy}, network off, {args.runs} runs of `true`; load {_load()}")
    print(f"entries below the roots kept read-only (repositories in /tmp and $TMPDIR): {protected}")
    print("                          median wall   median cpu   fastest wall")
    rows = [("bare `true`", plain), ("codex-lsp sandbox", ours)]
    if theirs is not None:
        rows.append(("real `codex sandbox`", theirs))
    for label, t in rows:
        print(f"  {label:22}  {t.wall_ms:8.2f} ms  {t.cpu_ms:8.2f} ms  {t.best_ms:9.2f} ms")
    added = ours.wall_ms - plain.wall_ms
    best_added = ours.best_ms - plain.best_ms
    verdict = "within" if added < BUDGET_MS else "OVER"
    print(
        f"added by our sandbox: {added:6.2f} ms median, {best_added:6.2f} ms fastest "
        f"({verdict} the {BUDGET_MS:.0f} ms budget by the median)"
    )
    if theirs is not None:
        print(
            f"ours / real codex: {ours.wall_ms / theirs.wall_ms:.2f}x wall, "
            f"{ours.cpu_ms / max(theirs.cpu_ms, 0.01):.2f}x cpu"
        )
    else:
        print("real codex not installed: no peer ratio (set CODEX_PEER)")


if __name__ == "__main__":
    main()
