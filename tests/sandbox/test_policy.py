"""Writable roots, path checks, the denial heuristic and the wrapper's contract."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from codex_lsp.protocol.core.policy import DangerFullAccess, ReadOnly, WorkspaceWrite
from codex_lsp.sandbox import (
    SandboxUnavailable,
    WritableRoot,
    _seccomp,
    is_likely_sandbox_denied,
    is_path_writable,
    paths_outside_writable_roots,
    sandbox_support,
    sandbox_unavailable_warning,
    wrap_command,
    writable_roots,
)
from codex_lsp.sandbox._jsonlite import loads

WW = WorkspaceWrite()
ISOLATED = WorkspaceWrite(exclude_slash_tmp=True, exclude_tmpdir_env_var=True)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("print('hi')\n")
    return root


@pytest.fixture(autouse=True)
def _no_tmpdir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TMPDIR", raising=False)


def roots_by_path(policy: WorkspaceWrite, cwd: Path) -> dict[Path, WritableRoot]:
    return {r.root: r for r in writable_roots(policy, cwd)}


# --- writable_roots ---------------------------------------------------------------


def test_workspace_write_roots_are_cwd_tmp_and_explicit(ws: Path, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    roots = roots_by_path(WorkspaceWrite(writable_roots=(str(extra),)), ws)
    assert list(roots) == [extra, ws, Path("/tmp")]


def test_tmpdir_is_a_root_unless_excluded(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path / "t"))
    assert tmp_path / "t" in roots_by_path(WW, ws)
    assert tmp_path / "t" not in roots_by_path(WorkspaceWrite(exclude_tmpdir_env_var=True), ws)
    assert Path("/tmp") not in roots_by_path(WorkspaceWrite(exclude_slash_tmp=True), ws)


def test_read_only_and_full_access_have_no_roots(ws: Path) -> None:
    assert writable_roots(ReadOnly(), ws) == []
    assert writable_roots(DangerFullAccess(), ws) == []


def test_cwd_protects_git_agents_and_codex_even_before_they_exist(ws: Path) -> None:
    root = roots_by_path(WW, ws)[ws]
    assert root.read_only_subpaths == (ws / ".git", ws / ".agents", ws / ".codex")


def test_every_root_protects_all_three_names_whether_or_not_they_exist(
    ws: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    (other / ".codex").mkdir(parents=True)
    (other / ".agents").write_text("not a dir")
    roots = roots_by_path(WorkspaceWrite(writable_roots=(str(other),)), ws)
    names = (".git", ".agents", ".codex")
    assert roots[other].read_only_subpaths == tuple(other / name for name in names)
    assert roots[ws].read_only_subpaths == tuple(ws / name for name in names)


def test_the_repository_above_the_cwd_is_protected_under_its_root(tmp_path: Path) -> None:
    repo = tmp_path / "shared" / "mono"
    (repo / ".git").mkdir(parents=True)
    cwd = repo / "pkg"
    cwd.mkdir()
    policy = WorkspaceWrite(writable_roots=(str(tmp_path / "shared"),))
    shared = roots_by_path(policy, cwd)[tmp_path / "shared"]
    for name in (".git", ".agents", ".codex"):
        assert repo / name in shared.read_only_subpaths
        assert not is_path_writable(repo / name / "config", policy, cwd)
    assert is_path_writable(repo / "README.md", policy, cwd)


def test_gitdir_pointer_file_protects_its_target(tmp_path: Path) -> None:
    repo = tmp_path / "main-repo"
    target = repo / ".git" / "worktrees" / "feature"
    target.mkdir(parents=True)
    worktree = tmp_path / "feature"
    worktree.mkdir()
    (worktree / ".git").write_text("gitdir: ../main-repo/.git/worktrees/feature\n")
    policy = WorkspaceWrite(writable_roots=(str(repo),))
    root = roots_by_path(policy, worktree)[worktree]
    assert root.read_only_subpaths == (
        worktree / ".git",
        target,
        worktree / ".agents",
        worktree / ".codex",
    )
    assert not is_path_writable(target / "HEAD", policy, worktree)
    assert not is_path_writable(worktree / ".git", policy, worktree)
    assert is_path_writable(worktree / "README.md", policy, worktree)


# --- is_path_writable ---------------------------------------------------------------


def test_files_in_the_workspace_are_writable(ws: Path) -> None:
    assert is_path_writable(ws / "src" / "main.py", WW, ws)
    assert is_path_writable("src/new.py", WW, ws)
    assert is_path_writable(ws / "brand-new-dir" / "x.txt", WW, ws)


def test_protected_subpaths_are_not_writable(ws: Path) -> None:
    assert not is_path_writable(ws / ".git" / "config", WW, ws)
    assert not is_path_writable(".git/hooks/pre-commit", WW, ws)
    assert not is_path_writable(ws / ".codex" / "config.toml", WW, ws)
    assert not is_path_writable(ws / ".git", WW, ws)


def test_dotdot_is_normalised_lexically(ws: Path) -> None:
    assert not is_path_writable("../outside.txt", ISOLATED, ws)
    assert not is_path_writable("src/../../outside.txt", ISOLATED, ws)
    assert not is_path_writable("src/../.git/config", WW, ws)
    assert is_path_writable("src/../other.txt", ISOLATED, ws)


def test_symlink_out_of_the_workspace_is_not_writable(ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / "link").symlink_to(outside)
    assert not is_path_writable(ws / "link" / "file.txt", ISOLATED, ws)
    (ws / "git-link").symlink_to(ws / ".git")
    assert not is_path_writable(ws / "git-link" / "config", WW, ws)


def test_workspace_under_tmp_keeps_its_git_protected(ws: Path) -> None:
    # /tmp is itself a root here; its rights must not reopen the nested `.git`.
    assert str(ws).startswith("/tmp/")
    assert not is_path_writable(ws / ".git" / "config", WW, ws)


def test_tmp_follows_the_exclusion_flag(ws: Path) -> None:
    assert is_path_writable("/tmp/scratch.txt", WW, ws)
    assert not is_path_writable(
        "/tmp/scratch.txt", WorkspaceWrite(exclude_slash_tmp=True), "/srv/workspace"
    )


def test_read_only_and_full_access(ws: Path) -> None:
    assert not is_path_writable(ws / "src" / "main.py", ReadOnly(), ws)
    assert is_path_writable("/etc/passwd", DangerFullAccess(), ws)
    assert not is_path_writable("/etc/passwd", WW, ws)


def test_paths_outside_writable_roots_keeps_order_and_spelling(ws: Path) -> None:
    paths = ["src/a.py", "../escape.py", ".git/config", str(ws / "ok.txt"), "/etc/hosts"]
    assert paths_outside_writable_roots(paths, ISOLATED, ws) == [
        Path("../escape.py"),
        Path(".git/config"),
        Path("/etc/hosts"),
    ]
    assert paths_outside_writable_roots(paths, DangerFullAccess(), ws) == []
    assert paths_outside_writable_roots(paths[:1], ReadOnly(), ws) == [Path("src/a.py")]


# --- is_likely_sandbox_denied -------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "output", "denied"),
    [
        (0, "Permission denied", False),
        (1, "touch: cannot touch 'x': Permission denied", True),
        (1, "bash: x: Read-only file system", True),
        (1, "socket: Operation not permitted", True),
        (1, "error: failed to write file foo.rs", True),
        (1, "blocked by the SANDBOX", True),
        (1, "landlock refused it", True),
        (1, "seccomp said no", True),
        (2, "usage: grep [OPTION]...", False),
        (126, "cannot execute", False),
        (127, "bash: nosuch: command not found", False),
        (127, "bash: ./tool: Permission denied", True),
        (159, "", True),
        (-31, "", True),
        (1, "assertion failed", False),
    ],
)
def test_is_likely_sandbox_denied(code: int, output: str, denied: bool) -> None:
    assert is_likely_sandbox_denied(code, output) is denied


# --- wrap_command and support ---------------------------------------------------------


def test_full_access_is_not_wrapped(ws: Path) -> None:
    wrapped = wrap_command(["ls", "-l"], DangerFullAccess(), ws, {"A": "1"})
    assert wrapped.argv == ["ls", "-l"]
    assert wrapped.env == {"A": "1"}
    assert wrapped.pass_fds == ()


def test_wrapped_command_runs_the_launcher_with_marker_env(ws: Path) -> None:
    wrapped = wrap_command(["echo", "hi"], WW, ws, {"PATH": "/usr/bin:/bin"})
    argv, env = wrapped.argv, wrapped.env
    wrapped.close()
    assert argv[0] == sys.executable
    assert argv[argv.index("--") + 1 :] == ["echo", "hi"]
    assert argv[argv.index("--cwd") + 1] == str(ws)
    assert env["CODEX_SANDBOX"] == "seccomp"
    assert env["CODEX_SANDBOX_NETWORK_DISABLED"] == "1"
    with wrap_command(["true"], WorkspaceWrite(network_access=True), ws, {}) as net:
        assert "CODEX_SANDBOX_NETWORK_DISABLED" not in net.env


def test_kernel_without_landlock_refuses_instead_of_downgrading(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEX_LSP_SANDBOX_DISABLE", "landlock")
    support = sandbox_support()
    assert not support.landlock
    assert support.landlock_abi is None
    warning = sandbox_unavailable_warning(support)
    assert warning is not None and "Landlock" in warning
    for policy in (WW, ReadOnly(), WorkspaceWrite(network_access=True)):
        with pytest.raises(SandboxUnavailable, match="Landlock"):
            wrap_command(["true"], policy, ws, {})
    # Nothing to enforce, nothing to refuse.
    assert wrap_command(["true"], DangerFullAccess(), ws, {}).argv == ["true"]


def test_kernel_without_seccomp_refuses_only_network_off(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEX_LSP_SANDBOX_DISABLE", "seccomp")
    with pytest.raises(SandboxUnavailable, match="seccomp"):
        wrap_command(["true"], WW, ws, {})
    with wrap_command(["true"], WorkspaceWrite(network_access=True), ws, {}) as wrapped:
        assert wrapped.argv[0] == sys.executable


def test_this_kernel_supports_the_sandbox() -> None:
    support = sandbox_support()
    assert support.landlock and support.seccomp
    assert support.landlock_abi is not None and support.landlock_abi >= 1
    assert sandbox_unavailable_warning(support) is None


# --- the launcher's own interface ----------------------------------------------------


def launcher(*args: str) -> subprocess.CompletedProcess[str]:
    main = Path(__file__).resolve().parents[2] / "codex_lsp" / "sandbox" / "__main__.py"
    return subprocess.run(
        [sys.executable, "-I", "-S", str(main), *args],
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_launcher_rejects_bad_arguments() -> None:
    missing = launcher("--policy", '{"type":"read-only"}')
    assert missing.returncode == 2
    assert "no command after --" in missing.stderr
    bad_json = launcher("--policy", "{type: read-only}", "--", "true")
    assert bad_json.returncode == 2
    assert "invalid JSON" in bad_json.stderr
    unknown = launcher("--policy", '{"type":"external-sandbox"}', "--", "true")
    assert unknown.returncode == 2
    assert "unsupported sandbox policy type 'external-sandbox'" in unknown.stderr


def test_launcher_reports_a_missing_command_like_a_shell(tmp_path: Path) -> None:
    result = launcher(
        "--policy", '{"type":"read-only"}', "--cwd", str(tmp_path), "--", "no-such-cmd"
    )
    assert result.returncode == 127
    assert "no-such-cmd: command not found" in result.stderr


def test_python_m_entry_point_works(tmp_path: Path) -> None:
    repo = Path(__file__).resolve().parent.parent
    result = subprocess.run(
        [
            *(sys.executable, "-m", "codex_lsp.sandbox"),
            *("--policy", '{"type":"read-only"}', "--"),
            *("sh", "-c", 'echo "$CODEX_SANDBOX"; touch x'),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(repo)},
        timeout=30,
    )
    assert result.stdout == "seccomp\n"
    assert result.returncode == 1
    assert not (tmp_path / "x").exists()


# --- the policy JSON reader ----------------------------------------------------------


def test_json_reader_matches_the_wire_format() -> None:
    text = WorkspaceWrite(writable_roots=("/a b", '/q"\\é'), network_access=True).model_dump_json()
    assert loads(text) == {
        "type": "workspace-write",
        "writable_roots": ["/a b", '/q"\\é'],
        "network_access": True,
        "exclude_tmpdir_env_var": False,
        "exclude_slash_tmp": False,
    }
    assert loads(' {"n": [1, -2.5e3, null, "\\u00e9\\ud83d\\ude00\\n"]} ') == {
        "n": [1, -2500.0, None, "é😀\n"]
    }


@pytest.mark.parametrize("text", ["", "{", '{"a" 1}', '{"a": tru}', '["x",]', '"\x01"', "{} x"])
def test_json_reader_rejects_malformed_input(text: str) -> None:
    with pytest.raises(ValueError, match="invalid JSON"):
        loads(text)


# --- the seccomp program ---------------------------------------------------------------


@pytest.mark.parametrize("table", [_seccomp._X86_64, _seccomp._AARCH64], ids=["x86_64", "aarch64"])
@pytest.mark.parametrize("deny_network", [True, False])
@pytest.mark.parametrize("landlock_only", [True, False])
def test_seccomp_filter_assembles_for_both_architectures(
    table: dict[str, int], deny_network: bool, landlock_only: bool
) -> None:
    program = _seccomp.build_filter(
        table, deny_network=deny_network, deny_ipc=landlock_only, deny_metadata=landlock_only
    )
    assert len(program) % 8 == 0
    # The kernel refuses programs over 4096 instructions; ours is small.
    assert 10 < len(program) // 8 < 100
    # First instruction loads the architecture, and it is checked before anything else.
    code, _, _, k = struct.unpack_from("=HBBI", program, 0)
    assert (code, k) == (0x20, 4)
    assert struct.unpack_from("=HBBI", program, 8)[3] == table["arch"]
