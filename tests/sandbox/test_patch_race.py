"""Escape 1: the engine's own patch writes racing a change to the folders they go through.

A patch's paths are checked when it is planned and written later, by the engine itself,
outside the sandbox. A process swapped a checked folder for a symlink in between: the
patch wrote outside the roots, and rewrote `.git/config`. Here the swap happens while the
engine waits for the patch's approval, which makes the race deterministic: the check has
been made, the write has not. The write must fail and nothing outside may change.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from codex_lsp.protocol.core.ops import PatchApproval
from codex_lsp.sandbox import beneath
from codex_lsp.sandbox.beneath import EscapeRefused, open_beneath
from tests.support.engine import make_git_repo, running_engine, write_config
from tests.support.scripted_builders import custom_tool_call_response, text_response

NO_TMP = "[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n"


async def _patch_with_a_swap_before_approval(
    scripted_model, tmp_path: Path, patch: str, swap
) -> tuple[str, list]:
    home = tmp_path / "home"
    # The test's folders live under /tmp: keep it out of the roots, as for a real project.
    write_config(home, scripted_model.base_url, approval_policy="untrusted", extra=NO_TMP)
    ws = tmp_path / "ws"
    scripted_model.enqueue(custom_tool_call_response("apply_patch", patch, call_id="patch"))
    scripted_model.enqueue(text_response("done"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        sub_id = await engine.send("edit the notes")
        request = await engine.until("apply_patch_approval_request")
        swap()  # what a process left running could do between the check and the write
        await engine.codex.submit(PatchApproval(id=request.msg.call_id, decision="approved"))
        await engine.until("task_complete", sub_id=sub_id)
        ends = engine.of_type("patch_apply_end")
    output = next(
        item["output"]
        for item in scripted_model.requests[-1].body["input"]
        if item.get("type") == "custom_tool_call_output"
    )
    return output, ends


async def test_a_folder_swapped_for_a_symlink_out_is_not_written_through(
    scripted_model, tmp_path: Path
) -> None:
    ws = make_git_repo(tmp_path / "ws", {"sub/notes.txt": "notes\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("outside notes\n")
    patch = (
        "*** Begin Patch\n*** Add File: sub/new.txt\n+planted\n"
        "*** Update File: sub/notes.txt\n@@\n-notes\n+changed\n*** End Patch\n"
    )

    def swap() -> None:
        (ws / "sub").rename(ws / "sub.checked")
        (ws / "sub").symlink_to(outside)

    output, ends = await _patch_with_a_swap_before_approval(scripted_model, tmp_path, patch, swap)
    assert not (outside / "new.txt").exists()
    assert (outside / "notes.txt").read_text() == "outside notes\n"
    assert [end.success for end in ends] == [False]
    assert f"now resolves to {outside}" in output, output


async def test_a_swap_cannot_steer_a_patch_into_git_config(scripted_model, tmp_path: Path) -> None:
    ws = make_git_repo(tmp_path / "ws", {"sub/config": "[settings]\n\tcolor = blue\n"})
    config = (ws / ".git" / "config").read_text()
    patch = (
        "*** Begin Patch\n*** Update File: sub/config\n@@\n-[settings]\n"
        "+[core]\n+\tfsmonitor = touch /tmp/pwned\n+[settings]\n*** End Patch\n"
    )
    (ws / ".git" / "config").write_text(config)

    def swap() -> None:
        (ws / "sub").rename(ws / "sub.checked")
        # The plan read `sub/config`; `.git/config` has different text, but the write
        # replaces the whole file with the planned text all the same.
        (ws / "sub").symlink_to(ws / ".git")

    output, ends = await _patch_with_a_swap_before_approval(scripted_model, tmp_path, patch, swap)
    assert "No files were changed" in output, output
    assert (ws / ".git" / "config").read_text() == config
    assert "fsmonitor" not in (ws / ".git" / "config").read_text()
    assert [end.success for end in ends] == [False]


async def test_an_untouched_patch_still_lands(scripted_model, tmp_path: Path) -> None:
    ws = make_git_repo(tmp_path / "ws", {"sub/notes.txt": "notes\n"})
    (ws / "link.txt").symlink_to(ws / "sub" / "notes.txt")
    patch = (
        "*** Begin Patch\n*** Add File: sub/deeper/new.txt\n+fresh\n"
        "*** Update File: link.txt\n@@\n-notes\n+through the link\n*** End Patch\n"
    )
    output, ends = await _patch_with_a_swap_before_approval(
        scripted_model, tmp_path, patch, lambda: None
    )
    assert [end.success for end in ends] == [True], output
    assert (ws / "sub" / "deeper" / "new.txt").read_text() == "fresh\n"
    # A symlink that is the file itself, pointing inside the roots, is written through.
    assert (ws / "link.txt").is_symlink()
    assert (ws / "sub" / "notes.txt").read_text() == "through the link\n"


@pytest.fixture(params=["openat2", "component walk"])
def resolution(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "component walk":
        monkeypatch.setattr(beneath, "_openat2_works", False)
    return str(request.param)


def test_open_beneath_refuses_symlinks_and_dotdot(tmp_path: Path, resolution: str) -> None:
    (tmp_path / "root" / "a" / "b").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "root" / "a" / "out").symlink_to(tmp_path / "elsewhere")
    root = os.open(tmp_path / "root", os.O_PATH | os.O_DIRECTORY)
    try:
        fd = open_beneath(root, "a/b")
        os.close(fd)
        for path in ("a/out", "a/out/x", "../elsewhere", "a/../../elsewhere"):
            with pytest.raises(EscapeRefused) as refused:
                os.close(open_beneath(root, path, create=True))
            assert refused.value.errno in (errno.ELOOP, errno.EXDEV), resolution
        assert list((tmp_path / "elsewhere").iterdir()) == []
        created: list[str] = []
        fd = open_beneath(root, "a/b/c/d", create=True, created=created)
        os.close(fd)
        assert created == ["a/b/c", "a/b/c/d"]
        with pytest.raises(FileNotFoundError):
            open_beneath(root, "a/missing")
    finally:
        os.close(root)


def test_a_swap_after_the_last_check_meets_a_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The narrowest window: the writer has resolved the path (and found it inside the
    # roots), then the folder is swapped before it opens anything. Resolution is made to
    # report the state from before the swap; the open must still refuse the symlink.
    from codex_lsp.engine.patch import confined
    from codex_lsp.protocol.core.policy import WorkspaceWrite

    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "sub").mkdir(parents=True)
    outside.mkdir()
    policy = WorkspaceWrite(exclude_slash_tmp=True, exclude_tmpdir_env_var=True)
    files = confined.ConfinedFiles(confined.WriteConfinement.for_patch(policy, ws))
    (ws / "sub").rename(ws / "sub.checked")
    (ws / "sub").symlink_to(outside)
    monkeypatch.setattr(confined.os.path, "realpath", lambda path: os.path.abspath(path))
    with pytest.raises(EscapeRefused):
        files.write_text(ws / "sub" / "new.txt", "planted\n")
    with pytest.raises(EscapeRefused):
        files.remove(ws / "sub" / "victim.txt")
    assert list(outside.iterdir()) == []
