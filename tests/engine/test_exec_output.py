"""Bounded capture, middle truncation and the model-facing `shell_command` text."""

from __future__ import annotations

import random

import pytest

from codex_lsp.engine.exec_output import (
    ExecOutput,
    HeadTailBuffer,
    RetainedOutput,
    count_lines,
    format_for_model,
    truncate_middle,
)


def output(
    data: bytes, *, exit_code: int = 0, duration_s: float = 0.26, **kw: object
) -> ExecOutput:
    retained = RetainedOutput.from_bytes(data)
    return ExecOutput(
        exit_code=exit_code,
        stdout=retained,
        stderr=RetainedOutput.from_bytes(b""),
        aggregated=retained,
        duration_s=duration_s,
        **kw,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("data", "lines"),
    [(b"", 0), (b"a", 1), (b"a\n", 1), (b"a\nb", 2), (b"\n\n", 2), ("x\ny\n", 2)],
)
def test_count_lines(data: bytes | str, lines: int) -> None:
    assert count_lines(data) == lines


@pytest.mark.parametrize("cap", [8, 9, 64])
def test_head_tail_buffer_matches_a_plain_buffer(cap: int) -> None:
    rng = random.Random(cap)
    data = bytes(rng.choice(b"ab\n") for _ in range(5_000))
    buf = HeadTailBuffer(cap)
    pos = 0
    while pos < len(data):
        step = rng.choice([0, 1, 3, cap // 2, cap, cap * 3])
        buf.write(data[pos : pos + step])
        pos += step
    kept = buf.snapshot()
    assert kept.head == data[: cap // 2]
    assert kept.tail == data[-(cap - cap // 2) :]
    assert kept.total_bytes == len(data)
    assert kept.total_lines == count_lines(data)
    assert kept.truncated
    assert kept.omitted_bytes == len(data) - cap


def test_small_output_is_kept_whole() -> None:
    data = b"hello\nworld\n" * 3
    kept = RetainedOutput.from_bytes(data, cap=64)
    assert kept.data == data
    assert not kept.truncated
    assert kept.text() == data.decode()


def test_retained_text_drops_characters_split_by_the_gap() -> None:
    # "é" is two bytes; with a 5-byte head the head ends mid-character, and so on for the tail.
    data = ("é" * 20).encode()
    kept = RetainedOutput.from_bytes(data, cap=10)
    assert kept.head == data[:5] and kept.tail == data[-5:]
    assert kept.text() == "éé" + "éé"
    assert "\ufffd" not in kept.text()


def test_truncate_middle_leaves_short_text_alone() -> None:
    assert truncate_middle("short", 40_000) == "short"
    exact = "x" * 100
    assert truncate_middle(exact, 100) == exact


def test_truncate_middle_keeps_head_and_tail_with_marker() -> None:
    text = "H" * 500 + "M" * 1000 + "T" * 500
    result = truncate_middle(text, 1000)
    assert result == "H" * 500 + "…250 tokens truncated…" + "T" * 500


def test_truncate_middle_rounds_tokens_up() -> None:
    result = truncate_middle("a" * 11, 4)
    # 7 bytes removed -> 2 tokens, not 1.
    assert result == "aa…2 tokens truncated…aa"


@pytest.mark.parametrize("char", ["é", "€", "😀"])
@pytest.mark.parametrize("budget", [7, 10, 33, 101])
def test_truncate_middle_cuts_on_utf8_boundaries(char: str, budget: int) -> None:
    text = char * 200
    result = truncate_middle(text, budget)
    head, rest = result.split("…", 1)
    marker, tail = rest.split("…", 1)
    assert "\ufffd" not in result
    assert set(head) <= {char} and set(tail) <= {char}
    kept_bytes = len(head.encode()) + len(tail.encode())
    assert kept_bytes <= budget
    # Each half gives up less than one character to stay on a boundary.
    assert kept_bytes > budget - 2 * len(char.encode())
    removed = len(text.encode()) - kept_bytes
    assert marker == f"{-(-removed // 4)} tokens truncated"


def test_format_for_model_plain() -> None:
    text = format_for_model(output(b"hello\n", duration_s=0.26))
    assert text == "Exit code: 0\nWall time: 0.3 seconds\nOutput:\nhello\n"


def test_format_for_model_failure_and_empty_output() -> None:
    text = format_for_model(output(b"", exit_code=2, duration_s=1.04))
    assert text == "Exit code: 2\nWall time: 1.0 seconds\nOutput:\n"


def test_format_for_model_reports_total_lines_when_truncated() -> None:
    data = "".join(f"line {i}\n" for i in range(1, 10_001)).encode()
    text = format_for_model(output(data), budget_bytes=2_000)
    header, body = text.split("Output:\n", 1)
    assert header == "Exit code: 0\nWall time: 0.3 seconds\nTotal output lines: 10000\n"
    assert body.startswith("line 1\nline 2\n")
    assert body.endswith("line 10000\n")
    assert "tokens truncated…" in body
    assert len(body.encode()) < 2_000 + 40


def test_format_for_model_without_line_loss_has_no_total_line() -> None:
    text = format_for_model(output(b"x" * 5_000), budget_bytes=1_000)
    assert "Total output lines" not in text
    assert "…1000 tokens truncated…" in text


def test_format_for_model_timeout_prefix() -> None:
    out = output(b"partial\n", exit_code=124, timed_out=True, timeout_ms=1500)
    assert out.aggregated_output == "command timed out after 1500 milliseconds\npartial\n"
    text = format_for_model(out)
    assert text.endswith("Output:\ncommand timed out after 1500 milliseconds\npartial\n")


def test_format_for_model_counts_bytes_dropped_at_capture() -> None:
    # 10 000 lines captured through a 4 KiB window: the marker and line total cover them all.
    data = "".join(f"{i:05d}\n" for i in range(10_000)).encode()
    retained = RetainedOutput.from_bytes(data, cap=4096)
    out = ExecOutput(
        exit_code=0,
        stdout=retained,
        stderr=RetainedOutput.from_bytes(b""),
        aggregated=retained,
        duration_s=0.0,
    )
    text = format_for_model(out, budget_bytes=1_000)
    header, body = text.split("Output:\n", 1)
    assert "Total output lines: 10000\n" in header
    assert body.startswith("00000\n00001\n")
    assert body.endswith("09999\n")
    assert f"…{-(-(len(data) - 1_000) // 4)} tokens truncated…" in body


def test_format_for_model_timeout_with_capture_truncation() -> None:
    retained = RetainedOutput.from_bytes(b"z" * 10_000, cap=2_000)
    out = ExecOutput(
        exit_code=124,
        stdout=retained,
        stderr=RetainedOutput.from_bytes(b""),
        aggregated=retained,
        duration_s=10.0,
        timed_out=True,
        timeout_ms=10_000,
    )
    body = format_for_model(out, budget_bytes=1_000).split("Output:\n", 1)[1]
    assert body.startswith("command timed out after 10000 milliseconds\nzzz")
    assert body.endswith("zzz")
