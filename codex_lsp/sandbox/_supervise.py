"""The launcher's outer process: it waits for the sandboxed tree and ends all of it.

The launcher forks the sandboxed side and stays outside it. It relays termination
signals (the engine's timeout and interrupt), ends the whole tree when the command
exits, when it does not stop within a short grace after SIGTERM, at once on
`STOP_NOW` (a terminal session the engine kills), or when the engine itself has
gone, and then exits with the command's own status.

How the whole tree is ended depends on what the kernel gave the launcher:

* a PID namespace: its init is the child; killing the init kills every process in
  the namespace, whatever session or process group they moved to;
* otherwise the launcher is a child subreaper (every orphaned descendant is
  re-parented to it) and kills its descendants one by one until none is left;
* a cgroup of the command's own, when there is one, is killed as a whole first.
"""

from __future__ import annotations

import errno
import os
import select
import time

from ._connect_broker import Broker
from ._limits import CommandCgroup, leave_cgroup

# Spelled out so the launcher does not import `typing`: its start-up time counts.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal
else:
    # `_signal`, not `signal`: the latter imports `enum`, a fifth of the start-up time.
    import _signal as signal

PR_SET_CHILD_SUBREAPER = 36
# Signals the engine (or a user's terminal) sends to stop a command.
RELAYED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)
# After a relayed signal, how long the command may take to exit before the tree is killed.
STOP_GRACE_S = 0.25
# Not relayed: the whole tree is killed at once. SIGKILL to the launcher cannot do that
# without a PID namespace (the launcher would die before ending what left its session).
STOP_NOW = signal.SIGUSR1


def become_subreaper() -> None:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    zero = ctypes.c_ulong(0)
    libc.prctl(PR_SET_CHILD_SUBREAPER, ctypes.c_ulong(1), zero, zero, zero)


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except OSError:
        return None


class Supervisor:
    """Waits for one child (the namespace's init, or the command itself)."""

    def __init__(
        self,
        child: int,
        *,
        pid_namespace: bool,
        cgroup: CommandCgroup | None,
        broker: Broker | None = None,
    ) -> None:
        self.child = child
        self.broker = broker
        self.pid_namespace = pid_namespace
        self.cgroup = cgroup
        self._deadline: float | None = None
        # The child's wait status when `kill_tree` reaped it among the rest.
        self._status: int | None = None
        self._wake_r, self._wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)

    def _relay(self, signum: int, _frame: object) -> None:
        try:  # noqa: SIM105 (contextlib costs launcher start-up time)
            os.kill(self.child, signum)
        except ProcessLookupError:
            pass  # exited already
        if self._deadline is None:
            self._deadline = time.monotonic() + STOP_GRACE_S

    def _stop_now(self, _signum: int, _frame: object) -> None:
        # The loop, woken by the signal, kills the tree: not here, where a waitpid of the
        # loop's may be under way.
        self._deadline = time.monotonic()

    def wait(self) -> int:
        """The child's wait status, once it and every process it started are gone."""
        parent = _pidfd(os.getppid())
        for signum in RELAYED:
            signal.signal(signum, self._relay)
        signal.signal(STOP_NOW, self._stop_now)
        # The engine starts the launcher with STOP_NOW blocked, so that one sent while
        # the launcher was starting up waits for this handler instead of killing it.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [STOP_NOW])
        # A handler, so that SIGCHLD writes to the wakeup pipe the loop polls.
        signal.signal(signal.SIGCHLD, _ignore)
        signal.set_wakeup_fd(self._wake_w, warn_on_full_buffer=False)
        poller = select.poll()
        poller.register(self._wake_r, select.POLLIN)
        if parent is not None:
            poller.register(parent, select.POLLIN)
        broker = self.broker
        if broker is not None:
            broker.attach(poller)
        while (status := self._reap()) is None:
            timeout = None
            if self._deadline is not None:
                timeout = max(0, int((self._deadline - time.monotonic()) * 1000) + 1)
            events = poller.poll(timeout)
            ready = {fd for fd, _ in events}
            if broker is not None:
                for fd, event in events:
                    if broker.owns(fd):
                        broker.ready(fd, event)
            if self._wake_r in ready:
                _drain(self._wake_r)
            if parent is not None and parent in ready:
                # The engine is gone: nobody will ever read this command's output.
                poller.unregister(parent)
                os.close(parent)
                parent = None
                self.kill_tree()
            if self._deadline is not None and time.monotonic() >= self._deadline:
                self._deadline = None
                self.kill_tree()
        for signum in (*RELAYED, STOP_NOW):
            signal.signal(signum, signal.SIG_IGN)
        if not self.pid_namespace:
            self.kill_tree()
        self._finish()
        return status

    def _reap(self) -> int | None:
        """Reap what has exited (orphans come to a subreaper); the child's status if it
        was among them."""
        found: int | None = None
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                found = self._status if found is None else found
                return 0 if found is None else found
            if pid == 0:
                return found
            if pid == self.child:
                found = status

    def kill_tree(self) -> None:
        """SIGKILL everything the command started, now."""
        if self.cgroup is not None:
            self.cgroup.kill()
        if self.pid_namespace:
            try:  # noqa: SIM105 (contextlib costs launcher start-up time)
                os.kill(self.child, signal.SIGKILL)
            except ProcessLookupError:
                pass  # exited already
            return
        status = _kill_descendants(self.child)
        if status is not None:
            self._status = status

    def _finish(self) -> None:
        if self.cgroup is not None:
            leave_cgroup(self.cgroup)
            self.cgroup.remove()


def _ignore(_signum: int, _frame: object) -> None:
    return


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 512):
            pass
    except BlockingIOError:
        return


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", encoding="ascii") as f:
                found += [int(word) for word in f.read().split()]
        except OSError:
            continue
    return found


def _kill_descendants(child: int) -> int | None:
    """Kill and reap every descendant (orphans come back to us as the subreaper); the wait
    status of `child` if it was reaped here."""
    me = os.getpid()
    found: int | None = None
    while True:
        # Stopped first, so none can fork a replacement while the rest are found.
        pending, stopped = _children(me), []
        while pending:
            pid = pending.pop()
            if pid in stopped:
                continue
            try:
                os.kill(pid, signal.SIGSTOP)
            except ProcessLookupError:
                continue
            stopped.append(pid)
            pending += _children(pid)
        for pid in stopped:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                continue
        try:
            pid, status = os.waitpid(-1, 0 if stopped else os.WNOHANG)
        except ChildProcessError:
            return found
        except OSError as exc:
            if exc.errno != errno.EINTR:
                return found
            pid = 0
        if pid == child:
            found = status
        if not stopped and not _children(me):
            # Only zombies, if anything, were left: reap them and stop.
            while True:
                try:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    return found
                if pid == 0:
                    return found
                if pid == child:
                    found = status
