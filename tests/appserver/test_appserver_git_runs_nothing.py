"""The engine's own git runs nothing a repository configures. Reviews and fuzzy file search go
through `codex-lsp app-server` on repositories whose config (some of it through `include.path`)
and `.gitattributes` name a program at every place git would run one: fsmonitor, every hook,
pagers, `diff.external`, a diff driver's command and textconv, filter drivers, signature
checks, ssh, credentials, editors. Each program leaves a marker if it ever runs; none may, and
the features still work."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.appserver.test_appserver_review import review_answer, start_review, user_text
from tests.engine.test_review_git import GIT_ENV, git, repo_with_history
from tests.support.appserver import AppServerClient, app_server, make_home
from tests.support.scripted_builders import text_response

# Every hook githooks(5) names for git 2.39, so whichever one a command would fire is there.
HOOKS = [
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "fsmonitor-watchman",
    "p4-changelist",
    "p4-prepare-changelist",
    "p4-post-changelist",
    "p4-pre-submit",
    "post-index-change",
]

# key -> what the program does after leaving its marker (so git gets a plausible answer).
PROGRAMS = {
    "core.fsmonitor": "exit 1",
    "core.pager": "cat",
    "pager.diff": "cat",
    "pager.show": "cat",
    "pager.ls-files": "cat",
    "diff.external": "exit 0",
    "diff.evil.command": "exit 0",
    "diff.evil.textconv": 'cat "$1"',
    "filter.evil.smudge": "cat",
    "filter.evilproc.process": "exit 1",
    "merge.evil.driver": "exit 1",
    "core.sshCommand": "exit 1",
    "core.gitProxy": "exit 1",
    "core.askPass": "echo secret",
    "credential.helper": "exit 0",
    "core.editor": "exit 0",
    "sequence.editor": "exit 0",
    "gpg.program": "exit 1",
    "gpg.ssh.program": "exit 1",
}


class Trap:
    """Programs that leave a marker named after the key that runs them."""

    def __init__(self, root: Path) -> None:
        self.bin, self.markers = root / "trap-bin", root / "trap-markers"
        self.bin.mkdir(parents=True)
        self.markers.mkdir()

    def program(self, name: str, then: str) -> str:
        path = self.bin / name
        path.write_text(f'#!/bin/sh\n: > "{self.markers / name}"\n{then}\n')
        path.chmod(0o755)
        return str(path)

    def fired(self) -> list[str]:
        return sorted(os.listdir(self.markers))

    def arm(self, worktree: Path, included: Path) -> None:
        """Configure the repository at `worktree` to run a program at every chance."""
        hooks = self.bin / "hooks"
        hooks.mkdir()
        for hook in HOOKS:
            (hooks / hook).symlink_to(self.program(f"hook-{hook}", "exit 0"))
        settings = {key: self.program(key, then) for key, then in PROGRAMS.items()}
        settings |= {"core.hooksPath": str(hooks), "log.showSignature": "true"}
        settings |= {"include.path": str(included), "filter.evilproc.required": "true"}
        for key, value in settings.items():
            git(worktree, "config", key, value)
        # A file of the workspace, which the repository's config includes.
        clean = self.program("filter.evil.clean", "cat")
        included.write_text(f'[filter "evil"]\n\tclean = {clean}\n\trequired = true\n')
        attributes = "* diff=evil filter=evil merge=evil\n*.md filter=evilproc\n"
        (worktree / ".gitattributes").write_text(attributes)
        assert self.fired() == []


def sign(repo: Path) -> str:
    """HEAD again with a `gpgsig` header, made the branch's tip: `git show` verifies it
    when `log.showSignature` is on."""
    body = git(repo, "cat-file", "commit", "HEAD")
    head, _, message = body.partition("\n\n")
    signature = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----"
    signed = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=repo,
        input=f"{head}\n{signature}\n\n{message}\n",
        env=GIT_ENV,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    git(repo, "update-ref", "HEAD", signed)
    return signed


def search(client: AppServerClient, root: Path, query: str) -> list[str]:
    found = client.result("fuzzyFileSearch", {"query": query, "roots": [str(root)]})
    return [f["path"] for f in found["files"]]


def review(client: AppServerClient, thread_id: str, target: dict[str, str]) -> dict:
    answer = start_review(client, thread_id, target)
    assert "result" in answer, answer
    return client.wait_method("turn/completed", threadId=thread_id)["params"]["turn"]


def test_a_folder_a_command_made_a_repository_runs_nothing(scripted_model, tmp_path):
    """A plain working folder where something ran `git init .` and configured it."""
    home, ws = make_home(tmp_path, scripted_model.base_url)
    (ws / "notes.md").write_text("UNTRACKED-NOTES\n")
    (ws / "tool.py").write_text("UNTRACKED_TOOL = 1\n")
    git(ws, "init", "-q", ".")
    trap = Trap(tmp_path)
    trap.arm(ws, ws / "included.gitconfig")
    scripted_model.enqueue(text_response(review_answer()))

    with app_server(home, ws) as client:
        thread = client.start_thread()
        assert search(client, ws, "tool") == ["tool.py"]
        turn = review(client, thread["id"], {"type": "uncommittedChanges"})

    assert trap.fired() == []
    assert turn["status"] == "completed"
    prompt = user_text(scripted_model.requests[0].body)
    assert "UNTRACKED-NOTES" in prompt and "UNTRACKED_TOOL = 1" in prompt


@pytest.mark.parametrize("cwd", ["package", "root"])
def test_a_repository_configured_to_run_programs_runs_none(scripted_model, tmp_path, cwd):
    """The session's folder is a package inside the repository, or its root; every review
    target and the file search read the repository."""
    repo = repo_with_history(tmp_path / "repo")
    signed = sign(repo)
    (repo / "src/app.py").write_text("def main():\n    return 2  # UNSTAGED-CHANGE\n")
    (repo / "src/new_module.py").write_text("UNTRACKED_CHANGE = True\n")
    (repo / "README.md").write_text("hi\nREADME-CHANGE\n")
    folder = repo / "src" if cwd == "package" else repo
    trap = Trap(tmp_path)
    trap.arm(repo, folder / "included.gitconfig")
    home, _ = make_home(tmp_path, scripted_model.base_url)
    for index in range(3):
        scripted_model.enqueue(text_response(review_answer(), response_id=f"resp_{index}"))

    with app_server(home, folder) as client:
        thread = client.start_thread()
        found = search(client, folder, "newmod")
        turns = [
            review(client, thread["id"], target)
            for target in (
                {"type": "uncommittedChanges"},
                {"type": "commit", "sha": signed, "title": "feature work"},
                {"type": "baseBranch", "branch": "main"},
            )
        ]

    assert trap.fired() == []
    assert found == ["new_module.py" if cwd == "package" else "src/new_module.py"]
    assert [turn["status"] for turn in turns] == ["completed"] * 3
    uncommitted, commit, branch = (user_text(r.body) for r in scripted_model.requests)
    for change in ("UNSTAGED-CHANGE", "UNTRACKED_CHANGE", "README-CHANGE"):
        assert change in uncommitted
    assert "FEATURE_FLAG = True" in commit
    assert "FEATURE_FLAG = True" in branch and "UNSTAGED-CHANGE" in branch


def test_a_partial_clone_never_fetches_with_the_configured_ssh(scripted_model, tmp_path):
    """Reviewing a commit whose blobs a partial clone lacks would fetch them; the fetch would
    run `core.sshCommand` (and credential helpers). The engine's git fetches nothing."""
    upstream = repo_with_history(tmp_path / "upstream")
    git(upstream, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--filter=blob:none", "--no-checkout", upstream.as_uri(), "clone")
    git(clone, "remote", "set-url", "origin", "ssh://git@example.invalid/repo.git")
    trap = Trap(tmp_path)
    for key in ("core.sshCommand", "credential.helper", "core.askPass"):
        git(clone, "config", key, trap.program(key, PROGRAMS[key]))
    home, _ = make_home(tmp_path, scripted_model.base_url)

    with app_server(home, clone) as client:
        thread = client.start_thread()
        head = git(clone, "rev-parse", "HEAD")
        refused = start_review(client, thread["id"], {"type": "commit", "sha": head})

    assert trap.fired() == []
    assert "could not fetch" in refused["error"]["message"]
    assert scripted_model.requests == []
