"""The script reader, the known-safe allow-list and the dangerous-command list."""

from __future__ import annotations

import sys

import pytest

from codex_lsp.engine.safety import is_dangerous_command, is_known_safe_command, parse_shell_script


@pytest.mark.parametrize(
    ("script", "commands"),
    [
        ("ls", [["ls"]]),
        ("ls -la src", [["ls", "-la", "src"]]),
        ("  git status  ", [["git", "status"]]),
        ("ls && pwd", [["ls"], ["pwd"]]),
        ("ls || pwd; echo hi | wc -l", [["ls"], ["pwd"], ["echo", "hi"], ["wc", "-l"]]),
        ("ls;pwd", [["ls"], ["pwd"]]),
        ("ls;", [["ls"]]),
        ("ls\npwd\n", [["ls"], ["pwd"]]),
        ("\n\nls\n\n", [["ls"]]),
        ("ls &&\n  pwd", [["ls"], ["pwd"]]),
        ("echo 'a b' \"c d\"", [["echo", "a b", "c d"]]),
        ("echo 'no $expansion `here`'", [["echo", "no $expansion `here`"]]),
        ("echo foo\"bar\"'baz'", [["echo", "foobarbaz"]]),
        ("echo '' \"\"", [["echo", "", ""]]),
        ("rg -n 'fn main' src/", [["rg", "-n", "fn main", "src/"]]),
        ("git log --format=%h:%s -n 5", [["git", "log", "--format=%h:%s", "-n", "5"]]),
        ("echo a#b ~/x a=b", [["echo", "a#b", "~/x", "a=b"]]),
        ("echo 'multi\nline'", [["echo", "multi\nline"]]),
        ("cat résumé.txt", [["cat", "résumé.txt"]]),
    ],
)
def test_parse_plain_scripts(script: str, commands: list[list[str]]) -> None:
    assert parse_shell_script(script) == commands


@pytest.mark.parametrize(
    "script",
    [
        "",
        "   ",
        "ls > out.txt",
        "ls >> out.txt",
        "cat < in.txt",
        "ls 2>&1",
        "ls 2>/dev/null",
        "(ls)",
        "{ ls; }",
        "echo $(whoami)",
        "echo `whoami`",
        "echo $HOME",
        'echo "$HOME"',
        'echo "`id`"',
        'echo "a\\"b"',
        "echo \\$HOME",
        "ls *.py",
        "ls file?.txt",
        "ls [ab].txt",
        "echo {a,b}",
        "sleep 10 &",
        "ls & pwd",
        "ls |& cat",
        "cat <<EOF\nhi\nEOF",
        "FOO=bar ls",
        "PATH=/tmp ls",
        "if true; then ls; fi",
        "for f in a b; do echo $f; done",
        "! ls",
        "ls # comment",
        "ls && ",
        "&& ls",
        "ls | ",
        "; ls",
        "ls ;; pwd",
        "ls; ; pwd",
        "ls &&; pwd",
        "echo 'unterminated",
        'echo "unterminated',
        "time ls",
    ],
)
def test_reject_scripts_that_are_not_plain(script: str) -> None:
    assert parse_shell_script(script) is None


SAFE = [
    ["ls"],
    ["ls", "-la", "/etc"],
    ["/bin/ls", "-l"],
    ["/usr/bin/cat", "x"],
    ["cat", "README.md"],
    ["cd", "src"],
    ["echo", "hi"],
    ["grep", "-rn", "TODO", "."],
    ["head", "-n", "5", "f"],
    ["tail", "-f", "log"],
    ["wc", "-l", "f"],
    ["pwd"],
    ["true"],
    ["which", "python"],
    ["stat", "f"],
    ["uniq"],
    ["seq", "1", "5"],
    ["base64", "file"],
    ["base64", "-d", "file"],
    ["base64", "-w0", "file"],
    ["find", ".", "-name", "*.py"],
    ["find", ".", "-type", "f", "-print"],
    ["rg", "-n", "foo"],
    ["rg", "--files"],
    ["rg", "-i", "-g", "*.rs", "fn main"],
    ["git", "status"],
    ["git", "log", "--oneline", "-n", "5"],
    ["git", "diff", "HEAD~1"],
    ["git", "diff", "--no-ext-diff"],
    ["git", "show", "HEAD"],
    ["git", "-C", "sub", "status"],
    ["git", "--no-pager", "log"],
    ["git", "branch"],
    ["git", "branch", "--show-current"],
    ["git", "branch", "-a", "-vv"],
    ["git", "branch", "--format=%(refname)"],
    ["sed", "-n", "10p", "f"],
    ["sed", "-n", "1,20p", "f"],
    ["sed", "-n", "5p"],
    ["bash", "-lc", "ls && pwd"],
    ["bash", "-c", "git status; git log -n 3 | head -n 1"],
    ["zsh", "-lc", "cat README.md"],
    ["/bin/zsh", "-lc", "echo hi"],
    ["sh", "-c", "ls"],
    ["bash", "-lc", "rg -n 'a b' src | wc -l"],
]
if sys.platform.startswith("linux"):
    SAFE += [["numfmt", "1000"], ["tac", "f"]]


@pytest.mark.parametrize("argv", SAFE)
def test_known_safe(argv: list[str]) -> None:
    assert is_known_safe_command(argv)


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["rm", "x"],
        ["python", "-c", "print(1)"],
        ["./ls"],
        ["/tmp/cat", "x"],
        ["bin/ls"],
        ["touch", "x"],
        ["base64", "-o", "out", "in"],
        ["base64", "--output", "out", "in"],
        ["base64", "--output=out", "in"],
        ["base64", "-do", "out", "in"],
        ["find", ".", "-exec", "rm", "{}", ";"],
        ["find", ".", "-execdir", "ls", ";"],
        ["find", ".", "-ok", "rm", ";"],
        ["find", ".", "-okdir", "rm", ";"],
        ["find", ".", "-delete"],
        ["find", ".", "-fls", "out"],
        ["find", ".", "-fprint", "out"],
        ["find", ".", "-fprint0", "out"],
        ["find", ".", "-fprintf", "out", "%p"],
        ["rg", "--pre", "sh", "x"],
        ["rg", "--pre=sh", "x"],
        ["rg", "--hostname-bin", "sh", "x"],
        ["rg", "--hostname-bin=sh", "x"],
        ["rg", "--search-zip", "x"],
        ["rg", "-z", "x"],
        ["rg", "-iz", "x"],
        ["git"],
        ["git", "commit", "-m", "x"],
        ["git", "push"],
        ["git", "checkout", "main"],
        ["git", "-c", "core.pager=sh", "log"],
        ["git", "-ccore.pager=sh", "log"],
        ["git", "--config-env=core.pager=X", "log"],
        ["git", "--exec-path=/tmp", "status"],
        ["git", "--git-dir=/tmp/x", "status"],
        ["git", "--git-dir", "/tmp/x", "status"],
        ["git", "--work-tree=/tmp", "status"],
        ["git", "--namespace=x", "log"],
        ["git", "--super-prefix=x", "log"],
        ["git", "-p", "log"],
        ["git", "--paginate", "log"],
        ["git", "log", "--output=/tmp/x"],
        ["git", "log", "--output", "/tmp/x"],
        ["git", "diff", "--ext-diff"],
        ["git", "diff", "--textconv"],
        ["git", "show", "--exec=x"],
        ["git", "log", "--paginate"],
        ["git", "branch", "new-branch"],
        ["git", "branch", "-d", "old"],
        ["git", "branch", "-D", "old"],
        ["git", "branch", "-m", "a", "b"],
        ["git", "branch", "--set-upstream-to=origin/x"],
        ["sed", "-i", "s/a/b/", "f"],
        ["sed", "-n", "1,5p", "f", "g"],
        ["sed", "-n", "p", "f"],
        ["sed", "-n", "1,5w out", "f"],
        ["sed", "s/a/b/", "f"],
        ["sed"],
        ["bash", "-lc", "ls > out"],
        ["bash", "-lc", "ls && rm x"],
        ["bash", "-lc", "echo $(rm x)"],
        ["bash", "-lc", "ls *"],
        ["bash", "-lc", "(ls)"],
        ["bash", "-lc", "FOO=1 ls"],
        ["bash", "-lc", ""],
        ["bash", "-lc", "find . -delete"],
        ["bash", "-x", "ls"],
        ["bash", "-lc", "ls", "extra"],
        ["fish", "-c", "ls"],
        ["/tmp/bash", "-lc", "ls"],
    ],
)
def test_not_known_safe(argv: list[str]) -> None:
    assert not is_known_safe_command(argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["rm", "-f", "x"],
        ["rm", "-rf", "/"],
        ["rm", "-fr", "dir"],
        ["rm", "-Rf", "dir"],
        ["rm", "-r", "-f", "dir"],
        ["rm", "--force", "x"],
        ["/bin/rm", "-rf", "x"],
        ["sudo", "rm", "-rf", "/"],
        ["sudo", "-u", "root", "rm", "-f", "x"],
        ["sudo", "--", "rm", "-rf", "x"],
        ["sudo", "sudo", "rm", "-f", "x"],
        ["bash", "-lc", "rm -rf build"],
        ["bash", "-lc", "ls && rm -f x"],
        ["zsh", "-lc", "echo hi; sudo rm -rf /"],
    ],
)
def test_dangerous(argv: list[str]) -> None:
    assert is_dangerous_command(argv)


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["rm", "x"],
        ["rm", "-r", "dir"],
        ["rm", "--", "-f"],
        ["ls", "-f"],
        ["sudo", "ls"],
        ["sudo", "-u", "rm", "ls"],
        ["bash", "-lc", "rm x && ls"],
        ["echo", "rm", "-rf"],
        # Unreadable scripts are not judged here; the approval policy covers them.
        ["bash", "-lc", "rm -rf $HOME"],
    ],
)
def test_not_dangerous(argv: list[str]) -> None:
    assert not is_dangerous_command(argv)
