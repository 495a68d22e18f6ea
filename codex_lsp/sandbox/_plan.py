"""What one launch protects, and the mounts and Landlock rules that protect it.

`Plan` resolves the policy's roots, their protected entries and the hidden
directories into real paths. `protect_with_mounts` turns it into mounts inside the
private mount namespace; `build_ruleset` into a Landlock ruleset. Whatever the
mounts could not protect (no namespace, a symlinked entry, a failed bind) is carved
out of the Landlock grants instead, which is coarser but never weaker. The roots are
used through directory handles (checked against the session's, when it passed them),
never by their paths again: the binds, the read-only mounts inside them and the
Landlock rules all land on the folders that were checked.
"""

from __future__ import annotations

import errno
import os
import stat

from . import _landlock, _mounts, _roots
from .beneath import open_beneath, open_root

# Character devices every program expects to write to; they hold no data.
DEVICES = (
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
)
# The terminals of the command's own devpts instance. Without a mount namespace this
# would be the host's, holding every other session's terminal, so it is left out.
PRIVATE_PTS = "/dev/pts"
# POSIX shared memory and semaphores (multiprocessing locks) live here. With a
# mount namespace it gets a fresh private tmpfs, writable under either policy and
# gone when the command ends; without one, the host's is writable only under
# workspace-write.
SHM = "/dev/shm"


def _entry(path: str) -> str:
    """Where the directory entry `path` itself lives, with its parents resolved."""
    head, tail = os.path.split(path)
    return os.path.join(os.path.realpath(head), tail)


class Plan:
    """What to protect, in resolved paths, for one launch."""

    def __init__(
        self,
        roots: list[_roots.RootSpec],
        *,
        workspace_write: bool,
        cwd: str,
        protect: list[str],
        hide: list[str],
        fds: dict[str, int] | None = None,
    ) -> None:
        # Each writable root by a directory handle: mounts and Landlock rules go through
        # it, so a path re-pointed since the root was opened cannot move the root.
        self.fds: dict[str, int] = dict(fds or {})
        if fds is None:
            for root, _ in roots:
                real = os.path.realpath(root)
                if real in self.fds:
                    continue
                try:
                    self.fds[real] = open_root(real)
                except OSError:
                    continue  # missing: nothing to write there
        self.writable: list[str] = sorted(self.fds, key=len)
        self.workspace_write = workspace_write
        self.cwd = _roots.absolute(cwd, "/")
        self.private_dev = False
        self.private_shm = False
        # The host's devpts, held open before the private /dev hides it: terminals the
        # command was given may still be reopened through /proc/self/fd.
        self.given_pts_fd: int | None = None
        # Protected entries that exist and can carry a read-only mount, the ones
        # that are symlinks (a mount would land on their target instead), and the
        # ones that do not exist yet.
        self.mountable: list[str] = []
        self.links: list[str] = []
        self.missing: list[str] = []
        # Links among the entries a walk found (`protect`): their targets are mounted
        # read-only; the links themselves are carved out only where Landlock is all there
        # is, since a carve-out inside /tmp would keep /tmp from taking new entries.
        self.walked_links: list[str] = []
        self.walked: set[str] = set(protect)
        self._placed: set[tuple[int, str]] = set()
        # A walk of /tmp can name hundreds of entries: those (`protect`) come from a walk
        # that follows no symlink below a resolved root, so each is only looked at; if a
        # folder above one was swapped for a link since, its mount, made through the
        # root's handle with no link followed, fails and Landlock carves it out instead.
        # One the walk found that is gone now is left alone: nothing is there to protect,
        # and a placeholder would be a folder made in someone else's tree.
        resolved = [(sub, _entry(sub)) for _, subs in roots for sub in subs]
        for sub, entry in resolved + [(sub, sub) for sub in protect]:
            walked = entry in self.walked
            try:
                info = os.lstat(entry)
            except OSError:
                if not walked:
                    self._add(self.missing, entry)
                continue
            if stat.S_ISLNK(info.st_mode):
                self._add(self.walked_links if walked else self.links, entry)
                target = os.path.realpath(sub)
                if os.path.exists(target):
                    self._add(self.mountable, target)
            else:
                self._add(self.mountable, entry)
        # Directories the command must not read at all, wherever they are.
        self.hidden = [os.path.realpath(p) for p in hide if os.path.isdir(p)]

    def _add(self, bucket: list[str], path: str) -> None:
        key = (id(bucket), path)
        if key not in self._placed and self.in_writable(path):
            self._placed.add(key)
            bucket.append(path)

    def in_writable(self, path: str) -> bool:
        return any(_roots.is_beneath(path, w) for w in self.writable)

    def make_placeholders(self) -> None:
        """Create the missing protected entries as empty directories, so a read-only
        mount can hold them: a mount needs something to stand on, and a command must
        not be able to create any of them with content of its own. Git passes over an
        empty `.git` folder and goes on to the repository above."""
        for path in list(self.missing):
            try:
                os.mkdir(path)
            except OSError:
                continue
            self.missing.remove(path)
            self.mountable.append(path)

    def scratch_tmpdir(self) -> None:
        """Give the command a `$TMPDIR` of its own inside the shared temporary folder.

        Without a mount namespace a writable root takes no new entries at its top (its
        `.git`, `.codex` and `.agents` must not be created, and Landlock cannot tell one
        name from another), so `/tmp` would refuse every new temporary file; a folder
        that already exists inside it keeps every right.
        """
        uid = os.geteuid()
        for base in (os.environ.get("TMPDIR") or "", "/tmp"):
            real = os.path.realpath(base) if base else ""
            if real not in self.fds:
                continue
            path = os.path.join(real, f"codex-sandbox-{uid}")
            try:
                os.mkdir(path, 0o700)
            except FileExistsError:
                pass
            except OSError:
                continue
            try:
                info = os.lstat(path)
            except OSError:
                continue
            # Not a link or another user's folder planted under the name.
            if stat.S_ISDIR(info.st_mode) and info.st_uid == uid:
                os.environ["TMPDIR"] = path
                return

    def reopen(self, root: str) -> None:
        """Open `root` again, in the mount namespace just entered (a mount can only be
        made on a path of one's own namespace), and check it is the same folder."""
        fd = open_root(root)
        held, fresh = os.fstat(self.fds[root]), os.fstat(fd)
        if (held.st_dev, held.st_ino) != (fresh.st_dev, fresh.st_ino):
            os.close(fd)
            raise OSError(f"the writable root {root} was moved while the sandbox was set up")
        os.close(self.fds[root])
        self.fds[root] = fd

    def bind_read_only(self, path: str) -> None:
        """A read-only mount over the protected entry `path`, reached from the handle of
        the root that holds it with no symlink followed; a link there is refused."""
        holders = [root for root in self.writable if _roots.is_beneath(path, root)]
        if not holders or path in holders:
            _mounts.bind_in_place(path, read_only=True)
            return
        root = max(holders, key=len)
        head, name = os.path.split(path[len(root) :].lstrip("/"))
        parent = open_beneath(self.fds[root], head)
        try:
            fd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
        finally:
            os.close(parent)
        try:
            if stat.S_ISLNK(os.fstat(fd).st_mode):
                raise OSError(f"{path} became a symbolic link")
            try:
                _mounts.bind_read_only_at(fd)
            except OSError as exc:
                if exc.errno not in (errno.ENOSYS, errno.EPERM):
                    raise
                _mounts.bind_in_place(path, read_only=True)  # no mount API for handles
        finally:
            os.close(fd)

    def fd_path(self, root: str, path: str) -> str:
        """`path` (beneath `root`) as reached through the root's handle."""
        return f"/proc/self/fd/{self.fds[root]}{path[len(root) :] if root != '/' else path}"


def protect_with_mounts(plan: Plan) -> list[str]:
    """Read-only mounts for the plan, in the private mount namespace this process has
    just entered; returns what Landlock must still carve out."""
    originals = _mounts.mountpoints()
    binds_ok = True
    for path in plan.writable:
        plan.reopen(path)
        try:
            _mounts.bind_in_place(plan.fd_path(path, path), read_only=False)
        except OSError:
            binds_ok = False
        # Again, now through the new mount, which the protected entries must go on.
        plan.reopen(path)
    carve = list(plan.links)
    for path in plan.mountable:
        try:
            plan.bind_read_only(path)
        except FileNotFoundError:
            if path not in plan.walked:
                carve.append(path)  # removed since the walk: nothing left to protect
        except OSError:
            carve.append(path)
    carve += plan.missing
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
    # After the loop above, which would otherwise turn them read-only by path.
    try:
        plan.given_pts_fd = os.open(PRIVATE_PTS, os.O_PATH | os.O_CLOEXEC | os.O_DIRECTORY)
    except OSError:
        plan.given_pts_fd = None
    try:
        _mounts.minimal_dev()
        plan.private_dev = plan.private_shm = True
    except OSError:
        try:
            _mounts.mount_tmpfs(SHM)
            plan.private_shm = True
        except OSError:
            plan.private_shm = False
    for path in plan.hidden:
        try:
            _mounts.hide(path)
        except OSError:
            carve.append(path)  # then at least Landlock grants nothing beneath it
    try:  # noqa: SIM105 (contextlib costs launcher start-up time)
        # Our cwd still points into the mount that is now underneath the binds.
        os.chdir(os.getcwd())
    except OSError:
        pass  # writes relative to the old cwd then fail, they do not leak
    return carve


def build_ruleset(plan: Plan, carve: list[str], *, network: bool) -> _landlock.Ruleset:
    """The Landlock ruleset for the plan, ready to be enforced by the command's side."""
    abi = _landlock.abi_version()
    if abi < 1:
        raise OSError("Landlock is not available in this kernel")
    ruleset = _landlock.Ruleset(abi, deny_tcp=not network)
    hidden = [p for p in plan.hidden if p in carve]
    if hidden:
        _grant_around(ruleset, "/", hidden, _landlock.READ)
    else:
        ruleset.allow("/", _landlock.READ)
    devices = DEVICES + ((PRIVATE_PTS,) if plan.private_dev else ())
    for device in devices:
        ruleset.allow(device, _landlock.DEVICE)
    if plan.private_dev and plan.given_pts_fd is not None:
        # No path leads there any more: only descriptors the command already holds.
        ruleset.allow_fd(plan.given_pts_fd, _landlock.DEVICE)
        os.close(plan.given_pts_fd)
        plan.given_pts_fd = None
    for root in plan.writable:
        _grant_root(ruleset, plan, root, carve)
    if plan.private_shm or plan.workspace_write:
        ruleset.allow(SHM, _landlock.READ | _landlock.WRITE)
    return ruleset


def _grant_root(ruleset: _landlock.Ruleset, plan: Plan, root: str, carve: list[str]) -> None:
    inside = [p for p in carve if p != root and _roots.is_beneath(p, root)]
    if root in carve:
        return
    if not inside:
        ruleset.allow_fd(plan.fds[root], _landlock.READ | _landlock.WRITE)
        return
    held = [plan.fd_path(root, p) for p in inside]
    budget = [MAX_NESTED_RULES]
    _grant_around(ruleset, plan.fd_path(root, root), held, _landlock.READ | _landlock.WRITE, budget)


# Rules one root may spend below its top on folders that hold protected entries (the
# repositories a walk of /tmp found, each a rule per entry of every folder on its way).
# Past it, such folders are left with no rights at all: read-only, never less protected.
MAX_NESTED_RULES = 512


def _grant_around(
    ruleset: _landlock.Ruleset,
    directory: str,
    protected: list[str],
    rights: int,
    budget: list[int] | None = None,
    depth: int = 0,
) -> None:
    # Landlock rights flow down the whole hierarchy, so the directories on the way
    # to a protected path get no rights of their own, only their other entries do.
    try:
        entries = sorted(os.listdir(directory))
    except OSError:
        return
    # Each protected path sorted under the entry it lies in, at once: a walk of /tmp can
    # carve hundreds of paths out of folders of thousands of entries.
    prefix = directory if directory.endswith("/") else directory + "/"
    exact: set[str] = set()
    below: dict[str, list[str]] = {}
    for path in protected:
        if not path.startswith(prefix):
            continue
        name, _, rest = path[len(prefix) :].partition("/")
        if rest:
            below.setdefault(name, []).append(path)
        else:
            exact.add(name)
    if budget is not None and depth > 0:
        if budget[0] < len(entries):
            budget[0] = 0
            return
        budget[0] -= len(entries)
    for name in entries:
        if name in exact:
            continue
        path = prefix + name
        under = below.get(name)
        if under:
            if os.path.isdir(path) and not os.path.islink(path):
                _grant_around(ruleset, path, under, rights, budget, depth + 1)
            continue
        ruleset.allow(path, rights)
