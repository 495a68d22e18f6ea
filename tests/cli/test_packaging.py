"""Packaging: the wheel builds without deprecation warnings and carries its license."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_license_file_is_the_apache_2_text():
    text = (ROOT / "LICENSE").read_text()

    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text


def test_the_wheel_builds_quietly_with_an_spdx_license(tmp_path):
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )

    assert built.returncode == 0, built.stderr
    output = built.stdout + built.stderr
    assert "deprecated" not in output.lower() and "DeprecationWarning" not in output
    (wheel,) = tmp_path.glob("codex_lsp-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (metadata,) = [name for name in names if name.endswith(".dist-info/METADATA")]
        headers = archive.read(metadata).decode()
    assert "License-Expression: Apache-2.0" in headers
    assert "License-File: LICENSE" in headers
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)


def test_build_vscode_makes_the_vsix_without_the_editor_test_tooling(tmp_path):
    cache = tmp_path / "editors-cache"
    target = tmp_path / "out" / "codex.vsix"
    env = {**os.environ, "CODEX_LSP_EDITORS_CACHE": str(cache)}

    built = subprocess.run(
        [str(ROOT / "scripts" / "build-vscode"), "--out", str(target)],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        stdin=subprocess.DEVNULL,
    )

    assert built.returncode == 0, built.stderr
    assert built.stdout.strip().splitlines()[-1] == str(target)
    with zipfile.ZipFile(target) as vsix:
        names = set(vsix.namelist())
        manifest = json.loads(vsix.read("extension/package.json"))
    assert {"extension/package.json", "extension/out/extension.js"} <= names
    assert manifest["name"] == "codex-lsp-vscode"
    assert not any("node_modules" in name for name in names)
    # Neither code-server nor a browser was fetched for it.
    assert not cache.exists()
    assert "code-server" not in built.stderr and "chromium" not in built.stderr
