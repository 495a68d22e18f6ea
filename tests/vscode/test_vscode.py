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

from tests.support.engine import write_config
from tests.support.long_thread import write_long_thread
from tests.support.scripted_model import ScriptedModelServer
from tests.support.vscode_scripts import journey_scripts, journey_workspace
from tests.support.warm import warm_runtime

ROOT = Path(__file__).resolve().parents[2]
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


def _run(
    args: list[str], *, timeout: float, cwd: Path = EXT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    result = subprocess.run(
        args,
        cwd=cwd,
        env=env or _node_env(),
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


@pytest.fixture(scope="module")
def vsix(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The .vsix as the README builds it: `scripts/build-vscode` (`vsce package`, which runs
    the production build)."""
    out = tmp_path_factory.mktemp("vsix") / "codex.vsix"
    result = _run(
        ["bash", str(ROOT / "scripts" / "build-vscode"), "--out", str(out)], timeout=300, cwd=ROOT
    )
    assert result.returncode == 0, "vsce package failed"
    return out


def test_package_makes_an_installable_vsix(node: str, vsix: Path, tmp_path: Path) -> None:
    out = vsix
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
    webview = zipfile.ZipFile(out).read("extension/out/webview.js").decode()
    for library in ("markdown-it", "highlight", "DOMPurify"):
        assert library.lower() in webview.lower(), f"{library} is not bundled into the webview"

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


def test_end_to_end_in_vscode(node: str, built: Path, vsix: Path, tmp_path: Path) -> None:
    """Every journey, in code-server with the extension installed from its .vsix."""
    entry = HARNESS / "node_modules" / "code-server" / "out" / "node" / "entry.js"
    if not entry.exists() or not (HARNESS / "node_modules" / "playwright-core").exists():
        pytest.fail(f"code-server / playwright-core are not in {HARNESS}: {SETUP_HINT}")
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        pytest.fail(f"Chromium is not installed: {SETUP_HINT}")

    if ARTIFACTS.exists():
        shutil.rmtree(ARTIFACTS)
    ARTIFACTS.mkdir(parents=True)
    ws = journey_workspace(tmp_path / "ws")
    # The extension starts the server warm: its per-user server is the test's own, and stopped.
    with warm_runtime() as runtime, ScriptedModelServer() as model:
        home = tmp_path / "codex-home"
        config_toml = write_config(home, model.base_url)
        # No approval policy in the config: the panel's mode chooses it (the suite picks
        # "untrusted" for the journeys that answer approvals).
        config_toml.write_text(
            "".join(
                line
                for line in config_toml.read_text().splitlines(keepends=True)
                if not line.startswith("approval_policy")
            )
        )
        config = {
            "harnessDir": str(HARNESS),
            "extensionDir": str(EXT / "e2e" / "host"),
            "vsix": str(vsix),
            "suitePath": str(built / "test" / "suite.js"),
            "workspace": str(ws),
            "runDir": str(tmp_path / "vscode"),
            "artifactsDir": str(ARTIFACTS),
            "chromium": chromium,
            "timeoutMs": 900_000,
            "settings": {
                "codexChat.pythonPath": sys.executable,
                "codexChat.serverEnv": {"CODEX_HOME": str(home), "XDG_RUNTIME_DIR": str(runtime)},
            },
            "env": {"CODEX_HOME": str(home)},
            "context": {
                "modelControl": model.base_url.removesuffix("/v1"),
                "scripts": journey_scripts(ws),
                "workspace": str(ws),
                "python": sys.executable,
                "only": os.environ.get("CODEX_E2E_ONLY", ""),
                "longThread": write_long_thread(tmp_path / "long-thread", 500, ws),
            },
        }
        config_path = tmp_path / "e2e.json"
        config_path.write_text(json.dumps(config))
        result = _run([node, str(EXT / "e2e" / "driver.mjs"), str(config_path)], timeout=1000)
    assert result.returncode == 0, f"the VS Code end-to-end suite failed; see {ARTIFACTS}"
    # One screenshot per journey, for a reviewer to look at.
    results = json.loads((ARTIFACTS / "results.json").read_text())
    assert results["tests"], "no journey ran"
    for journey in results["tests"]:
        shot = ARTIFACTS / f"{journey['screenshot']}.png"
        assert shot.exists(), f"{journey['name']}: no screenshot {shot.name}"


def test_first_answer_from_a_fresh_profile(
    node: str, built: Path, vsix: Path, tmp_path: Path
) -> None:
    """A profile with nothing but the .vsix and a Python 3.11 without codex-lsp on PATH: the
    panel installs the server the extension carries, signs in with an API key, and answers."""
    entry = HARNESS / "node_modules" / "code-server" / "out" / "node" / "entry.js"
    if not entry.exists():
        pytest.fail(f"code-server is not in {HARNESS}: {SETUP_HINT}")
    python = shutil.which("python3", path="/usr/bin:/bin")
    probe = [python or "python3", "-c", "import sys, codex_lsp"]
    found = subprocess.run(probe, cwd=tmp_path, capture_output=True, check=False)
    if python is None or found.returncode == 0:
        pytest.fail("this test needs a python3 in /usr/bin without codex-lsp installed")
    artifacts = ARTIFACTS.parent / "vscode-first-start"
    if artifacts.exists():
        shutil.rmtree(artifacts)
    artifacts.mkdir(parents=True)
    ws = journey_workspace(tmp_path / "ws")
    with warm_runtime() as runtime, ScriptedModelServer() as model:
        home = tmp_path / "codex-home"
        config_toml = write_config(home, model.base_url)
        # As the OpenAI provider: no answer without a sign-in. The approval policy is the mode's.
        lines = config_toml.read_text().splitlines(keepends=True)
        kept = "".join(line for line in lines if not line.startswith("approval_policy"))
        config_toml.write_text(kept + "requires_openai_auth = true\n")
        config = {
            "harnessDir": str(HARNESS),
            "extensionDir": str(EXT / "e2e" / "host"),
            "vsix": str(vsix),
            "suitePath": str(built / "test" / "suite.js"),
            "workspace": str(ws),
            "runDir": str(tmp_path / "vscode"),
            "artifactsDir": str(artifacts),
            "chromium": shutil.which("chromium") or "/usr/bin/chromium",
            "timeoutMs": 600_000,
            "settings": {},
            "env": {"CODEX_HOME": str(home), "XDG_RUNTIME_DIR": str(runtime)},
            "context": {
                "modelControl": model.base_url.removesuffix("/v1"),
                "scripts": journey_scripts(ws),
                "workspace": str(ws),
                "python": python,
                "fresh": True,
            },
        }
        config_path = tmp_path / "e2e.json"
        config_path.write_text(json.dumps(config))
        # No codex-lsp, no Node and no virtual environment on PATH: what a user's machine has.
        env = {**os.environ, "PATH": "/usr/bin:/bin"}
        env.pop("VIRTUAL_ENV", None)
        result = _run(
            [node, str(EXT / "e2e" / "driver.mjs"), str(config_path)], timeout=700, env=env
        )
    assert result.returncode == 0, f"the first-start journey failed; see {artifacts}"
    results = json.loads((artifacts / "results.json").read_text())
    assert [t["name"][:12] for t in results["tests"]] == ["first start:"], "the journey did not run"
    assert (artifacts / "first-start-answer.png").exists()
