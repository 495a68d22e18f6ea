"""Resource limits for one sandboxed command: how many tasks, how much memory.

Three mechanisms, the strongest the machine allows:

* a cgroup v2 of the command's own, when the user's cgroup tree is delegated (the
  parent of the engine's cgroup is writable and hands `pids` and `memory` down, as
  systemd does for a user's session): `pids.max` and `memory.max` bound the whole
  command tree, and `cgroup.kill` ends it;
* `pid_max` of the command's PID namespace (Linux 6.14+): the namespace cannot hold
  more tasks than that, whatever their user; the kernel's floor is 300;
* rlimits: `RLIMIT_NPROC` (counted per user, so only inside the user namespace that
  unprivileged users get is it a count of the command's own tasks; root is exempt)
  and `RLIMIT_DATA`, which bounds each process's private writable memory (address
  space that is only reserved, as language runtimes do, does not count).

Zero means "no limit" for either setting.
"""

from __future__ import annotations

import os
import resource

CGROUP_PREFIX = "codex-sandbox-"
# The smallest pid_max the kernel accepts in a PID namespace.
PID_MAX_FLOOR = 300


class Limits:
    """The limits of one command, as the launcher received them."""

    def __init__(self, max_processes: int, max_memory_mb: int) -> None:
        self.max_processes = max(max_processes, 0)
        self.max_memory_mb = max(max_memory_mb, 0)

    @property
    def memory_bytes(self) -> int:
        return self.max_memory_mb * 1024 * 1024


def _cgroup2_mount() -> str | None:
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as f:
            for line in f:
                fields = line.split()
                sep = fields.index("-") if "-" in fields else -1
                if sep > 0 and fields[sep + 1] == "cgroup2":
                    return fields[4]
    except OSError:
        return None
    return None


def _own_cgroup2() -> str | None:
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as f:
            for line in f:
                if line.startswith("0::"):
                    return line[3:].strip()
    except OSError:
        return None
    return None


def _read(path: str) -> str:
    try:
        with open(path, encoding="ascii") as f:
            return f.read()
    except OSError:
        return ""


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


class CommandCgroup:
    """A cgroup v2 directory holding one command's tree, and the cgroup the launcher
    came from (where it returns to, so that the command's can be removed)."""

    def __init__(self, path: str, origin: str) -> None:
        self.path = path
        self.origin = origin

    @classmethod
    def create(cls, limits: Limits) -> CommandCgroup | None:
        """A new cgroup next to the engine's with `limits`, holding this process; None
        when the tree is not delegated to this user (nothing is changed then)."""
        if not (limits.max_processes or limits.max_memory_mb):
            return None
        mount, own = _cgroup2_mount(), _own_cgroup2()
        if mount is None or own is None or own == "/":
            return None
        parent = os.path.join(mount, os.path.dirname(own).lstrip("/"))
        enabled = _read(os.path.join(parent, "cgroup.subtree_control")).split()
        if "pids" not in enabled or "memory" not in enabled or not os.access(parent, os.W_OK):
            return None
        _remove_stale(parent)
        path = os.path.join(parent, f"{CGROUP_PREFIX}{os.getpid()}")
        try:
            os.mkdir(path)
        except OSError:
            return None
        group = cls(path, os.path.join(mount, own.lstrip("/")))
        try:
            if limits.max_processes:
                _write(os.path.join(path, "pids.max"), str(limits.max_processes))
            if limits.max_memory_mb:
                _write(os.path.join(path, "memory.max"), str(limits.memory_bytes))
                # Past the limit the command is killed, not slowed to a crawl by swap.
                _write(os.path.join(path, "memory.swap.max"), "0")
            _write(os.path.join(path, "cgroup.procs"), "0")
        except OSError:
            group.remove()
            return None
        return group

    def kill(self) -> bool:
        """Kill every process in the cgroup at once (Linux 5.14+); False if unsupported."""
        try:
            _write(os.path.join(self.path, "cgroup.kill"), "1")
        except OSError:
            return False
        return True

    def remove(self) -> None:
        """Remove the directory once its processes are gone (this one must have left)."""
        try:
            os.rmdir(self.path)
        except OSError:
            return


def leave_cgroup(group: CommandCgroup) -> None:
    """Move this process back to the cgroup it came from so the command's can be removed."""
    try:
        _write(os.path.join(group.origin, "cgroup.procs"), "0")
    except OSError:
        return


def _remove_stale(parent: str) -> None:
    # Left behind by a launcher that was killed outright; empty once its command died.
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in names:
        if not name.startswith(CGROUP_PREFIX):
            continue
        pid = name[len(CGROUP_PREFIX) :]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            try:
                os.rmdir(os.path.join(parent, name))
            except OSError:
                continue


# pid_max belongs to each PID namespace from Linux 6.14; before, it is one global value,
# which the sandbox must never touch (root could, and would starve the whole machine).
PER_NAMESPACE_PID_MAX = (6, 14)


def kernel_version() -> tuple[int, int]:
    release = os.uname().release
    numbers = []
    for part in release.split(".")[:2]:
        digits = ""
        for char in part:
            if not char.isdigit():
                break
            digits += char
        numbers.append(int(digits or 0))
    major, minor = [*numbers, 0, 0][:2]
    return major, minor


def set_pid_max(limits: Limits) -> bool:
    """Bound the tasks of this PID namespace; call as its init (the sysctl acts on the
    writer's namespace)."""
    if not limits.max_processes or kernel_version() < PER_NAMESPACE_PID_MAX:
        return False
    value = max(limits.max_processes + 1, PID_MAX_FLOOR)
    try:
        _write("/proc/sys/kernel/pid_max", str(value))
    except OSError:
        return False  # a kernel before 6.14 has one pid_max for every namespace
    return True


def set_rlimits(limits: Limits, *, own_user_namespace: bool) -> None:
    """Apply what rlimits can: memory per process, and tasks where NPROC counts them."""
    if limits.max_memory_mb:
        _lower(resource.RLIMIT_DATA, limits.memory_bytes)
    if limits.max_processes and os.geteuid() != 0:
        extra = 0 if own_user_namespace else _tasks_of_user(os.getuid())
        _lower(resource.RLIMIT_NPROC, limits.max_processes + extra)


def _lower(which: int, value: int) -> None:
    _soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    try:
        resource.setrlimit(which, (value, value))
    except (OSError, ValueError):
        return


def _tasks_of_user(uid: int) -> int:
    """How many tasks `uid` already runs: outside a user namespace of its own,
    RLIMIT_NPROC counts them all, so the command's budget comes on top."""
    count = 0
    try:
        pids = os.listdir("/proc")
    except OSError:
        return 0
    for name in pids:
        if not name.isdigit():
            continue
        try:
            if os.stat(f"/proc/{name}").st_uid == uid:
                count += len(os.listdir(f"/proc/{name}/task"))
        except OSError:
            continue
    return count
