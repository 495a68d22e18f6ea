"""The sandbox launcher: restrict this process, then exec the command in its place.

Usage: `python -m codex_lsp.sandbox --policy '<SandboxPolicy JSON>' --cwd DIR -- CMD...`

Order matters. The mount namespace comes first, because Landlock forbids mounting
once it is enforced and the mounts need the capabilities dropped next; then
Landlock; then seccomp, last, so the filter does not have to allow the set-up calls.
Everything is inherited by every process the command starts. If any layer cannot
be applied the command is not run: a sandbox that silently runs unsandboxed is
worse than none.
"""

from __future__ import annotations

import os
import sys

from . import _caps, _landlock, _mounts, _roots, _seccomp
from ._jsonlite import loads

# Spelled out so the launcher does not import `typing` (its start-up time counts).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

PROG = "codex-sandbox"
DISABLE_ENV = "CODEX_LSP_SANDBOX_DISABLE"
# Character devices every program expects to write to; they hold no data.
DEVICES = (
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
)
# POSIX shared memory and semaphores (multiprocessing locks) live here. With a
# mount namespace it gets a fresh private tmpfs, writable under either policy and
# gone when the command ends; without one, the host's is writable only under
# workspace-write.
SHM = "/dev/shm"


class UsageError(Exception):
    """The launcher was called with arguments it does not understand."""


def parse_args(args: list[str]) -> tuple[str, str, list[str]]:
    """`(policy_json, cwd, command)` from the launcher's own arguments."""
    policy: str | None = None
    cwd: str | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            command = args[i + 1 :]
            break
        name, eq, value = arg.partition("=")
        if name not in ("--policy", "--cwd"):
            raise UsageError(f"unknown argument {arg!r}")
        if not eq:
            i += 1
            if i >= len(args):
                raise UsageError(f"{name} needs a value")
            value = args[i]
        if name == "--policy":
            policy = value
        else:
            cwd = value
        i += 1
    else:
        command = []
    if policy is None:
        raise UsageError("--policy is required")
    if not command:
        raise UsageError("no command after --")
    return policy, cwd or os.getcwd(), command


def _entry(path: str) -> str:
    """Where the directory entry `path` itself lives, with its parents resolved."""
    head, tail = os.path.split(path)
    return os.path.join(os.path.realpath(head), tail)


class Plan:
    """What to protect, in resolved paths, for one launch."""

    def __init__(self, roots: list[_roots.RootSpec], *, workspace_write: bool) -> None:
        self.writable: list[str] = []
        for root, _ in roots:
            real = os.path.realpath(root)
            if os.path.exists(real) and real not in self.writable:
                self.writable.append(real)
        self.writable.sort(key=len)
        self.workspace_write = workspace_write
        self.private_shm = False
        # Protected entries that exist and can carry a read-only mount, the ones
        # that are symlinks (a mount would land on their target instead), and the
        # ones that do not exist yet.
        self.mountable: list[str] = []
        self.links: list[str] = []
        self.missing: list[str] = []
        for _, subs in roots:
            for sub in subs:
                entry = _entry(sub)
                target = os.path.realpath(sub)
                if os.path.islink(entry):
                    self._add(self.links, entry)
                    if os.path.exists(target):
                        self._add(self.mountable, target)
                elif os.path.exists(entry):
                    self._add(self.mountable, entry)
                else:
                    self._add(self.missing, entry)

    def _add(self, bucket: list[str], path: str) -> None:
        if path not in bucket and self.in_writable(path):
            bucket.append(path)

    def in_writable(self, path: str) -> bool:
        return any(_roots.is_beneath(path, w) for w in self.writable)


def protect_with_mounts(plan: Plan) -> list[str] | None:
    """Read-only mounts for the plan; returns what Landlock must still carve out.

    None means no private mount namespace was available and nothing was mounted.
    """
    try:
        if not _mounts.enter_private_namespace():
            return None
    except OSError:
        # unshare worked but propagation could not be made private: mounting now
        # would leak into the host, so rely on Landlock alone.
        return None
    originals = _mounts.mountpoints()
    binds_ok = True
    for path in plan.writable:
        try:
            _mounts.bind_in_place(path, read_only=False)
        except OSError:
            binds_ok = False
    carve = list(plan.links)
    for path in plan.mountable:
        try:
            _mounts.bind_in_place(path, read_only=True)
        except OSError:
            carve.append(path)
    if binds_ok:
        # Only once every root has its own mount: otherwise a root would turn
        # read-only along with the filesystem that holds it.
        for mnt in originals:
            if plan.in_writable(mnt):
                continue
            try:
                _mounts.remount(mnt, read_only=True)
            except OSError:
                # Landlock still refuses writes there; only metadata changes
                # (chmod, utime) on that one filesystem stay possible.
                continue
    # After the loop above, which would otherwise turn it read-only by its path.
    try:
        _mounts.mount_tmpfs(SHM)
        plan.private_shm = True
    except OSError:
        plan.private_shm = False
    try:
        # Our cwd still points into the mount that is now underneath the binds.
        os.chdir(os.getcwd())
    except OSError:
        return carve  # writes relative to the old cwd then fail, they do not leak
    return carve


def _grant_root(ruleset: _landlock.Ruleset, root: str, carve: list[str]) -> None:
    inside = [p for p in carve if p != root and _roots.is_beneath(p, root)]
    if root in carve:
        return
    if not inside:
        ruleset.allow(root, _landlock.READ | _landlock.WRITE)
        return
    _grant_around(ruleset, root, inside)


def _grant_around(ruleset: _landlock.Ruleset, directory: str, protected: list[str]) -> None:
    # Landlock rights flow down the whole hierarchy, so the directories on the way
    # to a protected path get no rights of their own, only their other entries do.
    try:
        entries = sorted(os.listdir(directory))
    except OSError:
        return
    for name in entries:
        path = os.path.join(directory, name)
        if path in protected:
            continue
        below = [p for p in protected if _roots.is_beneath(p, path)]
        if below:
            if os.path.isdir(path) and not os.path.islink(path):
                _grant_around(ruleset, path, below)
            continue
        ruleset.allow(path, _landlock.READ | _landlock.WRITE)


def apply_sandbox(policy: dict[str, object], cwd: str, disabled: set[str]) -> None:
    """Restrict this process according to `policy` (read-only or workspace-write)."""
    kind = str(policy.get("type"))
    network = policy.get("network_access") is True
    explicit = policy.get("writable_roots") or ()
    roots = _roots.compute(
        kind,
        cwd=cwd,
        explicit=[str(p) for p in explicit] if isinstance(explicit, list | tuple) else (),
        exclude_slash_tmp=policy.get("exclude_slash_tmp") is True,
        exclude_tmpdir_env_var=policy.get("exclude_tmpdir_env_var") is True,
    )
    plan = Plan(roots, workspace_write=kind == "workspace-write")
    carve = None if "mountns" in disabled else protect_with_mounts(plan)
    if carve is None:
        carve = plan.mountable + plan.links + plan.missing

    abi = _landlock.abi_version()
    if abi < 1:
        raise OSError("Landlock is not available in this kernel")
    ruleset = _landlock.Ruleset(abi, deny_tcp=not network)
    ruleset.allow("/", _landlock.READ)
    for device in DEVICES:
        ruleset.allow(device, _landlock.DEVICE)
    for root in plan.writable:
        _grant_root(ruleset, root, carve)
    if plan.private_shm or plan.workspace_write:
        ruleset.allow(SHM, _landlock.READ | _landlock.WRITE)
    _caps.drop_dangerous()
    _seccomp.set_no_new_privs()
    ruleset.enforce()

    if not network:
        table = _seccomp.syscall_table()
        if table is None:
            raise OSError(f"no seccomp syscall table for {os.uname().machine}")
        _seccomp.install(_seccomp.build_filter(table, deny_network=True))


def detach_from_terminal() -> None:
    """Start a new session, so the command has no controlling terminal to abuse.

    With one it could push keystrokes into the terminal the engine runs in
    (TIOCSTI) and have them executed outside the sandbox.
    """
    try:
        os.setsid()
    except OSError:
        # Already a session or group leader, e.g. started on a pty of its own:
        # that terminal belongs to the command anyway.
        return


def _die(message: str, code: int) -> NoReturn:
    sys.stderr.write(f"{PROG}: {message}\n")
    sys.stderr.flush()
    os._exit(code)


def main(args: list[str] | None = None) -> NoReturn:
    """Entry point of the launcher process."""
    try:
        policy_json, cwd, command = parse_args(sys.argv[1:] if args is None else args)
        policy = loads(policy_json)
    except (UsageError, ValueError) as exc:
        _die(f"{exc}\nusage: {PROG} --policy JSON [--cwd DIR] -- COMMAND [ARG...]", 2)
    if not isinstance(policy, dict):
        _die("--policy must be a JSON object", 2)
    kind = policy.get("type")
    if kind not in ("danger-full-access", "read-only", "workspace-write"):
        _die(f"unsupported sandbox policy type {kind!r}", 2)
    if kind != "danger-full-access":
        os.environ["CODEX_SANDBOX"] = "seccomp"
        if policy.get("network_access") is not True:
            os.environ["CODEX_SANDBOX_NETWORK_DISABLED"] = "1"
        disabled = set(os.environ.get(DISABLE_ENV, "").split(","))
        try:
            apply_sandbox(policy, cwd, disabled)
        except OSError as exc:
            _die(f"sandbox could not be applied, command not run: {exc}", 1)
        detach_from_terminal()
    sys.stdout.flush()
    try:
        os.execvp(command[0], command)
    except FileNotFoundError:
        _die(f"{command[0]}: command not found", 127)
    except OSError as exc:
        _die(f"{command[0]}: {exc.strerror or exc}", 126)
