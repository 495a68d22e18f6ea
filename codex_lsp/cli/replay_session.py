"""The body of `codex-lsp replay`: a recorded thread run again, offline, and compared.

The rollout says what the user did (each turn's message, or a compaction), under which model
and directory, and what became of each approval. The recording holds what the model answered.
A `ReplayServer` serves those answers to a real engine, configured in a scratch `$CODEX_HOME` to
use it, which runs the turns again; then the items of both threads are compared, ignoring ids,
times and the directory they ran in.

A recording is only a file: anyone could have edited it. So the commands it leads to run in the
current folder (or `--cd DIR`) under the user's sandbox and approval policy (`-s`, `-a`, else the
user's config.toml, else read-only and on-request), never the folder and policies the rollout
names, and every approval is asked on the terminal, the recorded decision shown beside the
question but never taken as the answer.
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from codex_lsp.model.recording import (
    Recording,
    RecordingError,
    read_recording,
    recording_path,
    rollout_path,
)
from codex_lsp.protocol.core.decisions import ReviewDecision
from codex_lsp.protocol.core.policy import AskForApproval
from codex_lsp.store.rollout import read_rollout

if TYPE_CHECKING:
    from codex_lsp.protocol.core.events import (
        ApplyPatchApprovalRequestEvent,
        ExecApprovalRequestEvent,
    )
    from codex_lsp.protocol.core.policy import SandboxPolicy

# Fields that differ from run to run without the thread being any different.
VOLATILE = frozenset({"startedAtMs", "completedAtMs", "durationMs", "processId"})
TURN_EVENTS = ("task_started", "turn_started")
END_EVENTS = ("task_complete", "turn_complete", "turn_aborted")


class ReplayError(Exception):
    """The thread cannot be replayed; the message says why."""


@dataclass
class RecordedTurn:
    """What the user did in one turn: a message, or a compaction."""

    kind: str
    text: str = ""


@dataclass
class RecordedThread:
    context: dict[str, Any]
    turns: list[RecordedTurn]
    events: list[dict[str, Any]]
    # Call id -> the decision that let the call through or stopped it.
    decisions: dict[str, ReviewDecision] = field(default_factory=dict)


def locate(file: Path) -> tuple[Path, Path]:
    """(recording, rollout) from either of them."""
    if file.name.startswith("rollout-"):
        return recording_path(file), file
    return file, rollout_path(file)


def read_thread(rollout: Path) -> RecordedThread:
    contents = read_rollout(rollout)
    context: dict[str, Any] | None = None
    events: list[dict[str, Any]] = []
    for line in contents.lines:
        if line.type == "turn_context" and context is None and isinstance(line.payload, dict):
            context = line.payload
        elif line.type == "event_msg" and isinstance(line.payload, dict):
            events.append(line.payload)
    if context is None:
        raise ReplayError(f"{rollout} has no turn to replay")
    return RecordedThread(context, _turns(events), events, _decisions(events))


def _turns(events: list[dict[str, Any]]) -> list[RecordedTurn]:
    turns: list[RecordedTurn] = []
    current: RecordedTurn | None = None
    for event in events:
        kind = event.get("type")
        if kind in TURN_EVENTS:
            current = None
        elif kind == "user_message" and current is None:
            if event.get("images") or event.get("local_images"):
                raise ReplayError("a turn with images cannot be replayed yet")
            current = RecordedTurn("message", str(event.get("message") or ""))
            turns.append(current)
        elif kind == "context_compacted" and current is None:
            current = RecordedTurn("compact")
            turns.append(current)
        elif kind == "entered_review_mode" and current is None:
            raise ReplayError("a review turn cannot be replayed yet")
        elif kind in END_EVENTS:
            current = None
    return turns


def _decisions(events: list[dict[str, Any]]) -> dict[str, ReviewDecision]:
    decisions: dict[str, ReviewDecision] = {}
    for event in events:
        if event.get("type") in ("exec_command_end", "patch_apply_end"):
            declined = event.get("status") == "declined"
            decision = ReviewDecision.DENIED if declined else ReviewDecision.APPROVED
            decisions[str(event.get("call_id"))] = decision
    return decisions


@dataclass(frozen=True)
class UserPolicy:
    """The sandbox and approval policy a replay runs under: the user's, never the file's."""

    sandbox: SandboxPolicy
    approval: AskForApproval


def user_policy(cwd: Path, sandbox: str | None, approval: str | None) -> UserPolicy:
    """`-s`/`-a` when given, else the user's config.toml (whose defaults are read-only and
    on-request), with its `[sandbox_workspace_write]` settings."""
    from codex_lsp.store.config import load_config
    from codex_lsp.store.config_errors import ConfigError

    try:
        config = load_config()
    except ConfigError as err:
        raise ReplayError(str(err)) from None
    if sandbox:
        config = config.model_copy(update={"sandbox_mode": sandbox})
    chosen = AskForApproval(approval) if approval else config.core_approval_policy
    return UserPolicy(config.sandbox_policy(cwd), chosen)


def _config(
    recording: Recording, context: dict[str, Any], base_url: str, policy: UserPolicy
) -> str:
    header = recording.header
    lines = [
        f"model = {json.dumps(str(context.get('model') or header.get('model') or 'gpt-5.4'))}",
        'model_provider = "replay"',
        f"approval_policy = {json.dumps(policy.approval.value)}",
        "",
        "[model_providers.replay]",
        'name = "Replay"',
        f"base_url = {json.dumps(base_url)}",
        f"wire_api = {json.dumps(str(header.get('wire_api') or 'responses'))}",
    ]
    for key in ("request_max_retries", "stream_max_retries", "stream_idle_timeout_ms"):
        if isinstance(header.get(key), int):
            lines.append(f"{key} = {header[key]}")
    return "\n".join(lines) + "\n"


def normalized_items(events: list[dict[str, Any]], cwd: str) -> list[list[dict[str, Any]]]:
    """Each turn's items as JSON, without what differs between two runs of one thread."""
    from codex_lsp.api.threads.rebuild import rebuild_turns
    from codex_lsp.protocol.common import dump

    def clean(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k not in VOLATILE}
        if isinstance(value, list):
            return [clean(v) for v in value]
        if isinstance(value, str):
            return value.replace(cwd, "<cwd>")
        return value

    turns = []
    for turn in rebuild_turns(events):
        items = []
        for item in dump(turn)["items"]:
            if item.get("type") == "userMessage":
                item.pop("id", None)  # made up afresh by each run
            items.append(clean(item))
        turns.append(items)
    return turns


async def replay(
    file: Path,
    cd: Path | None,
    out: TextIO,
    *,
    sandbox: str | None = None,
    approval: str | None = None,
    terminal: TextIO = sys.stderr,
) -> int:
    recording_file, rollout = locate(file)
    try:
        recording = read_recording(recording_file)
    except FileNotFoundError:
        raise ReplayError(f"no recording at {recording_file}") from None
    except RecordingError as err:
        raise ReplayError(str(err)) from None
    if not rollout.exists():
        raise ReplayError(f"the rollout the recording belongs to is missing: {rollout}")
    thread = read_thread(rollout)
    recorded_cwd = str(thread.context.get("cwd") or "")
    # The folder is a writable root under workspace-write: the user's choice, never the file's.
    cwd = (cd or Path.cwd()).resolve()
    if not cwd.is_dir():
        raise ReplayError(f"{cwd} does not exist; run the replay elsewhere with --cd DIR")
    policy = user_policy(cwd, sandbox, approval)
    terminal.write(
        f"Replaying in {cwd} under your policy: sandbox {policy.sandbox.type}, approvals "
        f"{policy.approval.value} (the recording ran in {json.dumps(recorded_cwd)}; its own "
        "folder and policy are not used).\n"
    )
    terminal.flush()

    from codex_lsp.model.replay_server import ReplayServer

    server = ReplayServer(recording)
    base_url = await server.start()
    try:
        with tempfile.TemporaryDirectory(prefix="codex-lsp-replay-") as scratch:
            home = Path(scratch)
            (home / "config.toml").write_text(_config(recording, thread.context, base_url, policy))
            events = await _run(home, thread, cwd, policy, terminal)
    finally:
        await server.aclose()
    return _report(out, thread, events, recorded_cwd, str(cwd), server)


async def _run(
    home: Path, thread: RecordedThread, cwd: Path, policy: UserPolicy, terminal: TextIO
) -> list[dict[str, Any]]:
    """Run the recorded turns in a fresh engine; its persisted events, as a rollout has them."""
    from codex_lsp.engine.bootstrap import load_services
    from codex_lsp.engine.codex import Codex
    from codex_lsp.protocol.core.events import (
        ApplyPatchApprovalRequestEvent,
        ExecApprovalRequestEvent,
    )
    from codex_lsp.protocol.core.inputs import TextInput
    from codex_lsp.protocol.core.ops import (
        Compact,
        ConfigureSession,
        ExecApproval,
        PatchApproval,
        UserInputOp,
    )
    from codex_lsp.store.persist import sanitize_event, should_persist_event

    services = load_services(codex_home=home)
    context = thread.context
    configure = ConfigureSession.model_validate(
        {
            "model": context.get("model"),
            "approval_policy": policy.approval.value,
            "sandbox_policy": policy.sandbox.model_dump(mode="json"),
            "cwd": str(cwd),
            "effort": context.get("effort"),
            "developer_instructions": context.get("developer_instructions"),
            "user_instructions": context.get("user_instructions"),
            "source": "exec",
        }
    )
    persisted: list[dict[str, Any]] = []
    try:
        async with Codex(services) as codex:
            await codex.submit(configure)
            while (event := await codex.next_event()).msg.type != "session_configured":
                if event.msg.type == "error":
                    raise ReplayError(f"the engine did not start: {event.msg.message}")
            for turn in thread.turns:
                op: Any = (
                    Compact()
                    if turn.kind == "compact"
                    else UserInputOp(items=[TextInput(text=turn.text)])
                )
                sub_id = await codex.submit(op)
                while True:
                    event = await codex.next_event()
                    payload = event.msg.model_dump(mode="json", exclude_none=True)
                    if should_persist_event(event.msg.type, payload):
                        persisted.append(sanitize_event(payload))
                    msg = event.msg
                    if isinstance(msg, ExecApprovalRequestEvent):
                        decision = await _ask(terminal, msg, thread.decisions.get(msg.call_id))
                        await codex.submit(ExecApproval(id=msg.call_id, decision=decision))
                    elif isinstance(msg, ApplyPatchApprovalRequestEvent):
                        decision = await _ask(terminal, msg, thread.decisions.get(msg.call_id))
                        await codex.submit(PatchApproval(id=msg.call_id, decision=decision))
                    elif msg.type in END_EVENTS and event.id == sub_id:
                        break
    finally:
        if services.http is not None:
            await services.http.aclose()
    return persisted


async def _ask(
    terminal: TextIO,
    request: ExecApprovalRequestEvent | ApplyPatchApprovalRequestEvent,
    recorded: ReviewDecision | None,
) -> ReviewDecision:
    """The user's answer on the terminal; no terminal (stdin closed) means no."""
    import anyio

    from codex_lsp.cli.exec_session import ANSWERS
    from codex_lsp.protocol.core.events import ExecApprovalRequestEvent

    # JSON shows every control, bidi and other non-ASCII character as an escape.
    if isinstance(request, ExecApprovalRequestEvent):
        what = f"run {json.dumps(request.command)}\n  in {json.dumps(request.cwd)}"
    else:
        what = f"change {json.dumps(sorted(request.changes))}"
    reason = f"\n  reason: {json.dumps(request.reason)}" if request.reason else ""
    was = {
        None: "has no decision for it",
        ReviewDecision.DENIED: "declined it",
        ReviewDecision.ABORT: "declined it",
    }.get(recorded, "approved it")
    terminal.write(
        f"The replayed thread wants to {what}{reason}\n  (the recording {was}; if it asks to "
        "leave the sandbox, approving runs it outside)\n"
        "Allow it? [y]es / [a]lways this session / [n]o / [q]uit turn: "
    )
    terminal.flush()
    line = await anyio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
    return ANSWERS.get(line.strip().lower()[:1], ReviewDecision.DENIED)


def _report(
    out: TextIO,
    thread: RecordedThread,
    events: list[dict[str, Any]],
    recorded_cwd: str,
    cwd: str,
    server: Any,
) -> int:
    before = normalized_items(thread.events, recorded_cwd)
    after = normalized_items(events, cwd)
    count = sum(len(items) for items in after)
    out.write(
        f"Replayed {len(thread.turns)} turn(s) against the recording: {count} items, "
        f"{server.served} model request(s) answered from it.\n"
    )
    for difference in server.differences:
        out.write(f"note: {difference}\n")
    if before == after:
        out.write("The replay reached the same items as the recorded thread.\n")
        return 0
    for number, (was, now) in enumerate(zip(before, after, strict=False), start=1):
        if was != now:
            out.write(f"Turn {number} differs from the recording.\n")
            for index in range(max(len(was), len(now))):
                old = was[index] if index < len(was) else None
                new = now[index] if index < len(now) else None
                if old != new:
                    out.write(f"  item {index + 1} recorded: {json.dumps(old)}\n")
                    out.write(f"  item {index + 1} replayed: {json.dumps(new)}\n")
                    break
            break
    else:
        out.write(f"The recording has {len(before)} turn(s); the replay has {len(after)}.\n")
    return 1
