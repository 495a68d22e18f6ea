"""Rollout files: one JSONL file per thread, written as things happen and read back on resume.

Each line is `{"timestamp": "<UTC ms>Z", "type": <kind>, "payload": ...}` with kinds
`session_meta` (always first), `turn_context`, `response_item`, `event_msg` and `compacted`.

Durability: every line reaches the kernel in a single `write` the moment it is recorded (no
user-space buffer), so a `kill -9` loses at most the line being written; `sync()` adds an fsync
for power loss, which the engine calls at turn end. Readers skip a torn or corrupt line with a
warning instead of failing.

One writer per thread: a recorder holds an exclusive advisory lock (`flock`) on its file for as
long as it is open, so a second process resuming the same thread gets `RolloutInUseError`
naming the process that has it, instead of interleaving its turns into the same file. Readers
take no lock. The kernel drops the lock when its holder exits, however it exits.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from codex_lsp.store.home import ARCHIVED_SUBDIR, SESSIONS_SUBDIR, sessions_dir
from codex_lsp.store.persist import sanitize_event, should_persist_event
from codex_lsp.store.secrets import known
from codex_lsp.store.thread_index import append_thread_name

SESSION_META = "session_meta"
TURN_CONTEXT = "turn_context"
RESPONSE_ITEM = "response_item"
EVENT_MSG = "event_msg"
COMPACTED = "compacted"
LINE_KINDS = frozenset({SESSION_META, TURN_CONTEXT, RESPONSE_ITEM, EVENT_MSG, COMPACTED})


def utc_timestamp(now: datetime | None = None) -> str:
    """`2026-04-25T10:11:12.345Z`: UTC with millisecond precision, as rollout lines carry."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def rollout_filename(thread_id: str, created: datetime) -> str:
    """`rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl` in local time (colons would upset Windows)."""
    return f"rollout-{created.strftime('%Y-%m-%dT%H-%M-%S')}-{thread_id}.jsonl"


def dumps_line(line: dict[str, Any]) -> bytes:
    # Configured secrets are masked whatever event carries them; look-alikes are the user's text.
    text = known().values(json.dumps(line, ensure_ascii=False, separators=(",", ":")))
    return (text + "\n").encode("utf-8")


@dataclass(slots=True)
class RolloutLine:
    """One parsed rollout line."""

    timestamp: str
    type: str
    payload: Any

    def to_dict(self) -> dict[str, Any]:
        return {"timestamp": self.timestamp, "type": self.type, "payload": self.payload}


@dataclass(slots=True)
class RolloutContents:
    """A rollout as read back: its `session_meta` payload (None if missing), the lines, warnings."""

    meta: dict[str, Any] | None
    lines: list[RolloutLine] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class RolloutClosedError(RuntimeError):
    pass


class RolloutInUseError(RuntimeError):
    """Another open recorder (most likely another process) is writing this rollout."""

    def __init__(self, path: Path, holder: int | None) -> None:
        self.path = path
        self.holder = holder
        who = f"process {holder}" if holder is not None else "another process"
        if holder == os.getpid():
            who = "this server"
        super().__init__(
            f"thread {_thread_id_from_name(path.name)} is open for writing in {who}; "
            "resume it there, or end that process first"
        )


def _lock(fd: int, path: Path) -> None:
    """Take the single-writer lock of the rollout open at `fd`; closes `fd` if it is held."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _lock_holder(fd)
        os.close(fd)
        raise RolloutInUseError(path, holder) from None


def _lock_holder(fd: int) -> int | None:
    """The pid holding a `flock` on the file open at `fd`, from /proc/locks (Linux)."""
    info = os.fstat(fd)
    wanted = (os.major(info.st_dev), os.minor(info.st_dev), info.st_ino)
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as locks:
            for line in locks:
                fields = line.split()
                # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; waiters carry "->".
                if len(fields) < 6 or fields[1] != "FLOCK" or "->" in fields:
                    continue
                major, minor, inode = fields[5].split(":")
                if (int(major, 16), int(minor, 16), int(inode)) == wanted:
                    return int(fields[4])
    except (OSError, ValueError):
        pass
    return None


def _home_of(path: Path) -> Path | None:
    """The `$CODEX_HOME` a rollout path lives under, if it sits where rollouts belong."""
    if path.parent.name == ARCHIVED_SUBDIR:
        return path.parent.parent
    parents = path.parents
    if len(parents) > 4 and parents[3].name == SESSIONS_SUBDIR:
        return parents[4]
    return None


class RolloutRecorder:
    """Appends lines to one rollout file.

    Safe to share between threads: each line is serialized first and then written with one
    `os.write` under a lock on an `O_APPEND` descriptor, so lines never interleave. Across
    processes, the file's `flock` makes the first recorder its only writer.
    """

    def __init__(self, path: Path, fd: int, thread_id: str, home: Path | None) -> None:
        self._path = path
        self._fd: int | None = fd
        self._thread_id = thread_id
        self._home = home
        self._lock = threading.Lock()

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        codex_home: Path,
        thread_id: str,
        meta: dict[str, Any],
        *,
        now: datetime | None = None,
    ) -> RolloutRecorder:
        """Create `sessions/YYYY/MM/DD/rollout-...-<thread_id>.jsonl` and write `session_meta`.

        `meta` is the `session_meta` payload; `id` and `timestamp` are filled in when absent.
        """
        if meta.get("id", thread_id) != thread_id:
            raise ValueError("session_meta id does not match the thread id")
        created = (now or datetime.now(UTC)).astimezone()  # local time for the path
        directory = sessions_dir(codex_home) / created.strftime("%Y/%m/%d")
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / rollout_filename(thread_id, created)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
        _lock(fd, path)
        recorder = cls(path, fd, thread_id, codex_home)
        payload = {"id": thread_id, "timestamp": utc_timestamp(created), **meta}
        try:
            recorder.record(SESSION_META, payload)
        except BaseException:
            recorder.close()
            raise
        return recorder

    @classmethod
    def open_existing(cls, path: Path) -> RolloutRecorder:
        """Reopen a rollout to keep appending to it (resume writes to the same file).

        Raises `RolloutInUseError` while another recorder has it open.
        """
        path = Path(path)
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
        _lock(fd, path)
        try:
            size = os.fstat(fd).st_size
            # A torn last line from a killed writer must not swallow the next line recorded:
            # end it, so it stays one corrupt line that readers skip.
            if size and os.pread(fd, 1, size - 1) != b"\n":
                _write_all(fd, b"\n")
            head = os.pread(fd, 64 * 1024, 0).split(b"\n", 1)[0]
        except BaseException:
            os.close(fd)
            raise
        thread_id = _thread_id_from(head) or _thread_id_from_name(path.name)
        return cls(path, fd, thread_id, _home_of(path))

    # -- writing ---------------------------------------------------------------------------

    @property
    def path(self) -> Path:
        return self._path

    @property
    def thread_id(self) -> str:
        return self._thread_id

    def record(self, kind: str, payload: Any) -> None:
        """Write one line now. `kind` is one of the rollout line kinds.

        An `event_msg` is trimmed for storage (see `persist.sanitize_event`), and a
        `thread_name_updated` also lands in the name index, so listing finds the name without
        reading the whole file. Use `record_event` to also apply the persisted-event filter.
        """
        if kind not in LINE_KINDS:
            raise ValueError(f"unknown rollout line kind: {kind!r}")
        is_event = kind == EVENT_MSG and isinstance(payload, dict)
        if is_event:
            payload = sanitize_event(payload)
        self.record_line(RolloutLine(utc_timestamp(), kind, payload))
        if is_event and payload.get("type") == "thread_name_updated" and self._home is not None:
            name = payload.get("thread_name")
            if isinstance(name, str):
                append_thread_name(self._home, self._thread_id, name)

    def record_line(self, line: RolloutLine) -> None:
        """Write a line keeping its timestamp (used when copying history into a fork)."""
        data = dumps_line(line.to_dict())
        with self._lock:
            if self._fd is None:
                raise RolloutClosedError(f"rollout {self._path.name} is closed")
            _write_all(self._fd, data)

    def record_item(self, item: dict[str, Any]) -> None:
        self.record(RESPONSE_ITEM, item)

    def record_turn_context(self, context: dict[str, Any]) -> None:
        self.record(TURN_CONTEXT, context)

    def record_compacted(
        self, message: str, replacement_history: list[dict[str, Any]] | None = None
    ) -> None:
        payload: dict[str, Any] = {"message": message}
        if replacement_history is not None:
            payload["replacement_history"] = replacement_history
        self.record(COMPACTED, payload)

    def record_event(self, event: dict[str, Any]) -> bool:
        """Persist `event` (an `EventMsg` dict with `type`) if rollouts keep its kind.

        Returns whether it was written.
        """
        event_type = event.get("type")
        if not isinstance(event_type, str) or not should_persist_event(event_type, event):
            return False
        self.record(EVENT_MSG, event)
        return True

    def sync(self) -> None:
        """fsync the file, so recorded lines survive a power loss too."""
        with self._lock:
            if self._fd is not None:
                os.fsync(self._fd)

    def close(self) -> None:
        """fsync and close; later records raise `RolloutClosedError`. Idempotent."""
        with self._lock:
            fd, self._fd = self._fd, None
        if fd is not None:
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    @property
    def closed(self) -> bool:
        return self._fd is None

    def __enter__(self) -> RolloutRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"RolloutRecorder(path={str(self._path)!r}, closed={self.closed})"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _thread_id_from(first_line: bytes) -> str | None:
    try:
        line = json.loads(first_line)
    except ValueError:
        return None
    if isinstance(line, dict) and line.get("type") == SESSION_META:
        payload = line.get("payload")
        thread_id = payload.get("id") if isinstance(payload, dict) else None
        if isinstance(thread_id, str):
            return thread_id
    return None


def _thread_id_from_name(name: str) -> str:
    # rollout-YYYY-MM-DDThh-mm-ss-<36-char uuid>.jsonl
    return name.removesuffix(".jsonl")[-36:]


def parse_line(raw: bytes | str) -> RolloutLine | None:
    """A rollout line, or None when `raw` is not one (bad JSON or the wrong shape).

    Resuming a long thread is mostly parsing its lines, which orjson does two to three times
    as fast as `json`; what orjson refuses but `json` reads (a lone surrogate escaped in a
    string, an integer past 64 bits) is read by `json`, so no line that was ever accepted is
    skipped as corrupt.
    """
    try:
        obj = orjson.loads(raw)
    except ValueError:
        try:
            obj = json.loads(raw)
        except ValueError:
            return None
    if not isinstance(obj, dict):
        return None
    kind = obj.get("type")
    if not isinstance(kind, str) or "payload" not in obj:
        return None
    timestamp = obj.get("timestamp")
    return RolloutLine(timestamp if isinstance(timestamp, str) else "", kind, obj["payload"])


def read_rollout(path: Path) -> RolloutContents:
    """Read a whole rollout. Never raises for bad content, only for I/O errors.

    A torn or corrupt line is skipped with a warning; a file without a leading `session_meta`
    gets a warning and `meta` None (or the first `session_meta` found later).
    """
    path = Path(path)
    data = path.read_bytes()
    contents = RolloutContents(meta=None)
    raw_lines = data.split(b"\n")
    last = len(raw_lines) - 1
    for number, raw in enumerate(raw_lines, start=1):
        if not raw.strip():
            continue
        line = parse_line(raw)
        if line is None:
            if number - 1 == last:
                what = f"torn last line ({len(raw)} bytes without a newline)"
            else:
                what = "corrupt line"
            contents.warnings.append(f"{path}:{number}: skipped {what}")
            continue
        if line.type == SESSION_META and contents.meta is None:
            if contents.lines:
                contents.warnings.append(f"{path}:{number}: session_meta is not the first line")
            if isinstance(line.payload, dict):
                contents.meta = line.payload
        contents.lines.append(line)
    if contents.meta is None:
        contents.warnings.append(f"{path}: no session_meta line; not a codex rollout?")
    return contents
