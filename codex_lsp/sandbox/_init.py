"""The sandboxed side of the launcher: restrict this process, then run the command.

`confine` applies what the kernel enforces from inside (a fresh `/proc`, limits,
capabilities, Landlock, seccomp); `exec_command` replaces the process with the
command. In a PID namespace the first process is its init: it forks the command,
reaps every orphan, passes termination signals on to everything in the namespace,
and exits with the command's status when the command exits, which makes the kernel
kill whatever the command left behind.
"""

from __future__ import annotations

import os
import sys

from . import _caps, _limits, _mounts, _seccomp
from ._landlock import Ruleset
from ._supervise import STOP_NOW

# Spelled out so the launcher does not import `typing`: its start-up time counts.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal
    from typing import NoReturn
else:
    # `_signal`, not `signal`: the latter imports `enum`, a fifth of the start-up time.
    import _signal as signal


PR_SET_PDEATHSIG = 1
_RELAYED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)


def die_with_parent() -> None:
    """Be killed when the launcher's outer process dies, however it dies."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    zero = ctypes.c_ulong(0)
    libc.prctl(PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGKILL), zero, zero, zero)


class Confinement:
    """Everything `confine` needs, prepared by the outer process."""

    def __init__(
        self,
        ruleset: Ruleset,
        seccomp_program: bytes,
        limits: _limits.Limits,
        *,
        pid_namespace: bool,
        mount_namespace: bool,
        user_namespace: bool,
        cgroup: bool,
        broker_channel: int = -1,
    ) -> None:
        self.ruleset = ruleset
        self.seccomp_program = seccomp_program
        self.limits = limits
        self.pid_namespace = pid_namespace
        self.mount_namespace = mount_namespace
        self.user_namespace = user_namespace
        self.cgroup = cgroup
        # A unix socket to hand the seccomp listener to the outer process on, or -1.
        self.broker_channel = broker_channel


def confine(conf: Confinement) -> None:
    """Restrict this process (and everything it will start) for good."""
    if conf.pid_namespace:
        # Only in a mount namespace of our own: anywhere else this would cover the host's.
        if conf.mount_namespace:
            try:  # noqa: SIM105 (contextlib costs launcher start-up time)
                _mounts.mount_proc()
            except OSError:
                pass  # the host's /proc stays; Landlock still hides its processes' innards
        if not conf.cgroup:
            _limits.set_pid_max(conf.limits)
    if conf.cgroup:
        # The cgroup already bounds the whole tree; a per-process bound on top would
        # only make one big process fail where the tree as a whole is within budget.
        memoryless = _limits.Limits(conf.limits.max_processes, 0)
        _limits.set_rlimits(memoryless, own_user_namespace=conf.user_namespace)
    else:
        _limits.set_rlimits(conf.limits, own_user_namespace=conf.user_namespace)
    _caps.drop_dangerous()
    _seccomp.set_no_new_privs()
    conf.ruleset.enforce()
    if conf.broker_channel < 0:
        _seccomp.install(conf.seccomp_program)
        return
    import socket

    from ._connect_broker import install_with_listener

    table = _seccomp.syscall_table()
    assert table is not None
    listener = install_with_listener(conf.seccomp_program, table["seccomp"])
    # Handed over and closed at once: no sandboxed process may keep a way to answer
    # its own connections.
    with socket.socket(fileno=conf.broker_channel) as channel:
        socket.send_fds(channel, [b"L"], [listener])
    os.close(listener)


def exec_command(command: list[str]) -> NoReturn:
    """Become the command, in a session of its own unless it was given a terminal."""
    if not os.isatty(0):
        # No controlling terminal to abuse: one would let it push keystrokes into the
        # terminal the engine runs in (TIOCSTI) and have them run outside the sandbox.
        try:  # noqa: SIM105 (contextlib costs launcher start-up time)
            os.setsid()
        except OSError:
            pass  # already a session leader
    # The command gets the signal mask a command normally has (see `Supervisor.wait`).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [STOP_NOW])
    sys.stdout.flush()
    try:
        os.execvp(command[0], command)
    except FileNotFoundError:
        _die(f"{command[0]}: command not found", 127)
    except OSError as exc:
        _die(f"{command[0]}: {exc.strerror or exc}", 126)


def run_as_init(conf: Confinement, command: list[str], status_fd: int) -> NoReturn:
    """Pid 1 of the namespace: start the command and outlive it only to report it."""
    die_with_parent()
    try:
        confine(conf)
    except OSError as exc:
        _die(f"sandbox could not be applied, command not run: {exc}", 1)
    # Installed before the fork so that a signal cannot slip in unhandled (pid 1
    # ignores signals it has no handler for); the command gets the defaults back.
    for signum in _RELAYED:
        signal.signal(signum, _relay_to_namespace)
    pid = os.fork()
    if pid == 0:
        for signum in _RELAYED:
            signal.signal(signum, signal.SIG_DFL)
        os.close(status_fd)
        exec_command(command)
    while True:
        try:
            reaped, status = os.waitpid(-1, 0)
        except ChildProcessError:
            status = 0
            break
        if reaped == pid:
            break
    try:  # noqa: SIM105 (contextlib costs launcher start-up time)
        os.write(status_fd, status.to_bytes(4, "little"))
    except OSError:
        pass  # the outer process is gone; nobody is waiting for the status
    # Leaving ends the namespace: the kernel kills whatever the command left running.
    os._exit(0)


def _relay_to_namespace(signum: int, _frame: object) -> None:
    try:
        os.kill(-1, signum)  # from init: every other process of the namespace
    except OSError:
        return


def _die(message: str, code: int) -> NoReturn:
    sys.stderr.write(f"codex-sandbox: {message}\n")
    sys.stderr.flush()
    os._exit(code)
