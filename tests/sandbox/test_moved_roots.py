"""Writable roots re-pointed between commands are refused, never followed.

One command renamed the cwd's parent (under /tmp) and put `proj -> /` in its place; the
next command, and then the engine's own apply_patch with no approval, wrote `/etc`. The
same worked with `$TMPDIR`. The roots are held by directory handles from the moment the
session is configured; a root whose path leads elsewhere is refused with a clear error.
Here the path is pointed at a folder outside the roots instead of `/`.
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
from tests.sandbox.helpers import run_wrapped, wrap
from tests.support.engine import running_engine, write_config
from tests.support.scripted_builders import (
    custom_tool_call_response,
    function_call_response,
    text_response,
)

MOVED = "no longer leads to"


@dataclass
class Scene:
    cwd: Path
    tmpdir: Path
    outside: Path

    def repoint(self, which: str) -> Path:
        """What a command could do: move the folder away and leave a symlink to
        `outside` where it was; the path the next write goes to."""
        if which == "cwd parent":
            parent = self.cwd.parent
            parent.rename(parent.with_name(parent.name + ".old"))
            parent.mkdir()
            self.cwd.symlink_to(self.outside)
            return self.cwd / "planted.txt"
        self.tmpdir.rename(self.tmpdir.with_name("tmpdir.old"))
        self.tmpdir.symlink_to(self.outside)
        return self.tmpdir / "planted.txt"


@pytest.fixture
def scene() -> Iterator[Scene]:
    # The cwd's parent lives under /tmp, a writable root, as in a scratch checkout.
    base = Path(tempfile.mkdtemp(prefix="sandbox-moved-", dir="/tmp"))
    outside = Path(tempfile.mkdtemp(prefix="sandbox-moved-outside-", dir="/var/tmp"))
    cwd, tmpdir = base / "parent" / "proj", base / "tmpdir"
    cwd.mkdir(parents=True)
    tmpdir.mkdir()
    subprocess.run(["git", "init", "-q", str(cwd)], check=True)
    yield Scene(cwd, tmpdir, outside)
    shutil.rmtree(base, ignore_errors=True)
    shutil.rmtree(outside, ignore_errors=True)


POLICY = WorkspaceWrite()  # the cwd, /tmp and $TMPDIR
WHICH = pytest.mark.parametrize("which", ["cwd parent", "tmpdir"])


@WHICH
def test_the_next_command_is_refused(scene: Scene, mode: str, which: str) -> None:
    from codex_lsp.sandbox import RootMoved, hold_roots

    env = {"TMPDIR": str(scene.tmpdir)}
    held = hold_roots(POLICY, scene.cwd, env)
    target = scene.repoint(which)
    with pytest.raises(RootMoved) as refused:
        wrap(["bash", "-c", f"echo pwned > {target}"], scene.cwd, mode, POLICY, env=env, roots=held)
    assert MOVED in str(refused.value)
    assert list(scene.outside.iterdir()) == []


@WHICH
def test_a_move_after_the_check_is_refused_by_the_launcher(
    scene: Scene, mode: str, which: str
) -> None:
    from codex_lsp.sandbox import hold_roots

    env = {"TMPDIR": str(scene.tmpdir)}
    held = hold_roots(POLICY, scene.cwd, env)
    script = f"echo pwned > {scene.cwd if which == 'cwd parent' else scene.tmpdir}/planted.txt"
    wrapped = wrap(["bash", "-c", script], scene.cwd, mode, POLICY, env=env, roots=held)
    scene.repoint(which)
    done = run_wrapped(wrapped, "/", timeout=60)
    assert done.code != 0
    assert MOVED in done.output, done.output
    assert list(scene.outside.iterdir()) == []


@pytest.fixture
def landlock_only(mode: str, monkeypatch: pytest.MonkeyPatch) -> str:
    if mode == "landlock-only":
        monkeypatch.setenv("CODEX_LSP_SANDBOX_DISABLE", "mountns")
    return mode


@WHICH
async def test_the_engine_refuses_the_next_command_and_patch(
    scripted_model, scene: Scene, landlock_only: str, which: str, monkeypatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(scene.tmpdir))
    home = scene.cwd.parent.parent / "home"
    write_config(home, scripted_model.base_url, approval_policy="never")
    moved = scene.cwd.parent if which == "cwd parent" else scene.tmpdir
    target = scene.cwd / "planted.txt" if which == "cwd parent" else scene.tmpdir / "planted.txt"
    link = scene.cwd if which == "cwd parent" else moved
    repoint = f"mv {moved} {moved}.old && mkdir -p {moved} && ln -s {scene.outside} {link}"
    patch = f"*** Begin Patch\n*** Add File: {target}\n+planted\n*** End Patch\n"
    for response in (
        function_call_response("exec_command", {"cmd": repoint}, call_id="move"),
        text_response("moved"),
        function_call_response("exec_command", {"cmd": f"echo pwned > {target}"}, call_id="write"),
        custom_tool_call_response("apply_patch", patch, call_id="patch"),
        text_response("done"),
    ):
        scripted_model.enqueue(response)
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(scene.cwd))
        await engine.until("task_complete", sub_id=await engine.send("move things around"))
        if not os.path.islink(link):
            # The sandbox itself now refuses this rename in most modes (the folders on
            # the way to a protected entry, a mounted root); any process outside it can.
            scene.repoint(which)
        await engine.until("task_complete", sub_id=await engine.send("now write"))
    outputs = {
        item["call_id"]: str(item["output"])
        for item in scripted_model.requests[-1].body["input"]
        if item.get("type") in ("function_call_output", "custom_tool_call_output")
    }
    assert MOVED in outputs["write"], outputs["write"]
    assert MOVED in outputs["patch"], outputs["patch"]
    assert list(scene.outside.iterdir()) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="switches to an unprivileged user")
@WHICH
def test_an_unprivileged_launcher_refuses_a_moved_root(scene: Scene, which: str) -> None:
    from codex_lsp.sandbox import hold_roots, wrap_command
    from tests.sandbox.test_escape_basics import _python_for_nobody

    python = _python_for_nobody()
    if python is None:
        pytest.skip("no Python >= 3.11 runnable by an unprivileged user")
    base = scene.cwd.parent.parent
    for path in [base, *base.rglob("*"), scene.outside]:
        os.lchown(path, 65534, 65534)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TMPDIR": str(scene.tmpdir)}
    held = hold_roots(POLICY, scene.cwd, env)
    folder = scene.cwd if which == "cwd parent" else scene.tmpdir
    wrapped = wrap_command(
        ["bash", "-c", f"echo pwned > {folder}/planted.txt"], POLICY, scene.cwd, env, roots=held
    )
    scene.repoint(which)
    done = run_wrapped(wrapped, "/", timeout=60, python=python, nobody=True)
    if "can't open file" in done.output:
        pytest.skip(f"launcher not readable by an unprivileged user: {done.output}")
    assert done.code != 0
    assert MOVED in done.output, done.output
    assert list(scene.outside.iterdir()) == []
