"""`parse_command`: the ParsedCommand summaries shown for exec events."""

from __future__ import annotations

import pytest

from codex_lsp.engine.command_parse import parse_command


def read(cmd: str, path: str, name: str | None = None) -> dict:
    return {"type": "read", "cmd": cmd, "name": name or path.rsplit("/", 1)[-1], "path": path}


def listing(cmd: str, path: str | None) -> dict:
    return {"type": "list_files", "cmd": cmd, "path": path}


def search(cmd: str, query: str | None, path: str | None) -> dict:
    return {"type": "search", "cmd": cmd, "query": query, "path": path}


def unknown(cmd: str) -> dict:
    return {"type": "unknown", "cmd": cmd}


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["cat", "README.md"], [read("cat README.md", "README.md")]),
        (["cat", "-n", "src/a.py"], [read("cat -n src/a.py", "src/a.py", "a.py")]),
        (["cat", "a", "b"], [unknown("cat a b")]),
        (["cat"], [unknown("cat")]),
        (["head", "-n", "50", "x.txt"], [read("head -n 50 x.txt", "x.txt")]),
        (["head", "-20", "x.txt"], [read("head -20 x.txt", "x.txt")]),
        (["tail", "-n", "+10", "log/app.log"], [read("tail -n +10 log/app.log", "log/app.log")]),
        (["sed", "-n", "1,80p", "lib.rs"], [read("sed -n 1,80p lib.rs", "lib.rs")]),
        (["sed", "-n", "12p", "lib.rs"], [read("sed -n 12p lib.rs", "lib.rs")]),
        (["sed", "-i", "s/a/b/", "lib.rs"], [unknown("sed -i s/a/b/ lib.rs")]),
        (["nl", "-ba", "f.py"], [read("nl -ba f.py", "f.py")]),
        (["ls"], [listing("ls", None)]),
        (["ls", "-la", "src"], [listing("ls -la src", "src")]),
        (["tree", "-L", "2", "pkg"], [listing("tree -L 2 pkg", "pkg")]),
        (["find", "src", "-name", "*.py"], [listing("find src -name '*.py'", "src")]),
        (["find", "-name", "x"], [listing("find -name x", None)]),
        (["rg", "--files", "src"], [listing("rg --files src", "src")]),
        (["rg", "--files"], [listing("rg --files", None)]),
        (["rg", "-n", "TODO"], [search("rg -n TODO", "TODO", None)]),
        (["rg", "-n", "TODO", "src"], [search("rg -n TODO src", "TODO", "src")]),
        (
            ["rg", "-g", "*.py", "-e", "def main", "pkg"],
            [search("rg -g '*.py' -e 'def main' pkg", "def main", "pkg")],
        ),
        (["grep", "-rn", "foo", "."], [search("grep -rn foo .", "foo", ".")]),
        (["grep", "-A", "3", "foo", "f"], [search("grep -A 3 foo f", "foo", "f")]),
        (["git", "grep", "-n", "foo"], [search("git grep -n foo", "foo", None)]),
        (["git", "status"], [unknown("git status")]),
        (["python", "x.py"], [unknown("python x.py")]),
        ([], []),
    ],
)
def test_single_commands(argv: list[str], expected: list[dict]) -> None:
    assert parse_command(argv) == expected


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("cat README.md", [read("cat README.md", "README.md")]),
        ("cd src && rg -n foo", [search("rg -n foo", "foo", None)]),
        ("rg -n foo | head -n 20", [search("rg -n foo", "foo", None)]),
        ("ls -la | wc -l", [listing("ls -la", None)]),
        (
            "cat a.py && sed -n 1,5p b.py",
            [read("cat a.py", "a.py"), read("sed -n 1,5p b.py", "b.py")],
        ),
        ("head -n 5 f.txt | tail -n 1", [read("head -n 5 f.txt", "f.txt")]),
        ("cd src", [unknown("cd src")]),
        ("echo 'a b' | tr a A", [unknown("echo 'a b'")]),
        ("cargo test && git status", [unknown("cargo test"), unknown("git status")]),
        ("cat $FILE", [unknown("cat $FILE")]),
        ("ls > out.txt", [unknown("ls > out.txt")]),
    ],
)
def test_scripts(script: str, expected: list[dict]) -> None:
    assert parse_command(["bash", "-lc", script]) == expected


def test_zsh_and_sh_wrappers() -> None:
    assert parse_command(["zsh", "-lc", "ls src"]) == [listing("ls src", "src")]
    assert parse_command(["/bin/sh", "-c", "cat f"]) == [read("cat f", "f")]
