"""Finding apply_patch calls inside shell tool argv."""

from __future__ import annotations

from pathlib import Path

import pytest

from codex_lsp.engine.patch import (
    ApplyPatchInvocation,
    apply_patch_to_disk,
    detect_apply_patch,
    is_raw_patch,
    parse_heredoc_script,
)

PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch"


@pytest.mark.parametrize("command", ["apply_patch", "applypatch"])
def test_direct_argv(command: str) -> None:
    assert detect_apply_patch([command, PATCH]) == ApplyPatchInvocation(PATCH, None)


@pytest.mark.parametrize(
    ("argv", "workdir"),
    [
        (["bash", "-lc", f"apply_patch <<'EOF'\n{PATCH}\nEOF\n"], None),
        (["bash", "-c", f'apply_patch <<"EOF"\n{PATCH}\nEOF'], None),
        (["/bin/zsh", "-lc", f"applypatch <<PATCH\n{PATCH}\nPATCH"], None),
        (["bash", "-l", "-c", f"  apply_patch << 'EOF'\n{PATCH}\nEOF  \n\n"], None),
        (["bash", "-lc", f"cd src && apply_patch <<'EOF'\n{PATCH}\nEOF\n"], "src"),
        (["sh", "-c", f"cd 'my dir' && apply_patch <<'EOF'\n{PATCH}\nEOF"], "my dir"),
        (["bash", "-lc", f"apply_patch <<-'EOF'\n{PATCH}\n\t\tEOF"], None),
    ],
)
def test_heredoc_forms(argv: list[str], workdir: str | None) -> None:
    assert detect_apply_patch(argv) == ApplyPatchInvocation(PATCH, workdir)


@pytest.mark.parametrize(
    "argv",
    [
        ["apply_patch"],
        ["apply_patch", PATCH, "extra"],
        ["bash", "-lc", "echo hi"],
        ["bash", "-lc", f"apply_patch <<'EOF'\n{PATCH}\nEOF\necho done"],
        ["bash", "-lc", f"cd src; apply_patch <<'EOF'\n{PATCH}\nEOF"],
        ["bash", "-lc", f"apply_patch <<'EOF'\n{PATCH}\nEND"],
        ["python", "-c", f"apply_patch <<'EOF'\n{PATCH}\nEOF"],
        ["bash", "-x", f"apply_patch <<'EOF'\n{PATCH}\nEOF"],
        [],
    ],
)
def test_other_commands_are_not_apply_patch(argv: list[str]) -> None:
    assert detect_apply_patch(argv) is None


def test_script_helper_and_routing_end_to_end(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    found = parse_heredoc_script(f"cd pkg && apply_patch <<'EOF'\n{PATCH}\nEOF")
    assert found is not None
    apply_patch_to_disk(found.patch, tmp_path / (found.workdir or "."))
    assert (tmp_path / "pkg/hello.txt").read_text() == "hi\n"


def test_raw_patch_detection() -> None:
    assert is_raw_patch([PATCH])
    assert is_raw_patch(["bash", "-lc", PATCH])
    assert not is_raw_patch(["apply_patch", PATCH])
    assert not is_raw_patch(["ls"])
