"""Every sandboxed process starts through `engine.sandboxing.prepare_command`: the one place that
gives a command the configured environment, limits and hidden directories. No other module of
the project wraps a command in the sandbox itself."""

from __future__ import annotations

import ast
from pathlib import Path

import codex_lsp

PACKAGE = Path(codex_lsp.__file__).parent


def _names_wrap_command(path: Path) -> bool:
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "wrap_command":
            return True
        if isinstance(node, ast.Attribute) and node.attr == "wrap_command":
            return True
        if isinstance(node, ast.ImportFrom) and any(a.name == "wrap_command" for a in node.names):
            return True
    return False


def test_only_prepare_command_wraps_a_command_in_the_sandbox():
    outside = {
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if path.parent.name != "sandbox" and _names_wrap_command(path)
    }
    assert outside == {"engine/sandboxing.py"}
