"""`codex_lsp.git`, the one way the engine runs git: every git process in the package starts
there, it runs only read-only subcommands, and neither the engine's environment nor a driver
name built to break a `-c` override makes it run a configured program."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from codex_lsp import git
from tests.engine.test_review_git import git as plain_git
from tests.support.engine import make_git_repo

PACKAGE = Path(git.__file__).parent
_STARTERS = {"run", "Popen", "call", "check_call", "check_output", "create_subprocess_exec"}


def _starts_git(node: ast.Call) -> bool:
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    if name not in _STARTERS or not node.args:
        return False
    first = node.args[0]
    head = first.elts[0] if isinstance(first, ast.List | ast.Tuple) and first.elts else first
    return isinstance(head, ast.Constant) and head.value == "git"


def test_every_git_the_package_starts_is_started_by_the_git_module():
    starters = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call) and _starts_git(node)
    )
    assert starters == ["git.py"]


@pytest.mark.parametrize("args", [[], ["commit"], ["fetch"], ["-c", "x=y", "diff"], ["config"]])
def test_only_read_only_subcommands_run(args):
    with pytest.raises(ValueError, match="does not run"):
        git.argv(args)


def _trap(tmp_path: Path) -> tuple[str, Path]:
    marker = tmp_path / "ran"
    program = tmp_path / "program"
    program.write_text(f'#!/bin/sh\n: > "{marker}"\ncat "$@"\n')
    program.chmod(0o755)
    return str(program), marker


def test_the_engines_environment_cannot_turn_programs_back_on(tmp_path, monkeypatch):
    program, marker = _trap(tmp_path)
    repo = make_git_repo(tmp_path / "repo", {"a.txt": "one\n"})
    other = make_git_repo(tmp_path / "other", {"b.txt": "other\n"})
    (repo / "a.txt").write_text("two\n")
    (repo / ".gitattributes").write_text("* diff=conv\n")
    for name in ("GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_SSH_COMMAND", "GIT_ASKPASS", "PAGER"):
        monkeypatch.setenv(name, program)
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.fsmonitor'='{program}'")
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "diff.conv.textconv")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", program)
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))

    done = git.run(repo, ["diff", "HEAD", "--"], timeout=30)

    assert not marker.exists()
    assert done.returncode == 0, done.stderr
    assert b"-one\n+two\n" in done.stdout


@pytest.mark.parametrize("driver", ["plain", "a=b", 'quote"d', "dotted.name"])
def test_every_configured_filter_driver_is_emptied_whatever_its_name(tmp_path, driver):
    program, marker = _trap(tmp_path)
    repo = make_git_repo(tmp_path / "repo", {"a.txt": "one\n"})
    plain_git(repo, "config", f"filter.{driver}.clean", program)
    plain_git(repo, "config", f"filter.{driver}.process", program)
    plain_git(repo, "config", f"filter.{driver}.required", "true")
    (repo / ".gitattributes").write_text(f"* filter={driver}\n")
    (repo / "a.txt").write_text("two\n")
    os.utime(repo / "a.txt", (0, 0))  # stat differs from the index: git must read the file

    done = git.run(repo, ["diff", "HEAD", "--"], timeout=30)

    assert not marker.exists()
    assert done.returncode == 0, done.stderr
    assert b"+two\n" in done.stdout
