"""Effective writable roots of a sandbox policy, computed with `os.path` only.

The launcher runs this before every sandboxed command, so it avoids `pathlib` and
pydantic (each costs milliseconds to import); `policy.py` wraps the result in `Path`s
for the rest of the engine. The rules follow the Codex core: explicit roots, the cwd,
`/tmp` and `$TMPDIR`, each carrying the read-only subpaths that stay protected.
"""

from __future__ import annotations

import os

# Spelled out so the launcher does not import `typing` or `collections.abc`.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

# Names inside a writable root that stay read-only: a command that may edit the
# project must not be able to plant git hooks or rewrite the agent's own config.
GIT = ".git"
AGENTS = ".agents"
CODEX = ".codex"
PROTECTED_NAMES = frozenset({GIT, AGENTS, CODEX})

RootSpec = tuple[str, tuple[str, ...]]  # (root, read-only subpaths)


def absolute(path: str, cwd: str) -> str:
    """`path` made absolute against `cwd` with `..` and `.` folded lexically."""
    joined = os.path.join(cwd, path)
    normal = os.path.normpath(joined)
    # POSIX keeps a leading `//` as implementation-defined; Linux treats it as `/`.
    if normal.startswith("//"):
        normal = "/" + normal.lstrip("/")
    return normal


# How a git pointer file is opened: a FIFO planted in its place must not make the engine
# or the launcher wait for a writer, nor a terminal become theirs.
_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_S_IFMT, _S_IFREG = 0o170000, 0o100000  # `stat` costs the launcher an import


def _first_line(path: str) -> str | None:
    """The first line (at most 4 KiB) of the regular file `path`, else None.

    Anything else (a FIFO, a socket, a device, a folder) is passed over without being
    waited on: the kind is checked before the open and again on the descriptor.
    """
    try:
        if os.stat(path).st_mode & _S_IFMT != _S_IFREG:
            return None
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return None
    try:
        if os.fstat(fd).st_mode & _S_IFMT != _S_IFREG:
            return None
        data = os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data.decode("utf-8", errors="replace").split("\n", 1)[0]


def gitdir_target(dot_git: str) -> str | None:
    """The directory a `.git` pointer file (`gitdir: <path>`) names, if it is one."""
    first = _first_line(dot_git)
    if first is None:
        return None
    key, sep, value = first.partition(":")
    if not sep or key.strip() != "gitdir" or not value.strip():
        return None
    return absolute(value.strip(), os.path.dirname(dot_git))


def commondir_target(gitdir: str) -> str | None:
    """The main repository's git directory that a worktree's `gitdir` shares
    (its `commondir` file), if it names one."""
    first = _first_line(os.path.join(gitdir, "commondir"))
    value = first.strip() if first is not None else ""
    return absolute(value, gitdir) if value else None


def _entries_of(directory: str) -> list[str]:
    """The protected entries of one folder: its `.git` (with, for a pointer file, the
    git directory it names and that one's common directory), `.agents` and `.codex`,
    whether or not they exist yet."""
    found: list[str] = []
    dot_git = os.path.join(directory, GIT)
    found.append(dot_git)
    if os.path.isfile(dot_git):
        target = gitdir_target(dot_git)
        if target is not None:
            found.append(target)
            common = commondir_target(target)
            if common is not None and common not in found:
                found.append(common)
    found.append(os.path.join(directory, AGENTS))
    found.append(os.path.join(directory, CODEX))
    return found


def read_only_subpaths(root: str, *, is_cwd: bool = False) -> tuple[str, ...]:
    """The protected paths beneath one writable root, most important first.

    A worktree's `.git` is a pointer file: the directory it names and the main
    repository's git directory (its config and hooks run on the user's next `git`)
    are protected with it. `.git`, `.codex` and `.agents` are protected even before
    they exist, in every root: a command must not create a repository whose config
    the next `git` runs, nor a project config or skills that the next session loads.
    (`is_cwd` is kept for callers; every root is treated as the cwd once was.)
    """
    del is_cwd
    return tuple(_entries_of(root))


def _ancestors(path: str) -> list[str]:
    found: list[str] = []
    while True:
        parent = os.path.dirname(path)
        if parent == path:
            return found
        found.append(parent)
        path = parent


def compute(
    kind: str,
    *,
    cwd: str,
    explicit: Iterable[str] = (),
    exclude_slash_tmp: bool = False,
    exclude_tmpdir_env_var: bool = False,
    environ: Mapping[str, str] | None = None,
) -> list[RootSpec]:
    """Writable roots as `(root, read_only_subpaths)` for a policy `kind`.

    Only `workspace-write` has roots: `read-only` has none and `danger-full-access`
    needs none (everything is writable). The folders above the cwd and above each
    root that lie inside another root (the repository a package folder belongs to,
    under `/tmp` say) have their `.git`, `.codex` and `.agents` protected too, under
    the root that holds them: git and the next session read them as surely.
    """
    if kind != "workspace-write":
        return []
    env = os.environ if environ is None else environ
    cwd_abs = absolute(cwd, "/")
    candidates = [absolute(p, cwd_abs) for p in explicit]
    candidates.append(cwd_abs)
    if not exclude_slash_tmp and os.path.isdir("/tmp"):
        candidates.append("/tmp")
    tmpdir = env.get("TMPDIR", "")
    if not exclude_tmpdir_env_var and tmpdir:
        candidates.append(absolute(tmpdir, cwd_abs))
    return specs_for(list(dict.fromkeys(candidates)))


def specs_for(unique: list[str]) -> list[RootSpec]:
    """`(root, read_only_subpaths)` for these roots, with the protected entries of the
    folders above each root that lie inside another root (see `compute`)."""
    subs: dict[str, list[str]] = {root: list(read_only_subpaths(root)) for root in unique}
    real = {root: os.path.realpath(root) for root in unique}
    for start in dict.fromkeys([*unique, *real.values()]):
        for folder in _ancestors(start):
            holders = [
                r for r in unique if folder not in (r, real[r]) and is_beneath(folder, real[r])
            ] or [r for r in unique if r != folder and is_beneath(folder, r)]
            if not holders:
                continue
            holder = max(holders, key=len)
            for entry in _entries_of(folder):
                if entry not in subs[holder]:
                    subs[holder].append(entry)
    return [(root, tuple(subs[root])) for root in unique]


def resolve(path: str) -> str:
    """`path` with every symlink of its existing prefix resolved (the tail may not exist)."""
    return os.path.realpath(path)


def is_beneath(path: str, parent: str) -> bool:
    """Whether `path` is `parent` or lies inside it (both absolute and normalised)."""
    if parent == "/":
        return True
    return path == parent or path.startswith(parent + "/")


def _names_protected_entry(path: str, root: str) -> bool:
    """Whether `path` passes through a `.git`, `.codex` or `.agents` below `root`, at
    any depth: a nested repository's hooks run as surely as the root's."""
    rest = path[len(root) :] if root != "/" else path
    return any(part in PROTECTED_NAMES for part in rest.split("/"))


def is_writable(path: str, roots: list[RootSpec]) -> bool:
    """Whether `path` (absolute, normalised) may be written under `roots`.

    Decided on the resolved path, as the kernel does: a symlink inside a root that
    points elsewhere leads outside it. A protected subpath of any root wins, whether
    it matches lexically or after resolution, so `/tmp` being a root does not reopen
    the `.git` of a workspace that lives under `/tmp`; so does any `.git`, `.codex` or
    `.agents` directory on the way from the root.
    """
    real = resolve(path)
    containing = [r for r in (resolve(root) for root, _ in roots) if is_beneath(real, r)]
    if not containing:
        return False
    if any(_names_protected_entry(real, root) for root in containing):
        return False
    for _, protected in roots:
        for sub in protected:
            if any(is_beneath(p, s) for p in (path, real) for s in (sub, resolve(sub))):
                return False
    return True
