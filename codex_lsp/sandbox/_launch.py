"""The sandbox launcher: restrict a command, run it, and end everything it started.

Usage:

    python -m codex_lsp.sandbox --policy '<SandboxPolicy JSON>' [--cwd DIR]
        [--hide DIR]... [--protect PATH]... [--protect-fd N]... [--max-processes N]
        [--max-memory-mb N] [--fallback-metadata-changes] [--allow-unix-socket PATH]...
        -- CMD...

`--protect-fd` names a sealed memory file listing more paths to protect
(`_protected_list`); it is read and closed before anything else.

The outer process (this one) enters a private user, mount, IPC, PID and (with the
network off) network namespace, sets up the mounts, builds the Landlock ruleset and forks.
The child is the PID namespace's init: it mounts its `/proc`, applies the limits,
drops capabilities, enforces Landlock and seccomp (in that order: Landlock forbids
mounting once enforced, and the filter need not allow the set-up calls), forks the
command and reports its status. The outer process relays signals, ends the whole
tree (`_supervise.py`) and exits as the command did.

Where the kernel refuses the namespaces, the command runs under Landlock and seccomp
alone, with the extra seccomp rules that stand in for the mounts; the outer process
is then a subreaper that kills the command's descendants itself. If any layer cannot
be applied the command is not run: a sandbox that silently runs unsandboxed is worse
than none.
"""

from __future__ import annotations

import os
import sys

from . import _connect_broker, _init, _limits, _mounts, _plan, _roots, _seccomp, _supervise
from ._jsonlite import loads
from ._protected_list import read as read_protected
from .beneath import open_root

# Spelled out so the launcher does not import `typing`: its start-up time counts.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal
    import socket
    from typing import NoReturn
else:
    # `_signal`, not `signal`: the latter imports `enum`, a fifth of the start-up time.
    import _signal as signal


PROG = "codex-sandbox"
DISABLE_ENV = "CODEX_LSP_SANDBOX_DISABLE"
_VALUED = (
    "--policy",
    "--cwd",
    "--hide",
    "--protect",
    "--protect-fd",
    "--root",
    "--max-processes",
    "--max-memory-mb",
    "--allow-unix-socket",
)
MOVED = (
    "the writable root {} no longer leads to the folder this session was started with "
    "(it was moved, or replaced by a link): command not run. Put the folder back, or start "
    "a new session in the folder you mean."
)


class UsageError(Exception):
    """The launcher was called with arguments it does not understand."""


class Args:
    """The launcher's parsed command line."""

    def __init__(self) -> None:
        self.policy: str | None = None
        self.cwd: str | None = None
        self.hide: list[str] = []
        self.protect: list[str] = []
        self.protect_fds: list[int] = []
        # Writable roots held by the session, as `PATH=DEV:INO`.
        self.roots: list[str] = []
        self.max_processes = 0
        self.max_memory_mb = 0
        self.fallback_metadata_changes = False
        self.unix_sockets: list[str] = []
        self.command: list[str] = []


def _count(name: str, value: str) -> int:
    if not value.isdigit():
        raise UsageError(f"{name} needs a whole number, got {value!r}")
    return int(value)


def parse_args(args: list[str]) -> Args:
    """The launcher's own arguments, up to `--`, and the command after it."""
    parsed = Args()
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            parsed.command = args[i + 1 :]
            break
        if arg == "--fallback-metadata-changes":
            parsed.fallback_metadata_changes = True
            i += 1
            continue
        name, eq, value = arg.partition("=")
        if name not in _VALUED:
            raise UsageError(f"unknown argument {arg!r}")
        if not eq:
            i += 1
            if i >= len(args):
                raise UsageError(f"{name} needs a value")
            value = args[i]
        if name == "--policy":
            parsed.policy = value
        elif name == "--cwd":
            parsed.cwd = value
        elif name == "--hide":
            parsed.hide.append(value)
        elif name == "--protect":
            parsed.protect.append(value)
        elif name == "--protect-fd":
            parsed.protect_fds.append(_count(name, value))
        elif name == "--root":
            parsed.roots.append(value)
        elif name == "--max-processes":
            parsed.max_processes = _count(name, value)
        elif name == "--allow-unix-socket":
            if not value.startswith("/"):
                raise UsageError(f"{name} needs an absolute path, got {value!r}")
            parsed.unix_sockets.append(value)
        else:
            parsed.max_memory_mb = _count(name, value)
        i += 1
    if parsed.policy is None:
        raise UsageError("--policy is required")
    if not parsed.command:
        raise UsageError("no command after --")
    return parsed


def launch(policy: dict[str, object], args: Args, disabled: set[str]) -> NoReturn:
    """Sandbox and run `args.command` under `policy` (read-only or workspace-write)."""
    kind = str(policy.get("type"))
    network = policy.get("network_access") is True
    explicit = policy.get("writable_roots") or ()
    cwd = args.cwd or os.getcwd()
    fds: dict[str, int] | None = None
    if args.roots and kind == "workspace-write":
        fds = open_held_roots(args.roots)
        roots = _roots.specs_for(list(fds))
    else:
        roots = _roots.compute(
            kind,
            cwd=cwd,
            explicit=[str(p) for p in explicit] if isinstance(explicit, list | tuple) else (),
            exclude_slash_tmp=policy.get("exclude_slash_tmp") is True,
            exclude_tmpdir_env_var=policy.get("exclude_tmpdir_env_var") is True,
        )
    plan = _plan.Plan(
        roots,
        workspace_write=kind == "workspace-write",
        cwd=cwd,
        protect=args.protect,
        hide=args.hide,
        fds=fds,
    )
    limits = _limits.Limits(args.max_processes, args.max_memory_mb)
    cgroup = _limits.CommandCgroup.create(limits)
    # Opened before the mounts hide anything: these are the user's choice.
    allowed = _connect_broker.AllowedSockets(args.unix_sockets) if args.unix_sockets else None

    flags = 0
    if "mountns" not in disabled:
        if plan.workspace_write:
            plan.make_placeholders()
        flags = _mounts.enter_private_namespace(pid="pidns" not in disabled, net=not network)
    elif "pidns" not in disabled:
        flags = _mounts.enter_pid_namespace()
    mount_namespace = bool(flags & _mounts.CLONE_NEWNS)
    if mount_namespace:
        carve = _plan.protect_with_mounts(plan)
        if plan.given_pts_fd is not None:
            reopen_given_terminals(plan.given_pts_fd)
    else:
        carve = plan.mountable + plan.links + plan.walked_links + plan.missing + plan.hidden
        if plan.workspace_write:
            plan.scratch_tmpdir()
    ruleset = _plan.build_ruleset(plan, carve, network=network)
    table = _seccomp.syscall_table()
    if table is None:
        raise OSError(f"no seccomp syscall table for {os.uname().machine}")
    program = _seccomp.build_filter(
        table,
        deny_network=not network,
        deny_ipc=not flags & _mounts.CLONE_NEWIPC,
        deny_metadata=not mount_namespace and not args.fallback_metadata_changes,
        broker=allowed is not None,
    )
    channel = None
    if allowed is not None:
        import socket

        channel = socket.socketpair()
    pid_namespace = bool(flags & _mounts.CLONE_NEWPID)
    conf = _init.Confinement(
        ruleset,
        program,
        limits,
        pid_namespace=pid_namespace,
        mount_namespace=mount_namespace,
        user_namespace=bool(flags & _mounts.CLONE_NEWUSER),
        cgroup=cgroup is not None,
        broker_channel=channel[1].fileno() if channel else -1,
    )
    sys.stdout.flush()
    if pid_namespace:
        status_r, status_w = os.pipe2(os.O_CLOEXEC)
        child = os.fork()
        if child == 0:
            os.close(status_r)
            _drop_broker_side(channel, allowed)
            _init.run_as_init(conf, args.command, status_w)
        os.close(status_w)
    else:
        _supervise.become_subreaper()
        status_r = -1
        child = os.fork()
        if child == 0:
            _init.die_with_parent()
            _drop_broker_side(channel, allowed)
            try:
                _init.confine(conf)
            except OSError as exc:
                _die(f"sandbox could not be applied, command not run: {exc}", 1)
            _init.exec_command(args.command)
    os.close(ruleset.fd)
    broker = None
    if channel is not None and allowed is not None:
        broker = _receive_broker(channel, allowed, network=network)
    supervisor = _supervise.Supervisor(
        child, pid_namespace=pid_namespace, cgroup=cgroup, broker=broker
    )
    status = supervisor.wait()
    if status_r >= 0:
        reported = os.read(status_r, 4)
        if len(reported) == 4:
            status = int.from_bytes(reported, "little")
    _exit_like(status)


def open_held_roots(specs: list[str]) -> dict[str, int]:
    """A handle on each root the session holds, opened with no symlink followed and
    checked to be the very folder the session opened; the command is refused otherwise."""
    fds: dict[str, int] = {}
    for spec in specs:
        path, _, identity = spec.rpartition("=")
        try:
            fd = open_root(path)
        except OSError:
            _die(MOVED.format(path), 1)
        info = os.fstat(fd)
        if f"{info.st_dev}:{info.st_ino}" != identity:
            _die(MOVED.format(path), 1)
        fds[path] = fd
    return fds


def _drop_broker_side(
    channel: tuple[socket.socket, socket.socket] | None,
    allowed: _connect_broker.AllowedSockets | None,
) -> None:
    """In the sandboxed side: nothing of the broker's but the end it sends the listener on."""
    if channel is not None:
        channel[0].close()
    if allowed is not None:
        allowed.close()


def _receive_broker(
    channel: tuple[socket.socket, socket.socket],
    allowed: _connect_broker.AllowedSockets,
    *,
    network: bool,
) -> _connect_broker.Broker | None:
    """The broker for the seccomp listener the sandboxed side sends, or None if it
    failed before sending one (it then reports why and exits)."""
    import socket

    ours, theirs = channel
    theirs.close()
    with ours:
        try:
            _msg, fds, _flags, _addr = socket.recv_fds(ours, 1, 1)
        except OSError:
            return None
    return _connect_broker.Broker(fds[0], allowed, network=network) if fds else None


# Unix98 pseudo-terminal slaves: majors 136 to 143, 256 minors each.
_PTS_MAJORS = range(136, 144)


def reopen_given_terminals(pts_dir: int) -> None:
    """Swap the terminal on stdin, stdout and stderr for the same terminal opened
    through this namespace's read-only copy of the host's devpts (`pts_dir`).

    A descriptor keeps the mount it was opened on, and the engine opened the terminal
    on the host's writable devpts: `fchmod` through it, or `chmod` through
    `/proc/self/fd/N`, would change the host's `/dev/pts/N` (making it world-writable,
    so that anyone could type into it). The same terminal reached through the
    read-only mount refuses every mode, owner and time change with EROFS. Where it
    cannot be reopened (it comes from another devpts instance) it stays as it was.
    """
    reopened: dict[str, int] = {}
    for fd in (0, 1, 2):
        try:
            if not os.isatty(fd):
                continue
            given = os.fstat(fd)
        except OSError:
            continue
        major = os.major(given.st_rdev)
        if major not in _PTS_MAJORS:
            continue
        name = str((major - 136) * 256 + os.minor(given.st_rdev))
        if name not in reopened:
            try:
                new = os.open(name, os.O_RDWR | os.O_NOCTTY | os.O_CLOEXEC, dir_fd=pts_dir)
            except OSError:
                continue
            same = os.fstat(new)
            if (same.st_dev, same.st_ino) != (given.st_dev, given.st_ino):
                os.close(new)
                continue
            reopened[name] = new
        os.set_blocking(reopened[name], os.get_blocking(fd))
        os.dup2(reopened[name], fd)  # dup2 leaves the new descriptor inheritable
    for new in reopened.values():
        os.close(new)


def _exit_like(status: int) -> NoReturn:
    """Exit the way the command did: with its code, or killed by its signal."""
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        import resource

        # Dying of SIGSEGV or SIGSYS here must not leave a core of the launcher.
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if signum != signal.SIGKILL:  # whose disposition cannot be set (EINVAL)
            signal.signal(signum, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signum])
        os.kill(os.getpid(), signum)
        os._exit(128 + signum)  # a signal that does not kill (SIGCHLD) lands here
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def _die(message: str, code: int) -> NoReturn:
    sys.stderr.write(f"{PROG}: {message}\n")
    sys.stderr.flush()
    os._exit(code)


def main(argv: list[str] | None = None) -> NoReturn:
    """Entry point of the launcher process."""
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
        assert args.policy is not None
        policy = loads(args.policy)
    except (UsageError, ValueError) as exc:
        _die(f"{exc}\nusage: {PROG} --policy JSON [--cwd DIR] -- COMMAND [ARG...]", 2)
    # First of all: the command must never hold these, whatever happens next.
    for fd in args.protect_fds:
        try:
            args.protect += read_protected(fd)
        except (ValueError, OSError) as exc:
            _die(f"{exc}: command not run", 1)
    if not isinstance(policy, dict):
        _die("--policy must be a JSON object", 2)
    kind = policy.get("type")
    if kind not in ("danger-full-access", "read-only", "workspace-write"):
        _die(f"unsupported sandbox policy type {kind!r}", 2)
    if kind == "danger-full-access":
        _init.exec_command(args.command)
    os.environ["CODEX_SANDBOX"] = "seccomp"
    if policy.get("network_access") is not True:
        os.environ["CODEX_SANDBOX_NETWORK_DISABLED"] = "1"
    disabled = set(os.environ.get(DISABLE_ENV, "").split(","))
    try:
        launch(policy, args, disabled)
    except OSError as exc:
        _die(f"sandbox could not be applied, command not run: {exc}", 1)
