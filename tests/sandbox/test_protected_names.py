"""`.git`, `.codex` and `.agents` stay read-only wherever a command could plant one.

Writable were: a `.git` the command created in a working folder that had none (`git init .
&& git config core.fsmonitor ...`, run later by any git outside), and the `.git`, `.codex`
and `.agents` of the repository that holds the working folder when that repository lies
in a writable root. Here the whole class is tried at once: for the cwd (a package folder
with no `.git`), its repository, a writable root that holds that repository and `$TMPDIR`,
each protected name is created, written, renamed and linked, existing or not yet created.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from codex_lsp.protocol.core.policy import WorkspaceWrite
from codex_lsp.sandbox import wrap_command
from tests.sandbox.helpers import DENIALS, run, run_wrapped

NAMES = (".git", ".codex", ".agents")
KEPT = "kept\n"


@dataclass
class Layout:
    """A monorepo inside a writable root, its package folder as the cwd, and `$TMPDIR`."""

    shared: Path
    repo: Path
    cwd: Path
    tmpdir: Path
    policy: WorkspaceWrite

    @property
    def places(self) -> dict[str, Path]:
        return {"cwd": self.cwd, "repo": self.repo, "root": self.shared, "tmpdir": self.tmpdir}

    @property
    def env(self) -> dict[str, str]:
        return {"TMPDIR": str(self.tmpdir)}


@pytest.fixture
def layout() -> Iterator[Layout]:
    # Off /tmp, like a real project; `shared` stands in for /tmp, a writable root that
    # holds the repository.
    base = Path(tempfile.mkdtemp(prefix="sandbox-names-", dir="/var/tmp"))
    shared, tmpdir = base / "shared", base / "tmpdir"
    repo, cwd = shared / "mono", shared / "mono" / "pkg"
    (cwd / "src").mkdir(parents=True)
    tmpdir.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (cwd / "src" / "main.py").write_text("print('hi')\n")
    policy = WorkspaceWrite(writable_roots=(str(shared),), exclude_slash_tmp=True)
    yield Layout(shared, repo, cwd, tmpdir, policy)
    shutil.rmtree(base, ignore_errors=True)


def _prepare(layout: Layout, state: str) -> dict[Path, dict[str, str]]:
    """Make every protected entry exist (a folder holding `config`) or not; what each holds."""
    before: dict[Path, dict[str, str]] = {}
    for place in layout.places.values():
        for name in NAMES:
            entry = place / name
            if place == layout.repo and name == ".git":
                pass  # the repository's own, always there
            elif state == "existing":
                entry.mkdir(exist_ok=True)
                (entry / "config").write_text(KEPT)
            else:
                shutil.rmtree(entry, ignore_errors=True)
            before[entry] = _contents(entry)
    return before


def _contents(entry: Path) -> dict[str, str]:
    if entry.is_symlink():
        return {"<symlink>": os.readlink(entry)}
    if not entry.is_dir():
        return {"<file>": entry.read_text()} if entry.exists() else {}
    found = {}
    for path in sorted(entry.rglob("*")):
        if path.is_file() and not path.is_symlink():
            found[str(path.relative_to(entry))] = path.read_bytes().decode(errors="replace")
        else:
            found[str(path.relative_to(entry))] = "<symlink>" if path.is_symlink() else "<dir>"
    return found


def _attack(layout: Layout) -> str:
    """Every way to plant or change a protected entry, at every place; each line says
    `PLANTED` when it worked."""
    lines = [f"mkdir -p {layout.cwd}/src/staged && echo evil > {layout.cwd}/src/staged/config"]
    for place in layout.places.values():
        for name in NAMES:
            entry = f"{place}/{name}"
            lines += [
                # creating it, as a folder, a file, a link, or by renaming a folder in
                f"mkdir {entry} 2>&1 && echo PLANTED mkdir {entry}",
                f"mkdir -p {entry}/hooks 2>&1 && echo evil > {entry}/hooks/pre-commit "
                f"&& echo PLANTED hook {entry}",
                f"cp -r {layout.cwd}/src/staged {place}/stage-{name} 2>/dev/null; "
                f"mv -T {place}/stage-{name} {entry} 2>&1 && echo PLANTED rename-in {entry}",
                f"ln -s {layout.cwd}/src/staged {entry} 2>&1 && echo PLANTED symlink {entry}",
                # writing into it, renaming it away, linking into it
                f"echo evil >> {entry}/config 2>&1 && echo PLANTED write {entry}",
                f"mv {entry} {place}/moved{name} 2>&1 && echo PLANTED rename-away {entry}",
                f"ln {layout.cwd}/src/main.py {entry}/hard 2>&1 && echo PLANTED hardlink {entry}",
                f"ln -s /etc {entry}/soft 2>&1 && echo PLANTED softlink {entry}",
            ]
    lines.append(f"cd {layout.cwd} && git init -q . 2>&1 && git config core.fsmonitor 'touch x'")
    lines.append(f"echo fine > {layout.cwd}/src/ok.txt")
    return "\n".join(lines)


def _check(layout: Layout, before: dict[Path, dict[str, str]], output: str) -> None:
    assert "PLANTED" not in output, [line for line in output.splitlines() if "PLANTED" in line]
    assert any(denial in output for denial in DENIALS), output
    for entry, contents in before.items():
        after = _contents(entry)
        if not contents:
            # Absent, or the empty folder the sandbox holds in place.
            assert after == {} and not entry.is_symlink(), (entry, after, output)
        else:
            assert after == contents, (entry, output)
        assert not (entry.parent / f"moved{entry.name}").exists(), output
    assert (layout.cwd / "src" / "ok.txt").read_text() == "fine\n", output
    # Git outside still finds the repository that holds the package folder.
    top = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"],
        cwd=layout.cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    assert top.stdout.strip() == str(layout.repo)


@pytest.mark.parametrize("state", ["existing", "missing"])
def test_protected_names_cannot_be_planted_anywhere(
    layout: Layout, mode: str, network: bool, state: str
) -> None:
    before = _prepare(layout, state)
    policy = layout.policy.model_copy(update={"network_access": network})
    result = run(_attack(layout), layout.cwd, mode, policy, env=layout.env)
    _check(layout, before, result.output)


def test_sandboxed_git_still_sees_the_repository_above(layout: Layout, mode: str) -> None:
    result = run("git rev-parse --show-toplevel", layout.cwd, mode, layout.policy, env=layout.env)
    assert result.output.strip().splitlines()[-1] == str(layout.repo), result.output


@pytest.mark.skipif(os.geteuid() != 0, reason="switches to an unprivileged user")
@pytest.mark.parametrize("state", ["existing", "missing"])
def test_an_unprivileged_user_cannot_plant_them_either(layout: Layout, state: str) -> None:
    from tests.sandbox.test_escape_basics import _python_for_nobody

    python = _python_for_nobody()
    if python is None:
        pytest.skip("no Python >= 3.11 runnable by an unprivileged user")
    before = _prepare(layout, state)
    base = layout.shared.parent
    for path in [base, *base.rglob("*")]:
        os.lchown(path, 65534, 65534)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **layout.env}
    wrapped = wrap_command(["bash", "-c", _attack(layout)], layout.policy, layout.cwd, env)
    output = run_wrapped(wrapped, layout.cwd, timeout=120, python=python, nobody=True).output
    if "can't open file" in output:
        pytest.skip(f"launcher not readable by an unprivileged user: {output}")
    for path in [base, *base.rglob("*")]:
        os.lchown(path, 0, 0)  # git outside, as root, refuses a repository owned by another
    _check(layout, before, output)
