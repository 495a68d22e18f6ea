"""seek_sequence: the four-pass fuzz ladder and the end-of-file anchor."""

from __future__ import annotations

from codex_lsp.engine.patch import seek_sequence


def test_exact_match_from_start() -> None:
    lines = ["a", "b", "c", "b", "c"]
    assert seek_sequence(lines, ["b", "c"], 0) == 1
    assert seek_sequence(lines, ["b", "c"], 2) == 3
    assert seek_sequence(lines, ["b", "c"], 4) is None


def test_trailing_whitespace_pass() -> None:
    assert seek_sequence(["x", "foo   ", "bar\t"], ["foo", "bar"], 0) == 1


def test_surrounding_whitespace_pass() -> None:
    assert seek_sequence(["x", "    foo", "  bar  "], ["foo", "bar"], 0) == 1


def test_unicode_punctuation_pass() -> None:
    lines = [
        "import x",
        "msg = \u201chello \u2014 it\u2019s\u00a0me\u201d",  # curly quotes, em dash, NBSP
        "n = \u22121",  # minus sign
    ]
    pattern = ['msg = "hello - it\'s me"', "n = -1"]
    assert seek_sequence(lines, pattern, 0) == 1


def test_stricter_pass_wins_over_earlier_fuzzy_match() -> None:
    # Line 0 only matches after trimming; line 2 matches exactly and must be preferred.
    lines = ["  foo", "x", "foo"]
    assert seek_sequence(lines, ["foo"], 0) == 2


def test_eof_searches_only_the_last_window() -> None:
    lines = ["end", "mid", "end"]
    assert seek_sequence(lines, ["end"], 0, eof=True) == 2
    assert seek_sequence(lines, ["mid"], 0, eof=True) is None


def test_empty_pattern_and_too_long_pattern() -> None:
    assert seek_sequence(["a"], [], 1) == 1
    assert seek_sequence(["a"], ["a", "b"], 0) is None
    assert seek_sequence([], ["a"], 0) is None


def test_start_past_last_window() -> None:
    assert seek_sequence(["a", "b"], ["a"], 5) is None
