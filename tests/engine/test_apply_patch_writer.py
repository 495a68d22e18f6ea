"""The disk writer: atomic replacement and all-or-nothing rollback when a later write fails."""

from __future__ import annotations

import os
import pickle
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_lsp.engine.patch import (
    DiskFiles,
    FileOperation,
    PatchPlan,
    PatchWriteError,
    apply_plan,
    plan_patch,
)


def wrap(body: str) -> str:
    return f"*** Begin Patch\n{body}\n*** End Patch\n"


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file's bytes and every directory (as None), so created directories show up too."""
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "gone.txt").write_text("delete me\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub/b.txt").write_text("beta\n")
    os.chmod(tmp_path / "a.txt", 0o640)
    return tmp_path


PATCH = wrap(
    "*** Update File: a.txt\n-alpha\n+ALPHA\n"
    "*** Delete File: gone.txt\n"
    "*** Add File: fresh/dir/c.txt\n+new\n"
    "*** Update File: sub/b.txt\n-beta\n+BETA"
)


def break_target_became_directory(root: Path) -> None:
    # Someone replaced the file with a directory between verification and writing.
    (root / "sub/b.txt").unlink()
    (root / "sub/b.txt").mkdir()


def break_parent_is_a_file(root: Path) -> None:
    # The last write needs directory "sub"; make it a regular file instead.
    for child in (root / "sub").iterdir():
        child.unlink()
    (root / "sub").rmdir()
    (root / "sub").write_text("not a directory\n")


FAILURES = [
    pytest.param(break_target_became_directory, id="target-became-directory"),
    pytest.param(break_parent_is_a_file, id="parent-is-a-file"),
]


@pytest.mark.parametrize("sabotage", FAILURES)
def test_failed_write_rolls_back_earlier_writes(project: Path, sabotage) -> None:
    plan = plan_patch(PATCH, project)
    sabotage(project)
    before = snapshot(project)
    with pytest.raises(PatchWriteError) as caught:
        apply_plan(plan, DiskFiles())
    assert snapshot(project) == before
    assert stat.S_IMODE((project / "a.txt").stat().st_mode) == 0o640
    assert not (project / "fresh").exists()
    error = caught.value
    assert error.rolled_back
    assert str(error).startswith("Failed to write file sub/b.txt: ")
    assert str(error).endswith("\nNo files were changed.")
    # A write failure is not a verification failure; the model sees the plain reason.
    assert error.model_message == str(error)


NOBODY = 65534


@pytest.fixture
def shared_project() -> Iterator[Path]:
    """A project outside pytest's private tmp tree, so an unprivileged child can reach it."""
    root = Path(tempfile.mkdtemp(prefix="apply-patch-ro-"))
    (root / "a.txt").write_text("alpha\n")
    (root / "gone.txt").write_text("delete me\n")
    (root / "sub").mkdir()
    (root / "sub/b.txt").write_text("beta\n")
    os.chmod(root / "a.txt", 0o640)
    if os.geteuid() == 0:
        for path in (root, *root.rglob("*")):
            os.chown(path, NOBODY, NOBODY)
    try:
        yield root
    finally:
        os.chmod(root / "sub", 0o755)
        shutil.rmtree(root)


def apply_without_privileges(plan: PatchPlan) -> tuple[str, bool] | None:
    """Apply `plan`, as an unprivileged user when running as root (root ignores modes).

    Returns None on success, else the write error's message and `rolled_back`.
    """

    def attempt() -> tuple[str, bool] | None:
        try:
            apply_plan(plan, DiskFiles())
        except PatchWriteError as error:
            return str(error), error.rolled_back
        return None

    if os.geteuid() != 0:
        return attempt()
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: drop to nobody, apply, report through the pipe
        status = 1
        try:
            os.close(reader)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            os.write(writer, pickle.dumps(attempt()))
            status = 0
        finally:
            os._exit(status)
    os.close(writer)
    with os.fdopen(reader, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "unprivileged child failed"
    return pickle.loads(data)


def test_read_only_directory_makes_second_write_fail_and_rolls_back(
    shared_project: Path,
) -> None:
    plan = plan_patch(PATCH, shared_project)
    os.chmod(shared_project / "sub", 0o555)
    before = snapshot(shared_project)
    outcome = apply_without_privileges(plan)
    assert outcome is not None, "the write into the read-only directory should have failed"
    message, rolled_back = outcome
    assert message == "Failed to write file sub/b.txt: Permission denied\nNo files were changed."
    assert rolled_back
    assert snapshot(shared_project) == before
    assert (shared_project / "a.txt").read_text() == "alpha\n"
    assert (shared_project / "gone.txt").read_text() == "delete me\n"
    assert not (shared_project / "fresh").exists()
    assert stat.S_IMODE((shared_project / "a.txt").stat().st_mode) == 0o640


def test_successful_apply_keeps_permissions_and_leaves_no_temp_files(project: Path) -> None:
    os.chmod(project / "sub/b.txt", 0o755)
    summary = apply_plan(plan_patch(PATCH, project), DiskFiles())
    assert summary == (
        "Success. Updated the following files:\nA fresh/dir/c.txt\nM a.txt\nM sub/b.txt\n"
        "D gone.txt\n"
    )
    assert stat.S_IMODE((project / "a.txt").stat().st_mode) == 0o640
    assert stat.S_IMODE((project / "sub/b.txt").stat().st_mode) == 0o755
    assert snapshot(project) == {
        "a.txt": b"ALPHA\n",
        "fresh": None,
        "fresh/dir": None,
        "fresh/dir/c.txt": b"new\n",
        "sub": None,
        "sub/b.txt": b"BETA\n",
    }


def test_write_through_symlink_updates_target(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("x\n")
    (tmp_path / "link.txt").symlink_to("real.txt")
    apply_plan(plan_patch(wrap("*** Update File: link.txt\n-x\n+y"), tmp_path), DiskFiles())
    assert (tmp_path / "link.txt").is_symlink()
    assert (tmp_path / "real.txt").read_text() == "y\n"


def test_rollback_restores_a_file_written_twice_and_a_removed_symlink(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("orig\n")
    (tmp_path / "link").symlink_to("f.txt")
    (tmp_path / "blocker").mkdir()
    f = tmp_path / "f.txt"
    plan = PatchPlan(
        tmp_path,
        (
            FileOperation("update", f, "f.txt", "orig\n", "one\n"),
            FileOperation("update", f, "f.txt", "one\n", "two\n"),
            FileOperation("delete", tmp_path / "link", "link", "orig\n", None),
            FileOperation("add", tmp_path / "blocker", "blocker", None, "boom\n"),
        ),
    )
    before = snapshot(tmp_path)
    with pytest.raises(PatchWriteError) as caught:
        apply_plan(plan, DiskFiles())
    assert caught.value.rolled_back
    assert snapshot(tmp_path) == before
    assert os.readlink(tmp_path / "link") == "f.txt"


def test_plain_writer_without_transactions_reports_partial_write(tmp_path: Path) -> None:
    class PlainWriter:
        """Writes straight to disk, with no transaction support."""

        def __init__(self) -> None:
            self.disk = DiskFiles()

        def write_text(self, path: Path, text: str) -> None:
            self.disk.write_text(path, text)

        def remove(self, path: Path) -> None:
            self.disk.remove(path)

    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "dir").mkdir()
    plan = PatchPlan(
        tmp_path,
        (
            FileOperation("update", tmp_path / "a.txt", "a.txt", "a\n", "A\n"),
            FileOperation("delete", tmp_path / "dir", "dir", "", None),
        ),
    )
    with pytest.raises(PatchWriteError) as caught:
        apply_plan(plan, PlainWriter())
    assert not caught.value.rolled_back
    assert str(caught.value) == "Failed to delete file dir: it is a directory"
    assert (tmp_path / "a.txt").read_text() == "A\n"
