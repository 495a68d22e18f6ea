"""`feedback/save` through `codex-lsp app-server`: a local ZIP with the thread's rollout, the
server's log, versions and config, and not one of the user's keys or tokens in it."""

from __future__ import annotations

import json
import zipfile

from codex_lsp.api.port import INVALID_PARAMS, INVALID_REQUEST
from tests.support.appserver import app_server, make_home
from tests.support.scripted_builders import text_response

AUTH_KEY = "sk-proj-authSECRET0000111122223333"
ENV_KEY = "envSECRET-4444-5555"
HEADER_KEY = "hdrSECRET-6666-7777"
MCP_TOKEN = "mcpSECRET-8888-9999"
URL_PASSWORD = "urlSECRET-1212-3434"
QUERY_KEY = "querySECRET-5656-7878"
SECRETS = (AUTH_KEY, ENV_KEY, HEADER_KEY, MCP_TOKEN, URL_PASSWORD, QUERY_KEY)


def _home(tmp_path, scripted_model):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    config = home / "config.toml"
    text = config.read_text().replace(
        "[model_providers.scripted]\n",
        '[model_providers.scripted]\nenv_key = "SCRIPTED_KEY"\n'
        f'http_headers = {{ "X-Team-Key" = "{HEADER_KEY}" }}\n'
        f'query_params = {{ "sig" = "{QUERY_KEY}" }}\n',
    )
    text = text.replace("http://127.0.0.1", f"http://codex:{URL_PASSWORD}@127.0.0.1")
    assert URL_PASSWORD in text
    text += (
        '\n[mcp_servers.offline]\ncommand = "/bin/true"\nenabled = false\n'
        f'env = {{ SERVICE_TOKEN = "{MCP_TOKEN}" }}\n'
    )
    config.write_text(text)
    return home, ws


def _entries(path):
    with zipfile.ZipFile(path) as bundle:
        return {name: bundle.read(name).decode() for name in bundle.namelist()}


def test_the_bundle_holds_the_thread_and_no_secret(scripted_model, tmp_path):
    home, ws = _home(tmp_path, scripted_model)
    extra_log = tmp_path / "editor.log"
    extra_log.write_text(f"editor started with key {ENV_KEY}\n")
    target = tmp_path / "report.zip"
    scripted_model.enqueue(text_response("Noted; please do not paste keys."))
    with app_server(home, ws, env={"SCRIPTED_KEY": ENV_KEY}) as client:
        client.result("account/login/start", {"type": "apiKey", "apiKey": AUTH_KEY})
        thread_id = client.start_thread()["id"]
        client.run_turn(thread_id, f"it fails with {ENV_KEY} and {AUTH_KEY} after a while")
        saved = client.result(
            "feedback/save",
            {
                "classification": "bug",
                "reason": "the turn fails",
                "savePath": str(target),
                "threadId": thread_id,
                "includeLogs": True,
                "extraLogFiles": [str(extra_log)],
                "tags": {"editor": "vscode"},
            },
        )

    assert saved == {"savedPath": str(target), "threadId": thread_id, "promptHash": None}
    entries = _entries(target)
    rollouts = [name for name in entries if name.startswith("rollout/")]
    assert len(rollouts) == 1 and thread_id in rollouts[0]
    assert {"report.json", "manifest.json", "config.toml", "logs/codex-lsp.log"} <= set(entries)
    for name, text in entries.items():
        for secret in SECRETS:
            assert secret not in text, f"{name} holds a secret"
    # What is not secret is all there.
    assert "it fails with [REDACTED] and [REDACTED] after a while" in entries[rollouts[0]]
    assert "Noted; please do not paste keys." in entries[rollouts[0]]
    config = entries["config.toml"]
    assert 'env_key = "SCRIPTED_KEY"' in config and '"X-Team-Key" = "[REDACTED]"' in config
    report = json.loads(entries["report.json"])
    assert report["threadId"] == thread_id and report["classification"] == "bug"
    assert report["reason"] == "the turn fails" and report["tags"] == {"editor": "vscode"}
    assert report["versions"]["codexLsp"] and report["versions"]["python"]
    (extra,) = [name for name in entries if name.startswith("logs/extra-")]
    assert entries[extra] == "editor started with key [REDACTED]\n"
    manifest = json.loads(entries["manifest.json"])
    assert {entry["entry"] for entry in manifest} == set(entries) - {"manifest.json"}


def test_a_bundle_without_a_thread_or_logs(scripted_model, tmp_path):
    home, ws = _home(tmp_path, scripted_model)
    target = tmp_path / "plain.zip"
    with app_server(home, ws) as client:
        saved = client.result("feedback/save", {"classification": "idea", "savePath": str(target)})
    entries = _entries(target)
    assert set(entries) == {"report.json", "config.toml", "manifest.json"}
    assert json.loads(entries["report.json"])["threadId"] == saved["threadId"]


def test_bad_save_paths_are_refused_and_nothing_is_overwritten(scripted_model, tmp_path):
    home, ws = _home(tmp_path, scripted_model)
    taken = tmp_path / "taken.zip"
    taken.write_bytes(b"the user's own file")
    with app_server(home, ws) as client:
        existing = client.call("feedback/save", {"classification": "bug", "savePath": str(taken)})
        relative = client.call("feedback/save", {"classification": "bug", "savePath": "r.zip"})
        nowhere = client.call(
            "feedback/save",
            {"classification": "bug", "savePath": str(tmp_path / "missing" / "r.zip")},
        )

    assert existing["error"]["code"] == INVALID_REQUEST
    assert str(taken) in existing["error"]["message"]
    assert taken.read_bytes() == b"the user's own file"
    assert relative["error"] == {
        "code": INVALID_REQUEST,
        "message": "feedback savePath must be an absolute host path",
    }
    assert nowhere["error"]["code"] == INVALID_PARAMS and "missing" in nowhere["error"]["message"]
