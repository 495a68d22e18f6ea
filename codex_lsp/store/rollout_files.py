"""Finding rollout files on disk: name parsing, newest-first walks, lookup by id, archive moves.

Rollout filenames carry the creation time and thread id, so ordering and lookup need only
directory listings, never file contents. Year, month and day directories are walked newest first
and a walk stops as soon as its caller has enough, so cost follows the page asked for, not the
number of files.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from codex_lsp.store.home import archived_dir, sessions_dir, uuid7_millis

_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_STAMP = r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}"
_NAME_RE = re.compile(rf"^rollout-({_STAMP})-({_UUID})\.jsonl$")
_UUID_RE = re.compile(rf"^{_UUID}$")


class ThreadNotFoundError(LookupError):
    """No rollout file for the thread id (in `sessions/`, or `archived_sessions/`)."""

    def __init__(self, thread_id: str, where: str = "sessions or archived_sessions") -> None:
        super().__init__(f"no rollout found for thread {thread_id} in {where}")
        self.thread_id = thread_id


@dataclass(frozen=True, slots=True)
class RolloutFile:
    """A rollout file known by its name: `stamp` is local `YYYY-MM-DDThh-mm-ss`."""

    stamp: str
    thread_id: str
    path: Path

    @property
    def key(self) -> tuple[str, str]:
        """Sort key: newest first means descending; the uuid breaks ties within a second."""
        return (self.stamp, self.thread_id.lower())

    def created_local(self) -> datetime:
        return datetime.strptime(self.stamp, "%Y-%m-%dT%H-%M-%S").astimezone()


def parse_rollout_name(name: str) -> tuple[str, str] | None:
    """`(stamp, thread_id)` for a rollout filename, else None."""
    match = _NAME_RE.match(name)
    return (match.group(1), match.group(2)) if match else None


def is_thread_id(value: str) -> bool:
    return bool(_UUID_RE.match(value))


def _numeric_subdirs(directory: Path, width: int, warnings: list[str] | None) -> list[str]:
    try:
        entries = os.listdir(directory)
    except (FileNotFoundError, NotADirectoryError):
        return []
    names = []
    for entry in entries:
        if len(entry) == width and entry.isdigit():
            names.append(entry)
        elif warnings is not None:
            warnings.append(f"{directory / entry}: skipped foreign entry under sessions/")
    names.sort(reverse=True)
    return names


def day_dirs_desc(
    root: Path, *, before_day: str | None = None, warnings: list[str] | None = None
) -> Iterator[tuple[str, Path]]:
    """`("YYYY-MM-DD", dir)` for each day directory, newest first.

    With `before_day`, days after it are skipped without being listed.
    """
    for year in _numeric_subdirs(root, 4, warnings):
        if before_day is not None and year > before_day[:4]:
            continue
        year_dir = root / year
        for month in _numeric_subdirs(year_dir, 2, warnings):
            if before_day is not None and f"{year}-{month}" > before_day[:7]:
                continue
            month_dir = year_dir / month
            for day in _numeric_subdirs(month_dir, 2, warnings):
                date = f"{year}-{month}-{day}"
                if before_day is not None and date > before_day:
                    continue
                yield date, month_dir / day


def rollouts_in(directory: Path, warnings: list[str] | None = None) -> list[RolloutFile]:
    """The rollout files directly in `directory`, newest first by (stamp, uuid)."""
    try:
        names = os.listdir(directory)
    except (FileNotFoundError, NotADirectoryError):
        return []
    files = []
    for name in names:
        parsed = parse_rollout_name(name)
        if parsed is None:
            if warnings is not None:
                warnings.append(f"{directory / name}: skipped foreign file (not a rollout name)")
            continue
        files.append(RolloutFile(parsed[0], parsed[1], directory / name))
    files.sort(key=lambda f: f.key, reverse=True)
    return files


def iter_rollouts_desc(
    home: Path,
    *,
    archived: bool = False,
    after: tuple[str, str] | None = None,
    warnings: list[str] | None = None,
) -> Iterator[RolloutFile]:
    """Rollout files newest first, strictly after the `after` key (older than it) if given.

    Only the directories holding the files yielded (plus those skipped by name) are listed.
    """
    if archived:
        for item in rollouts_in(archived_dir(home), warnings):
            if after is None or item.key < after:
                yield item
        return
    before_day = after[0][:10] if after is not None else None
    for _date, day_dir in day_dirs_desc(
        sessions_dir(home), before_day=before_day, warnings=warnings
    ):
        for item in rollouts_in(day_dir, warnings):
            if after is None or item.key < after:
                yield item


def _find_in(directory: Path, suffix: str) -> Path | None:
    try:
        names = os.listdir(directory)
    except (FileNotFoundError, NotADirectoryError):
        return None
    for name in names:
        if name.endswith(suffix) and name.startswith("rollout-"):
            return directory / name
    return None


def find_active_rollout(home: Path, thread_id: str) -> Path | None:
    """The rollout of `thread_id` under `sessions/`, or None."""
    if not is_thread_id(thread_id):
        return None
    suffix = f"-{thread_id}.jsonl"
    root = sessions_dir(home)
    # A UUIDv7 id carries its creation time, which names the day directory: look there first
    # (and a day either side, for a creator in another timezone).
    millis = uuid7_millis(thread_id)
    tried: set[Path] = set()
    if millis is not None:
        created = datetime.fromtimestamp(millis / 1000).astimezone()
        for delta in (0, -1, 1):
            day = created + timedelta(days=delta)
            directory = root / day.strftime("%Y/%m/%d")
            tried.add(directory)
            found = _find_in(directory, suffix)
            if found is not None:
                return found
    for _date, directory in day_dirs_desc(root):
        if directory not in tried:
            found = _find_in(directory, suffix)
            if found is not None:
                return found
    return None


def find_archived_rollout(home: Path, thread_id: str) -> Path | None:
    if not is_thread_id(thread_id):
        return None
    return _find_in(archived_dir(home), f"-{thread_id}.jsonl")


def find_rollout(codex_home: Path, thread_id: str) -> Path | None:
    """The rollout file of `thread_id`: `sessions/` first, then `archived_sessions/`."""
    return find_active_rollout(codex_home, thread_id) or find_archived_rollout(
        codex_home, thread_id
    )


def is_archived_path(codex_home: Path, path: Path) -> bool:
    return Path(path).parent == archived_dir(codex_home)


def archive_thread(codex_home: Path, thread_id: str) -> Path:
    """Move the thread's rollout into the flat `archived_sessions/`; returns the new path.

    Archiving an archived thread returns its path unchanged.
    """
    source = find_active_rollout(codex_home, thread_id)
    if source is None:
        already = find_archived_rollout(codex_home, thread_id)
        if already is not None:
            return already
        raise ThreadNotFoundError(thread_id, "sessions")
    target_dir = archived_dir(codex_home)
    target_dir.mkdir(parents=True, exist_ok=True)
    target = target_dir / source.name
    if target.exists():
        raise FileExistsError(f"{target} already exists; not overwriting an archived rollout")
    os.rename(source, target)
    return target


def unarchive_thread(codex_home: Path, thread_id: str) -> Path:
    """Move an archived rollout back into its dated directory; returns the restored path.

    Unarchiving a thread that is not archived returns its path unchanged.
    """
    source = find_archived_rollout(codex_home, thread_id)
    if source is None:
        active = find_active_rollout(codex_home, thread_id)
        if active is not None:
            return active
        raise ThreadNotFoundError(thread_id, "archived_sessions")
    parsed = parse_rollout_name(source.name)
    if parsed is None:  # find_* only returns rollout names
        raise ThreadNotFoundError(thread_id, "archived_sessions")
    stamp = parsed[0]
    target_dir = sessions_dir(codex_home) / stamp[:4] / stamp[5:7] / stamp[8:10]
    target_dir.mkdir(parents=True, exist_ok=True)
    target = target_dir / source.name
    if target.exists():
        raise FileExistsError(f"{target} already exists; not overwriting a rollout")
    os.rename(source, target)
    return target
