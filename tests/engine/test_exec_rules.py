"""Command prefix rules (`engine.exec_rules`): the rules file Codex writes, read and written back,
and what a rule matches: simple commands, each of a plain script on its own, never a script
that does more than it says."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from codex_lsp.api.approvals.requests import proposed_execpolicy_amendment
from codex_lsp.engine.exec_rules import ExecRules, PrefixRule, parse_rule, read_rules

BASH = "/bin/bash"
CODEX_LINE = 'prefix_rule(pattern=["git", "status"], decision="allow")'


def _rules(tmp_path: Path, text: str) -> ExecRules:
    (tmp_path / "rules").mkdir(exist_ok=True)
    (tmp_path / "rules" / "default.rules").write_text(text)
    return ExecRules(tmp_path)


def test_the_forms_codex_writes_are_read() -> None:
    assert parse_rule(CODEX_LINE) == PrefixRule(("git", "status"), "allow")
    assert parse_rule('prefix_rule(pattern=["rm"], decision="forbidden")') == PrefixRule(
        ("rm",), "forbidden"
    )
    # `decision` defaults to allow; an element may list alternatives.
    assert parse_rule('prefix_rule(pattern = ["git", ["push", "fetch"]])') == PrefixRule(
        ("git", ("push", "fetch")), "allow"
    )
    assert parse_rule(PrefixRule(("git", "status")).line()) == PrefixRule(("git", "status"))


@pytest.mark.parametrize(
    "line",
    [
        'prefix_rule(pattern=[], decision="allow")',
        'prefix_rule(pattern=["git"], decision="maybe")',
        "prefix_rule(pattern=['git'])",
        'prefix_rule(pattern=["git", 3])',
        'prefix_rule(pattern=["git"], justification="why")',
        'host_executable(name="git", paths=["/usr/bin/git"])',
        "prefix_rule(",
        "load('x.star', 'y')",
    ],
)
def test_other_lines_are_reported_once_and_ignored(
    tmp_path: Path, line: str, caplog: pytest.LogCaptureFixture
) -> None:
    rules = _rules(tmp_path, f"# mine\n\n{line}\n{CODEX_LINE}\n")
    with caplog.at_level(logging.WARNING, logger="codex_lsp.engine.exec_rules"):
        for _ in range(3):
            assert rules.decision(["git", "status"]) == "allow"
            assert ExecRules(tmp_path).decision(["git", "status", "-s"]) == "allow"
    assert [r.getMessage() for r in caplog.records] == [
        f"command rules {tmp_path / 'rules' / 'default.rules'}: line 3 is not a prefix_rule "
        "this server reads; ignored"
    ]


def test_an_unreadable_file_has_no_rules(tmp_path: Path) -> None:
    (tmp_path / "rules" / "default.rules").mkdir(parents=True)
    assert read_rules(tmp_path / "rules" / "default.rules") == []
    assert ExecRules(tmp_path).decision(["git", "status"]) is None
    assert ExecRules(tmp_path / "missing").decision(["git", "status"]) is None


def test_a_rule_matches_a_command_starting_with_its_words(tmp_path: Path) -> None:
    rules = _rules(tmp_path, CODEX_LINE + "\n")
    assert rules.decision(["git", "status"]) == "allow"
    assert rules.decision(["git", "status", "--short", "src"]) == "allow"
    assert rules.decision([BASH, "-lc", "git status --short 'a b'"]) == "allow"
    assert rules.decision(["git", "log"]) is None
    assert rules.decision(["git"]) is None
    assert rules.decision(["/usr/bin/git", "status"]) is None


def test_the_strictest_matching_rule_decides(tmp_path: Path) -> None:
    rules = _rules(
        tmp_path,
        'prefix_rule(pattern=["git"], decision="allow")\n'
        'prefix_rule(pattern=["git", ["push", "fetch"]], decision="prompt")\n'
        'prefix_rule(pattern=["git", "push", "--force"], decision="forbidden")\n',
    )
    assert rules.decision(["git", "status"]) == "allow"
    assert rules.decision(["git", "fetch", "origin"]) == "prompt"
    assert rules.decision(["git", "push", "--force", "origin"]) == "forbidden"


# A rule for `git status` must never let through a script that does more than `git status`.
ESCAPES = [
    "git status; touch evil",
    "git status && touch evil",
    "git status || touch evil",
    "git status | sh",
    "git status & touch evil",
    "git status\ntouch evil",
    "git status\n\ntouch evil",
    "git status > evil",
    "git status >> ~/.bashrc",
    "git status 2>&1 >evil",
    "git status < /etc/passwd",
    "git status $(touch evil)",
    "git status `touch evil`",
    "git status <(touch evil)",
    'git status "$(touch evil)"',
    "git status ${HOME}",
    "git status $HOME",
    "git status ~",
    "git status *",
    "git status <<EOF\nx\nEOF",
    "(git status; touch evil)",
    "{ git status; touch evil; }",
    "GIT_PAGER='touch evil' git status",
    "PAGER=evil git status",
    "git status # ; touch evil",
    "if git status; then touch evil; fi",
    "bash -c 'git status; touch evil'",
    "sh -c 'git status'",
    "exec git status",
]


@pytest.mark.parametrize("script", ESCAPES)
def test_a_script_that_does_more_matches_no_rule(tmp_path: Path, script: str) -> None:
    rules = _rules(tmp_path, CODEX_LINE + "\n")
    for shell in ("bash", BASH, "/usr/bin/zsh", "sh"):
        for flag in ("-lc", "-c"):
            assert rules.decision([shell, flag, script]) is None, (shell, script)


# One simple command, whose words a rule could name exactly.
ONE_COMMAND = ("bash -c", "sh -c", "exec ")


@pytest.mark.parametrize("script", [s for s in ESCAPES if not s.startswith(ONE_COMMAND)])
def test_no_rule_is_proposed_for_a_script_of_more_than_one_simple_command(script: str) -> None:
    # A newline ends a command as `;` does: the words of both are not one command's prefix.
    assert proposed_execpolicy_amendment([BASH, "-lc", script]) is None


@pytest.mark.parametrize(
    "argv",
    [
        # A shell outside the system's bin dirs could be anything.
        ["/tmp/bash", "-lc", "git status"],
        ["./bash", "-c", "git status"],
        ["env", "GIT_PAGER=x", "git", "status"],
        ["sudo", "git", "status"],
        [],
    ],
)
def test_another_wrapper_matches_no_rule(tmp_path: Path, argv: list[str]) -> None:
    assert _rules(tmp_path, CODEX_LINE + "\n").decision(argv) is None


def test_allowing_writes_the_line_codex_writes_and_revoking_removes_it(tmp_path: Path) -> None:
    path = tmp_path / "rules" / "default.rules"
    rules = ExecRules(tmp_path)
    rules.allow(["touch", "one.flag"])
    assert path.read_text() == 'prefix_rule(pattern=["touch", "one.flag"], decision="allow")\n'
    assert rules.take_notes() == ['Approved command prefix saved:\n- ["touch", "one.flag"]']
    assert rules.take_notes() == []
    # Another session sees it at once, and again once revoked.
    other = ExecRules(tmp_path)
    assert other.decision(["touch", "one.flag", "two.flag"]) == "allow"
    path.write_text("# kept\n" + path.read_text() + CODEX_LINE + "\n")
    assert rules.revoke(PrefixRule(("touch", "one.flag")))
    assert path.read_text() == "# kept\n" + CODEX_LINE + "\n"
    assert rules.decision(["touch", "one.flag"]) is None
    assert other.decision(["touch", "one.flag"]) is None
    assert not rules.revoke(PrefixRule(("touch", "one.flag")))


def test_an_unwritable_home_keeps_the_rule_for_the_session(tmp_path: Path) -> None:
    (tmp_path / "rules").write_text("not a directory")
    rules = ExecRules(tmp_path)
    rules.allow(["make", "test"])
    assert rules.decision(["make", "test", "-j2"]) == "allow"
    assert rules.revoke(PrefixRule(("make", "test")))
    assert rules.decision(["make", "test"]) is None


SCRIPT_RULES = (
    CODEX_LINE + "\n"
    'prefix_rule(pattern=["git", "diff"])\n'
    'prefix_rule(pattern=["rm"], decision="forbidden")\n'
    'prefix_rule(pattern=["git", "push"], decision="prompt")\n'
)


@pytest.mark.parametrize(
    ("script", "decision"),
    [
        ("git status && git diff", "allow"),
        ("git status | git diff --stat", "allow"),
        ("git status\ngit diff", "allow"),
        # A command no rule matches leaves the script to the approval policy.
        ("git status; git log", None),
        ("git status && touch evil", None),
        # One forbidden or prompted command decides for the whole script.
        ("git status && rm -rf build", "forbidden"),
        ("touch x; rm -rf build", "forbidden"),
        ("git push || git status", "prompt"),
        ("git push; rm x", "forbidden"),
        # Anything more than plain commands matches no rule, forbidden ones included.
        ("git status && rm -rf $HOME", None),
        ("git status && git diff > out", None),
    ],
)
def test_a_script_is_held_to_the_rules_command_by_command(
    tmp_path: Path, script: str, decision: str | None
) -> None:
    rules = _rules(tmp_path, SCRIPT_RULES)
    assert rules.decision([BASH, "-lc", script]) == decision
