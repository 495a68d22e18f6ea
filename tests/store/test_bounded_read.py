"""Reading files a workspace controls: regular files only, within a limit, never waiting."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codex_lsp.store.bounded_read import FileTooLarge, NotRegularFile, read_bytes, read_text


def test_a_regular_file_is_read_whole_up_to_the_limit_and_refused_past_it(tmp_path: Path):
    path = tmp_path / "notes.txt"
    path.write_bytes(b"a\r\nb\n")
    assert read_text(path, 5) == "a\r\nb\n"
    with pytest.raises(FileTooLarge) as err:
        read_bytes(path, 4)
    assert err.value.strerror == "too large (5 bytes, limit 4)"
    assert err.value.filename == str(path)


def test_a_prefix_is_cut_at_the_limit_and_never_inside_a_character(tmp_path: Path):
    path = tmp_path / "AGENTS.md"
    path.write_bytes("déjà vu".encode())  # é and à take two bytes each
    assert read_bytes(path, 5, prefix=True) == "déj".encode() + b"\xc3"  # half of à
    assert read_text(path, 5, prefix=True) == "déj"
    assert read_text(path, 2, prefix=True) == "d"
    assert read_text(path, 100, prefix=True) == "déjà vu"


def test_a_sparse_file_is_refused_from_its_size_and_a_prefix_reads_only_the_prefix(
    tmp_path: Path,
):
    path = tmp_path / "big.bin"
    path.write_bytes(b"head")
    os.truncate(path, 1 << 40)  # a terabyte that costs no disk
    with pytest.raises(FileTooLarge, match=r"too large \(1099511627776 bytes, limit 1024\)"):
        read_bytes(path, 1024)
    assert read_bytes(path, 8, prefix=True) == b"head\0\0\0\0"


@pytest.mark.parametrize(
    ("make", "called"),
    [
        (lambda p: os.mkfifo(p), "a FIFO"),
        (lambda p: p.symlink_to("/dev/zero"), "a character device"),
        (lambda p: p.symlink_to("/dev/null"), "a character device"),
    ],
    ids=["fifo", "dev-zero", "dev-null"],
)
def test_what_is_not_a_regular_file_is_refused_at_once(tmp_path: Path, make, called):
    path = tmp_path / "main.py"
    make(path)
    with pytest.raises(NotRegularFile) as err:
        read_bytes(path, 1024, prefix=True)
    assert err.value.strerror == f"not a regular file: {called}"


def test_a_directory_is_a_directory_and_a_link_is_refused_when_not_followed(tmp_path: Path):
    with pytest.raises(IsADirectoryError):
        read_bytes(tmp_path, 10)
    target = tmp_path / "real.txt"
    target.write_text("x")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    assert read_bytes(link, 10) == b"x"
    with pytest.raises(NotRegularFile, match="a symbolic link"):
        read_bytes(link, 10, follow_symlinks=False)
