"""Finding skills: `SKILL.md` files under the repo, user, system and admin roots of a cwd.

Roots, by scope:
- repo: `<dir>/.codex/skills` and `<dir>/.agents/skills` for every directory from the project
  root (the nearest ancestor holding `.git`) down to the cwd, the cwd's own first;
- user: `$CODEX_HOME/skills` and `$HOME/.agents/skills`;
- system: `$CODEX_HOME/skills/.system`;
- admin: `/etc/codex/skills`.

Each root is walked breadth first, at most `MAX_DEPTH` levels and `MAX_DIRS_PER_ROOT`
directories deep, so a huge tree under a root costs a bounded scan. A file that fails to parse
becomes an error entry; the other skills still load.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from codex_lsp.engine.skills.frontmatter import FrontmatterError, split_frontmatter
from codex_lsp.sandbox import is_repository_entry
from codex_lsp.store.bounded_read import SKILL_FILE_MAX_BYTES, read_text

SKILL_FILE = "SKILL.md"
MAX_DEPTH = 6
MAX_DIRS_PER_ROOT = 2000
MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1024
MAX_SHORT_DESCRIPTION_CHARS = 1024
PROJECT_ROOT_MARKERS = (".git",)
ADMIN_SKILLS_DIR = Path("/etc/codex/skills")
SYSTEM_DIR_NAME = ".system"

Scope = Literal["repo", "user", "system", "admin"]
# Where a name is found twice, the nearer scope wins: the order here.
SCOPE_ORDER: tuple[Scope, ...] = ("repo", "user", "system", "admin")


@dataclass(frozen=True, slots=True)
class Skill:
    name: str
    description: str
    path: Path
    scope: Scope
    short_description: str | None = None
    enabled: bool = True

    @property
    def directory(self) -> Path:
        return self.path.parent

    def to_wire(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "path": str(self.path),
            "scope": self.scope,
            "enabled": self.enabled,
        }
        if self.short_description:
            entry["short_description"] = self.short_description
        return entry


@dataclass(frozen=True, slots=True)
class SkillError:
    path: Path
    message: str

    def to_wire(self) -> dict[str, str]:
        return {"path": str(self.path), "message": self.message}


@dataclass
class SkillsOutcome:
    """What one cwd sees: its skills in precedence order, and the files that failed."""

    skills: list[Skill] = field(default_factory=list)
    errors: list[SkillError] = field(default_factory=list)

    def by_name(self, name: str) -> Skill | None:
        return next((skill for skill in self.skills if skill.name == name), None)


@dataclass(frozen=True, slots=True)
class SkillRoot:
    path: Path
    scope: Scope


def project_root(cwd: Path) -> Path | None:
    return next(
        (
            directory
            for directory in (cwd, *cwd.parents)
            if any(is_repository_entry(directory / marker) for marker in PROJECT_ROOT_MARKERS)
        ),
        None,
    )


def skill_roots(
    cwd: Path,
    *,
    codex_home: Path,
    home: Path | None,
    admin_dir: Path = ADMIN_SKILLS_DIR,
    extra: tuple[Path, ...] = (),
) -> list[SkillRoot]:
    """The roots to scan for `cwd`, nearest scope first; `extra` roots hold user skills."""
    top = project_root(cwd) or cwd
    chain = [cwd, *cwd.parents]
    directories = chain[: chain.index(top) + 1] if top in chain else [cwd]
    roots = [
        SkillRoot(directory / sub / "skills", "repo")
        for directory in directories
        for sub in (".codex", ".agents")
    ]
    roots.append(SkillRoot(codex_home / "skills", "user"))
    if home is not None:
        roots.append(SkillRoot(home / ".agents" / "skills", "user"))
    roots += [SkillRoot(root, "user") for root in extra]
    roots.append(SkillRoot(codex_home / "skills" / SYSTEM_DIR_NAME, "system"))
    roots.append(SkillRoot(admin_dir, "admin"))
    return roots


def find_skill_files(root: Path) -> Iterator[Path]:
    """`SKILL.md` files under `root`, breadth first, within the depth and directory budgets.

    Hidden directories are skipped (the system root lives in `.system` under the user root and
    is scanned as its own root), and a skill's own directory is not searched further: what it
    holds are its scripts and references, not more skills.
    """
    if not root.is_dir():
        return
    queue: deque[tuple[Path, int]] = deque([(root, 0)])
    seen: set[Path] = set()
    visited = 0
    while queue and visited < MAX_DIRS_PER_ROOT:
        directory, depth = queue.popleft()
        try:
            real = directory.resolve()
        except OSError:
            continue
        # Symlinked directories are followed, but a cycle is walked only once.
        if real in seen:
            continue
        seen.add(real)
        visited += 1
        candidate = directory / SKILL_FILE
        if candidate.is_file():
            yield candidate
            continue
        if depth >= MAX_DEPTH:
            continue
        try:
            entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith(".") or not _is_dir(entry):
                continue
            queue.append((Path(entry.path), depth + 1))


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def single_line(value: str) -> str:
    return " ".join(value.split())


def read_skill_file(path: Path) -> str:
    """A SKILL.md's text: a regular file of at most `SKILL_FILE_MAX_BYTES`."""
    return read_text(path, SKILL_FILE_MAX_BYTES)


def parse_skill_file(path: Path, scope: Scope) -> Skill:
    """One skill from its SKILL.md; raises `ValueError` saying what is wrong with it."""
    try:
        text = read_skill_file(path)
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"cannot read the file: {getattr(err, 'strerror', None) or err}") from None
    try:
        fields, _body = split_frontmatter(text)
    except FrontmatterError as err:
        raise ValueError(str(err)) from None
    name = _field(fields, "name") or path.parent.name
    if len(name) > MAX_NAME_CHARS:
        raise ValueError(f"name is {len(name)} characters; the limit is {MAX_NAME_CHARS}")
    description = _field(fields, "description")
    if not description:
        raise ValueError("`description` is required in the frontmatter")
    if len(description) > MAX_DESCRIPTION_CHARS:
        raise ValueError(
            f"description is {len(description)} characters; the limit is {MAX_DESCRIPTION_CHARS}"
        )
    metadata = fields.get("metadata")
    short = None
    if isinstance(metadata, dict):
        short = _field(metadata, "short-description") or None
    elif metadata not in (None, ""):
        raise ValueError("`metadata` must be a mapping")
    if short is not None and len(short) > MAX_SHORT_DESCRIPTION_CHARS:
        raise ValueError(
            f"metadata.short-description is {len(short)} characters; the limit is "
            f"{MAX_SHORT_DESCRIPTION_CHARS}"
        )
    return Skill(
        name=name, description=description, path=path, scope=scope, short_description=short
    )


def _field(fields: dict[str, Any], key: str) -> str:
    value = fields.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"`{key}` must be a single string")
    return single_line(value)


def load_skills(roots: list[SkillRoot]) -> SkillsOutcome:
    """Every skill under `roots`, sorted by scope then name; for one name, the nearer root first."""
    outcome = SkillsOutcome()
    found: list[tuple[int, Skill]] = []
    seen: set[Path] = set()
    for order, root in enumerate(roots):
        for path in find_skill_files(root.path):
            key = path.resolve()
            # The same file reached through two roots (a symlink, nested roots) counts once.
            if key in seen:
                continue
            seen.add(key)
            try:
                found.append((order, parse_skill_file(path, root.scope)))
            except ValueError as err:
                outcome.errors.append(SkillError(path, str(err)))
    found.sort(key=lambda pair: (SCOPE_ORDER.index(pair[1].scope), pair[1].name, pair[0]))
    outcome.skills = [skill for _order, skill in found]
    return outcome


class SkillsCache:
    """Loaded skills per cwd; `force_reload` rescans the disk."""

    def __init__(self, *, admin_dir: Path = ADMIN_SKILLS_DIR) -> None:
        self._admin_dir = admin_dir
        self._loaded: dict[tuple[Path, ...], SkillsOutcome] = {}

    def for_cwd(
        self,
        cwd: Path,
        *,
        codex_home: Path,
        force_reload: bool = False,
        extra_roots: tuple[Path, ...] = (),
    ) -> SkillsOutcome:
        home_env = os.environ.get("HOME")
        roots = skill_roots(
            cwd.resolve(),
            codex_home=codex_home,
            home=Path(home_env) if home_env else None,
            admin_dir=self._admin_dir,
            extra=extra_roots,
        )
        # Keyed by the roots themselves: a changed $HOME or CODEX_HOME is a new scan.
        key = tuple(root.path for root in roots)
        if force_reload or key not in self._loaded:
            self._loaded[key] = load_skills(roots)
        return self._loaded[key]
