"""What a review looks at: the diff of a `ReviewTarget`, collected with real git.

Every call runs `git` through `codex_lsp.git` (nothing a repository configures runs), without a
shell, from the repository root so paths are root-relative whatever the session's cwd. Output is
read up to a budget and git is stopped there, so a gigantic change cannot exhaust memory; the
diff put in the prompt is then cut at file boundaries (`diff_budget`) and the material says what
was left out.

`collect_review_material` is synchronous (callers run it in a worker thread) and raises
`ReviewTargetError` with a message meant for the user.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from codex_lsp import git
from codex_lsp.engine.review.diff_budget import fit_diff
from codex_lsp.protocol.core.inputs import (
    BaseBranchTarget,
    CommitTarget,
    CustomTarget,
    ReviewTarget,
    UncommittedChangesTarget,
)

# About 50k tokens of diff: enough for most changes, small enough to leave room to think.
MAX_DIFF_CHARS = 200_000
GIT_TIMEOUT_S = 60.0
_DIFF_OPTIONS = ["--no-color", "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/"]


class ReviewTargetError(Exception):
    """The target cannot be reviewed; the message says why and what to do."""


@dataclass(frozen=True)
class ReviewMaterial:
    """The change under review, ready to be put into the review prompt."""

    repo_root: Path
    diff: str = ""
    truncated: bool = False
    # The file whose diff stops partway, and the changed files not shown at all.
    partial_file: str | None = None
    omitted_files: list[str] = field(default_factory=list)
    head_sha: str | None = None
    # baseBranch: the ref the merge base was taken with (the upstream, or the branch).
    base_ref: str | None = None
    merge_base: str | None = None
    # commit: the full sha the target resolved to.
    commit_sha: str | None = None
    untracked: list[str] = field(default_factory=list)


def collect_review_material(
    target: ReviewTarget, cwd: Path, *, max_chars: int = MAX_DIFF_CHARS
) -> ReviewMaterial:
    """The diff `target` names, from the git repository containing `cwd`."""
    if isinstance(target, CustomTarget):
        if not target.instructions.strip():
            raise ReviewTargetError("Review prompt cannot be empty")
        # A custom review needs no repository; the root only anchors relative paths.
        return ReviewMaterial(repo_root=find_repo_root(cwd) or cwd)
    root = find_repo_root(cwd)
    if root is None:
        raise ReviewTargetError(
            f"{cwd} is not inside a git repository, which this review target needs; "
            "a custom review works anywhere"
        )
    repo = _Repo(root, max_chars)
    if isinstance(target, UncommittedChangesTarget):
        return repo.uncommitted()
    if isinstance(target, BaseBranchTarget):
        return repo.against_branch(target.branch)
    if isinstance(target, CommitTarget):
        return repo.commit(target.sha)
    raise ReviewTargetError(f"unknown review target {getattr(target, 'type', target)!r}")


def find_repo_root(cwd: Path) -> Path | None:
    try:
        found = _run_git(cwd, ["rev-parse", "--show-toplevel"], ok=(0, 128))
    except ReviewTargetError:
        return None
    text = found.stdout.strip()
    return Path(text) if found.code == 0 and text else None


class _Repo:
    def __init__(self, root: Path, max_chars: int) -> None:
        self.root = root
        self.max_chars = max_chars
        # Read a little past the budget so the cut can land on a file boundary.
        self.read_limit = max_chars + max_chars // 4 + 1

    def uncommitted(self) -> ReviewMaterial:
        head = self._resolve("HEAD")
        # Before the first commit everything tracked is new: diff against the empty tree.
        base = head or self._git(["hash-object", "-t", "tree", "--stdin"]).strip()
        tracked = self._capture(["diff", *_DIFF_OPTIONS, base, "--"], self.read_limit)
        untracked = self._untracked()
        pieces, complete = [tracked.text], tracked.complete
        for path in untracked:
            room = self.read_limit - sum(len(piece) for piece in pieces)
            if not complete or room <= 0:
                complete = False
                break
            # Exit code 1 means "there are differences", which a new file always has.
            args = ["diff", *_DIFF_OPTIONS, "--no-index", "--", os.devnull, path]
            piece = self._capture(args, room, ok=(0, 1))
            pieces.append(piece.text)
            complete = piece.complete
        diff = "".join(pieces)
        if not diff.strip():
            raise ReviewTargetError("There are no uncommitted changes to review.")
        every = None if complete else [*self._changed_files(base), *untracked]
        return self._material(diff, complete, every, head_sha=head, untracked=untracked)

    def against_branch(self, branch: str) -> ReviewMaterial:
        name = branch.strip()
        _check_rev(name, "branch")
        head = self._resolve("HEAD")
        if head is None:
            raise ReviewTargetError(
                "The repository has no commits yet; commit your work before reviewing it "
                f"against '{name}'."
            )
        if self._resolve(name) is None:
            raise ReviewTargetError(f"Branch '{name}' was not found in {self.root}.")
        base_ref = name
        if self._resolve(f"{name}@{{upstream}}") is not None:
            base_ref = self._git(["rev-parse", "--abbrev-ref", f"{name}@{{upstream}}"]).strip()
        found = _run_git(self.root, ["merge-base", "HEAD", base_ref], ok=(0, 1))
        merge_base = found.stdout.strip()
        if found.code != 0 or not merge_base:
            raise ReviewTargetError(f"HEAD and '{base_ref}' have no common ancestor.")
        # Against the working tree, like `git diff <merge-base>`: pending edits count too.
        tracked = self._capture(["diff", *_DIFF_OPTIONS, merge_base, "--"], self.read_limit)
        if not tracked.text.strip():
            raise ReviewTargetError(f"There are no changes against '{name}' to review.")
        every = None if tracked.complete else self._changed_files(merge_base)
        return self._material(
            tracked.text,
            tracked.complete,
            every,
            head_sha=head,
            base_ref=base_ref,
            merge_base=merge_base,
        )

    def commit(self, sha: str) -> ReviewMaterial:
        wanted = sha.strip()
        _check_rev(wanted, "commit")
        resolved = self._resolve(wanted)
        if resolved is None:
            raise ReviewTargetError(f"Commit '{wanted}' was not found in {self.root}.")
        # `-m --first-parent`: what a merge brought in, not an (often empty) combined diff.
        merge_options = ["-m", "--first-parent"]
        shown = self._capture(
            ["show", *_DIFF_OPTIONS, *merge_options, "--format=medium", resolved, "--"],
            self.read_limit,
        )
        if not shown.text.startswith("diff --git ") and "\ndiff --git " not in shown.text:
            raise ReviewTargetError(f"Commit {resolved[:7]} changes no files; nothing to review.")
        every = None
        if not shown.complete:
            listing = ["diff-tree", "--no-commit-id", "--name-only", "-r", *merge_options]
            every = self._git([*listing, resolved]).splitlines()
        return self._material(shown.text, shown.complete, every, commit_sha=resolved)

    # -- helpers -----------------------------------------------------------------------------

    def _material(
        self, diff: str, complete: bool, every: list[str] | None, **fields: object
    ) -> ReviewMaterial:
        fitted = fit_diff(diff, self.max_chars, all_files=every, cut_tail=not complete)
        return ReviewMaterial(
            repo_root=self.root,
            diff=fitted.text,
            truncated=fitted.truncated,
            partial_file=fitted.partial_file,
            omitted_files=fitted.omitted_files,
            # The optional target fields (commit_sha, base_branch...), named by each caller.
            **fields,  # type: ignore[arg-type]
        )

    def _resolve(self, rev: str) -> str | None:
        args = ["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"]
        found = _run_git(self.root, args, ok=(0, 1, 128))
        text = found.stdout.strip()
        return text if found.code == 0 and text else None

    def _changed_files(self, base: str) -> list[str]:
        return self._git(["diff", "--name-only", base, "--"]).splitlines()

    def _untracked(self) -> list[str]:
        listed = self._git(["ls-files", "--others", "--exclude-standard", "-z"])
        # A nested repository shows up as a directory; its contents are not this change.
        return [path for path in listed.split("\0") if path and not path.endswith("/")]

    def _git(self, args: list[str]) -> str:
        return _run_git(self.root, args).stdout

    def _capture(self, args: list[str], limit: int, ok: tuple[int, ...] = (0,)) -> _Captured:
        return _capture(self.root, args, limit=limit, ok=ok)


def _check_rev(rev: str, what: str) -> None:
    # Anything starting with "-" would reach git as an option, not a revision.
    if not rev or rev.startswith("-") or any(ch.isspace() or ord(ch) < 32 for ch in rev):
        raise ReviewTargetError(f"{rev!r} is not a valid {what} name")


# -- running git ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Result:
    code: int
    stdout: str
    stderr: str


@dataclass(frozen=True)
class _Captured:
    text: str
    complete: bool


def _run_git(cwd: Path, args: list[str], *, ok: tuple[int, ...] = (0,)) -> _Result:
    try:
        proc = git.run(cwd, args, timeout=GIT_TIMEOUT_S)
    except FileNotFoundError as err:
        raise ReviewTargetError("git is not installed or not on PATH; reviews need it") from err
    except subprocess.TimeoutExpired as err:
        raise ReviewTargetError(f"git {args[0]} took longer than {err.timeout:.0f}s") from err
    except OSError as err:
        raise ReviewTargetError(f"cannot run git in {cwd}: {err.strerror}") from err
    result = _Result(
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )
    if result.code not in ok:
        raise ReviewTargetError(_failure(args[0], result))
    return result


def _capture(cwd: Path, args: list[str], *, limit: int, ok: tuple[int, ...]) -> _Captured:
    """At most `limit` characters of git's output; git is stopped once it has said that."""
    # stderr goes to a file: a pipe nobody drains could block git while stdout is read.
    with tempfile.TemporaryFile() as errors:
        try:
            proc = git.popen(cwd, args, stdout=subprocess.PIPE, stderr=errors)
        except FileNotFoundError as err:
            raise ReviewTargetError("git is not installed or not on PATH; reviews need it") from err
        except subprocess.TimeoutExpired as err:
            raise ReviewTargetError(f"git {args[0]} took longer than {err.timeout:.0f}s") from err
        except OSError as err:
            raise ReviewTargetError(f"cannot run git in {cwd}: {err.strerror}") from err
        fired = threading.Event()

        def stop() -> None:
            fired.set()
            proc.kill()

        timer = threading.Timer(GIT_TIMEOUT_S, stop)
        timer.daemon = True
        timer.start()
        try:
            assert proc.stdout is not None
            # Counted in bytes: never more characters than bytes, so `limit` holds.
            data = proc.stdout.read(limit + 1)
            complete = len(data) <= limit
            if not complete:
                proc.kill()
            proc.stdout.close()
            code = proc.wait()
        finally:
            timer.cancel()
        errors.seek(0)
        stderr = errors.read().decode("utf-8", "replace")
    if fired.is_set():
        raise ReviewTargetError(f"git {args[0]} took longer than {GIT_TIMEOUT_S:.0f}s")
    if complete and code not in ok:
        raise ReviewTargetError(_failure(args[0], _Result(code, "", stderr)))
    return _Captured(data[:limit].decode("utf-8", "replace"), complete)


def _failure(command: str, result: _Result) -> str:
    detail = result.stderr.strip().splitlines()
    reason = detail[-1] if detail else f"exit code {result.code}"
    return f"git {command} failed: {reason}"
