"""The VS Code extension (editors/vscode): its unit tests, type check, packaging, and the
end-to-end suite in real VS Code (code-server in headless Chromium) against the real server
and the scripted model server.

Needs what `scripts/setup-editors` installs (Node 24 in .venv, Chromium, code-server); a
missing piece fails these tests with the command to run. `CODEX_LSP_SKIP_VSCODE=1` skips
them, loudly, for a machine that cannot run a browser.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support.engine import make_git_repo, write_config
from tests.support.scripted_builders import (
    completed,
    created,
    custom_tool_call_response,
    function_call_response,
    rate_limit_headers,
    sse,
    text_response,
    usage,
)
from tests.support.scripted_model import ScriptedModelServer

ROOT = Path(__file__).resolve().parent.parent
EXT = ROOT / "editors" / "vscode"
ARTIFACTS = ROOT / "test-artifacts" / "vscode"
CACHE = Path(
    os.environ.get("CODEX_LSP_EDITORS_CACHE", Path.home() / ".cache" / "codex-lsp" / "editors")
)
HARNESS = CACHE / "vscode-e2e"
SETUP_HINT = "run scripts/setup-editors first"

if os.environ.get("CODEX_LSP_SKIP_VSCODE") == "1":
    pytest.skip("CODEX_LSP_SKIP_VSCODE=1: VS Code extension tests skipped", allow_module_level=True)


def _node_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{ROOT / '.venv' / 'bin'}:{env.get('PATH', '')}"
    return env


def _run(args: list[str], *, timeout: float, cwd: Path = EXT) -> subprocess.CompletedProcess:
    result = subprocess.run(
        args,
        cwd=cwd,
        env=_node_env(),
        stdin=subprocess.DEVNULL,  # nothing may stop to ask (CI has no terminal)
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    # Shown by pytest when the test fails.
    sys.stdout.write(result.stdout[-20_000:])
    sys.stderr.write(result.stderr[-20_000:])
    return result


@pytest.fixture(scope="module")
def node() -> str:
    node = ROOT / ".venv" / "bin" / "node"
    if not node.exists():
        pytest.fail(f"Node 24 is not in .venv/bin: {SETUP_HINT}")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("v24."), f"expected Node 24, got {version.stdout}"
    if not (EXT / "node_modules" / "esbuild").exists():
        pytest.fail(f"the extension's npm packages are missing: {SETUP_HINT}")
    return str(node)


@pytest.fixture(scope="module")
def built(node: str) -> Path:
    result = _run([node, "esbuild.mjs"], timeout=120)
    assert result.returncode == 0, "npm run build failed"
    return EXT / "out"


def test_unit_tests(node: str, built: Path) -> None:
    tests = sorted(str(p.relative_to(EXT)) for p in (built / "unit").glob("*.test.js"))
    assert tests, "no unit tests were built"
    result = _run([node, "--test", "--test-reporter=tap", *tests], timeout=120)
    assert result.returncode == 0, "the extension's unit tests failed"
    assert "\n# fail 0" in result.stdout, "no test summary"
    assert "\n# pass 0" not in result.stdout, "no unit test ran"


def test_type_check(node: str) -> None:
    result = _run([node, "node_modules/typescript/bin/tsc", "--noEmit", "-p", "."], timeout=180)
    assert result.returncode == 0, "tsc found type errors"


def test_package_makes_an_installable_vsix(node: str, tmp_path: Path) -> None:
    out = tmp_path / "codex.vsix"
    npx = ROOT / ".venv" / "bin" / "npx"
    result = _run(
        [
            str(npx),
            "--yes",
            "@vscode/vsce@4.1.0",
            "package",
            "--no-dependencies",
            "--allow-missing-repository",
            "-o",
            str(out),
        ],
        timeout=300,
    )
    assert result.returncode == 0, "vsce package failed"
    names = set(zipfile.ZipFile(out).namelist())
    for needed in (
        "extension/package.json",
        "extension/out/extension.js",
        "extension/out/webview.js",
        "extension/media/chat.css",
        "extension/media/codex.svg",
    ):
        assert needed in names, f"{needed} missing from the .vsix: {sorted(names)}"
    assert not any("node_modules" in n or "/src/" in n for n in names), "sources leaked in"
    bundle = zipfile.ZipFile(out).read("extension/out/extension.js").decode()
    assert "vscode-languageclient" in bundle or "LanguageClient" in bundle, "client not bundled"

    # And VS Code installs it (code-server's `--install-extension`, as `code` would).
    entry = HARNESS / "node_modules" / "code-server" / "out" / "node" / "entry.js"
    if not entry.exists():
        pytest.fail(f"code-server is not in {HARNESS}: {SETUP_HINT}")
    extensions = tmp_path / "extensions"
    installed = _run(
        [
            node,
            str(entry),
            "--user-data-dir",
            str(tmp_path / "ud"),
            "--extensions-dir",
            str(extensions),
            "--install-extension",
            str(out),
        ],
        timeout=120,
    )
    assert installed.returncode == 0, "code-server could not install the .vsix"
    assert (extensions / "codex-lsp.codex-lsp-vscode-0.1.0" / "out" / "extension.js").exists()


# -- end to end ---------------------------------------------------------------------------------

CHAT_FIRST = (
    "Hello from the scripted model, with **bold** text and raw "
    "<img src=x onerror=alert(1)> <b>markup</b> <script>alert(2)</script> shown as text.\n\n"
)
CHAT_SECOND = "- and the rest of the answer\n"
EDIT_PATCH = """*** Begin Patch
*** Update File: edit_me.py
@@
-    return "hi"
+    return "hello"
*** End Patch"""


def _streamed_with_a_pause(first: str, second: str) -> list:
    """One message whose second half comes after a stall, so the first half is seen alone."""
    item = {
        "type": "message",
        "id": "msg_chat",
        "role": "assistant",
        "status": "in_progress",
        "content": [],
    }
    done = {
        **item,
        "status": "completed",
        "content": [{"type": "output_text", "text": first + second, "annotations": []}],
    }

    def delta(text: str) -> dict:
        return sse(
            {
                "type": "response.output_text.delta",
                "item_id": "msg_chat",
                "output_index": 0,
                "content_index": 0,
                "delta": text,
            }
        )

    return [
        {
            "headers": rate_limit_headers(
                12.0, 300, secondary_used_percent=3.0, secondary_window_minutes=10080
            )
        },
        created("resp_chat"),
        sse({"type": "response.output_item.added", "output_index": 0, "item": item}),
        delta(first),
        {"stall_s": 2.0},
        delta(second),
        sse({"type": "response.output_item.done", "output_index": 0, "item": done}),
        completed("resp_chat", usage(1200, 340)),
    ]


def _scripts(ws: Path) -> dict[str, list[dict]]:
    review = {
        "findings": [
            {
                "title": "[P1] Division by zero when count is 0",
                "body": "Division by zero: `count` can be 0 and nothing guards it.",
                "confidence_score": 0.9,
                "priority": 1,
                "code_location": {
                    "absolute_file_path": str(ws / "review_me.py"),
                    "line_range": {"start": 2, "end": 2},
                },
            }
        ],
        "overall_correctness": "patch is incorrect",
        "overall_explanation": "The new parameter can be zero.",
        "overall_confidence_score": 0.8,
    }
    return {
        "chat": [{"script": _streamed_with_a_pause(CHAT_FIRST, CHAT_SECOND)}],
        "command": [
            {
                "script": function_call_response(
                    "exec_command",
                    {"cmd": "touch approved.txt && echo approved-output", "workdir": str(ws)},
                    call_id="call_cmd",
                    response_id="resp_c1",
                )
            },
            {"script": text_response("The command ran.", response_id="resp_c2")},
        ],
        "edit": [
            {
                "script": custom_tool_call_response(
                    "apply_patch", EDIT_PATCH, call_id="call_edit", response_id="resp_e1"
                )
            },
            {"script": text_response("Edited the selection.", response_id="resp_e2")},
        ],
        "review": [{"script": text_response(json.dumps(review), response_id="resp_r1")}],
    }


def _workspace(path: Path) -> Path:
    ws = make_git_repo(
        path,
        {
            "edit_me.py": 'def greet():\n    return "hi"\n',
            "review_me.py": "def mean(values):\n    return sum(values) / len(values)\n",
        },
    )
    # The uncommitted change the review looks at.
    (ws / "review_me.py").write_text("def mean(values, count):\n    return sum(values) / count\n")
    return ws


def test_end_to_end_in_vscode(node: str, built: Path, tmp_path: Path) -> None:
    entry = HARNESS / "node_modules" / "code-server" / "out" / "node" / "entry.js"
    if not entry.exists() or not (HARNESS / "node_modules" / "playwright-core").exists():
        pytest.fail(f"code-server / playwright-core are not in {HARNESS}: {SETUP_HINT}")
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        pytest.fail(f"Chromium is not installed: {SETUP_HINT}")

    if ARTIFACTS.exists():
        shutil.rmtree(ARTIFACTS)
    ARTIFACTS.mkdir(parents=True)
    ws = _workspace(tmp_path / "ws")
    with ScriptedModelServer() as model:
        home = tmp_path / "codex-home"
        write_config(home, model.base_url, approval_policy="untrusted")
        config = {
            "harnessDir": str(HARNESS),
            "extensionDir": str(EXT),
            "suitePath": str(built / "test" / "suite.js"),
            "workspace": str(ws),
            "runDir": str(tmp_path / "vscode"),
            "artifactsDir": str(ARTIFACTS),
            "chromium": chromium,
            "timeoutMs": 420_000,
            "settings": {
                "codexChat.pythonPath": sys.executable,
                "codexChat.serverEnv": {"CODEX_HOME": str(home)},
            },
            "env": {"CODEX_HOME": str(home)},
            "context": {
                "modelControl": model.base_url.removesuffix("/v1"),
                "scripts": _scripts(ws),
                "workspace": str(ws),
                "only": os.environ.get("CODEX_E2E_ONLY", ""),
            },
        }
        config_path = tmp_path / "e2e.json"
        config_path.write_text(json.dumps(config))
        result = _run([node, str(EXT / "e2e" / "driver.mjs"), str(config_path)], timeout=540)
    assert result.returncode == 0, f"the VS Code end-to-end suite failed; see {ARTIFACTS}"
    assert (ARTIFACTS / "chat-panel.png").exists(), "the panel screenshot is missing"
