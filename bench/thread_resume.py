"""Resume cost: read a 5,000-item rollout and rebuild its model history, settings and events.

  ours  - `read_rollout` + `reconstruct_history`, what the engine runs on `thread/resume`;
  peer  - the floor: `json.loads` of every line and nothing else.

The thread is written through `RolloutRecorder` with a realistic mix per turn: a turn context,
the user message, reasoning, shell calls with 1-2 KB outputs, exec end events, the answer,
token counts, and a compaction halfway. Budget: ours under 1 s.

    .venv/bin/python bench/thread_resume.py [--items 5000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from codex_lsp.store.history import reconstruct_history
from codex_lsp.store.home import new_thread_id
from codex_lsp.store.rollout import RolloutRecorder, read_rollout

BUDGET_S = 1.0


def message(role: str, text: str) -> dict:
    part = "input_text" if role == "user" else "output_text"
    return {"type": "message", "role": role, "content": [{"type": part, "text": text}]}


def write_thread(home: Path, items: int, cwd: str = "/repo") -> tuple[Path, int]:
    recorder = RolloutRecorder.create(
        home,
        new_thread_id(),
        {"cwd": cwd, "model_provider": "openai", "base_instructions": {"text": "x" * 12_000}},
    )
    written = 0
    turn = 0
    while written < items:
        turn += 1
        recorder.record_turn_context({"turn_id": f"t{turn}", "cwd": cwd, "model": "gpt-5"})
        recorder.record_event({"type": "task_started", "turn_id": f"t{turn}"})
        recorder.record_item(message("user", f"step {turn}: please continue the refactor"))
        recorder.record_event({"type": "user_message", "message": f"step {turn}"})
        written += 1
        for call in range(4):
            call_id = f"call_{turn}_{call}"
            recorder.record_item(
                {"type": "reasoning", "summary": [{"type": "summary_text", "text": "think " * 40}]}
            )
            recorder.record_item(
                {
                    "type": "function_call",
                    "name": "shell_command",
                    "call_id": call_id,
                    "arguments": json.dumps({"command": f"rg -n pattern{call} src/"}),
                }
            )
            output = "src/module.py:12: matched line of code\n" * (30 + call * 10)
            recorder.record_item(
                {"type": "function_call_output", "call_id": call_id, "output": output}
            )
            recorder.record_event(
                {"type": "exec_command_end", "call_id": call_id, "aggregated_output": output}
            )
            written += 3
        recorder.record_item(message("assistant", "Done with this step. " * 20))
        recorder.record_event({"type": "agent_message", "message": "Done with this step."})
        usage = {"input_tokens": 900 * turn, "output_tokens": 90 * turn, "total_tokens": 990 * turn}
        last = {"input_tokens": 900, "output_tokens": 90, "total_tokens": 990}
        info = {
            "total_token_usage": usage,
            "last_token_usage": last,
            "model_context_window": 1 << 18,
        }
        recorder.record_event({"type": "token_count", "info": info})
        recorder.record_event({"type": "task_complete", "turn_id": f"t{turn}"})
        written += 1
        if turn == 200:
            recorder.record_compacted("summary of the work so far", [message("user", "R")])
    recorder.close()
    return recorder.path, written


def timed_s(function, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-thread-resume-") as tmp:
        path, items = write_thread(Path(tmp), args.items)
        size_mb = path.stat().st_size / 1e6
        lines = len(path.read_bytes().splitlines())

        def ours() -> None:
            contents = read_rollout(path)
            state = reconstruct_history(contents.lines)
            assert state.history and not contents.warnings

        def peer() -> None:
            for raw in path.read_bytes().splitlines():
                json.loads(raw)

        ours_s = timed_s(ours, args.repeat)
        peer_s = timed_s(peer, args.repeat)
    print(f"thread: {items} response items, {lines} lines, {size_mb:.1f} MB")
    print(f"ours (read_rollout + reconstruct_history): {ours_s * 1000:8.1f} ms")
    print(f"peer (json.loads of every line):          {peer_s * 1000:8.1f} ms")
    print(f"ours/peer: {ours_s / peer_s:.2f}x")
    verdict = "within" if ours_s < BUDGET_S else "OVER"
    print(f"budget: {ours_s * 1000:.1f} ms, {verdict} the {BUDGET_S * 1000:.0f} ms budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())
