"""Editing config.toml through `codex-lsp app-server`: values and batches written in place with
comments and layout kept, validated as the file is read, versions that detect a race, the
requirements read, and `configWarning` for a config that has problems."""

from __future__ import annotations

import hashlib
import sys
import tomllib
from pathlib import Path

from codex_lsp.api.port import INVALID_PARAMS, INVALID_REQUEST
from tests.support.appserver import app_server, make_home
from tests.support.scripted_builders import text_response

HEADER = "# my settings, keep this comment\n"


def _home(tmp_path, scripted_model):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    config = home / "config.toml"
    config.write_text(HEADER + config.read_text())
    return home, ws, config


def test_value_write_keeps_comments_and_layout(scripted_model, tmp_path):
    home, ws, config = _home(tmp_path, scripted_model)
    before = config.read_text()
    with app_server(home, ws) as client:
        result = client.result(
            "config/value/write",
            {"keyPath": "model_reasoning_effort", "value": "high", "mergeStrategy": "replace"},
        )
        text = config.read_text()
        assert result["status"] == "ok" and result["filePath"] == str(config.resolve())
        assert result["version"] == "sha256:" + hashlib.sha256(text.encode()).hexdigest()
        assert text.startswith(HEADER)
        # Only the new line was added; every line the user wrote is still there, in order.
        assert [line for line in text.splitlines() if "model_reasoning_effort" not in line] == [
            line for line in before.splitlines()
        ]
        nested = client.result(
            "config/value/write",
            {
                "keyPath": "sandbox_workspace_write.network_access",
                "value": True,
                "mergeStrategy": "replace",
            },
        )
        data = tomllib.loads(config.read_text())
        assert data["sandbox_workspace_write"] == {"network_access": True}
        assert data["model_reasoning_effort"] == "high"
        read = client.result("config/read", {})
        assert read["config"]["model_reasoning_effort"] == "high"

        removed = client.result(
            "config/value/write",
            {"keyPath": "model_reasoning_effort", "value": None, "mergeStrategy": "replace"},
        )
        assert "model_reasoning_effort" not in tomllib.loads(config.read_text())
        assert removed["version"] != nested["version"]


def test_invalid_value_is_refused_naming_key_and_value_and_nothing_is_written(
    scripted_model, tmp_path
):
    home, ws, config = _home(tmp_path, scripted_model)
    before = config.read_text()
    with app_server(home, ws) as client:
        answer = client.call(
            "config/value/write",
            {"keyPath": "approval_policy", "value": "sometimes", "mergeStrategy": "replace"},
        )
        error = answer["error"]
        assert error["code"] == INVALID_REQUEST
        assert "approval_policy" in error["message"] and "sometimes" in error["message"]
        assert error["data"] == {"config_write_error_code": "configValidationError"}
        assert config.read_text() == before
        bad_path = client.call(
            "config/value/write", {"keyPath": "a..b", "value": 1, "mergeStrategy": "replace"}
        )
        assert bad_path["error"]["code"] == INVALID_PARAMS
        assert bad_path["error"]["message"].startswith("Invalid params: keyPath:")


def test_batch_is_all_or_nothing_and_upsert_merges_tables(scripted_model, tmp_path):
    home, ws, config = _home(tmp_path, scripted_model)
    before = config.read_text()
    with app_server(home, ws) as client:
        failed = client.call(
            "config/batchWrite",
            {
                "edits": [
                    {"keyPath": "model", "value": "gpt-5.5", "mergeStrategy": "replace"},
                    {"keyPath": "sandbox_mode", "value": "wide-open", "mergeStrategy": "replace"},
                ]
            },
        )
        assert "sandbox_mode" in failed["error"]["message"]
        assert "wide-open" in failed["error"]["message"]
        assert config.read_text() == before

        client.result(
            "config/batchWrite",
            {
                "edits": [
                    {"keyPath": "model", "value": "gpt-5.5", "mergeStrategy": "replace"},
                    {
                        "keyPath": "model_providers.scripted",
                        "value": {"request_max_retries": 2},
                        "mergeStrategy": "upsert",
                    },
                ]
            },
        )
        data = tomllib.loads(config.read_text())
        assert data["model"] == "gpt-5.5"
        provider = data["model_providers"]["scripted"]
        assert provider["request_max_retries"] == 2
        assert provider["base_url"] == scripted_model.base_url  # kept by the merge


def test_expected_version_detects_a_concurrent_edit(scripted_model, tmp_path):
    home, ws, config = _home(tmp_path, scripted_model)
    with app_server(home, ws) as client:
        first = client.result(
            "config/value/write", {"keyPath": "model", "value": "a", "mergeStrategy": "replace"}
        )
        config.write_text(config.read_text() + "\n# edited by hand\n")
        stale = client.call(
            "config/value/write",
            {
                "keyPath": "model",
                "value": "b",
                "mergeStrategy": "replace",
                "expectedVersion": first["version"],
            },
        )
        assert stale["error"]["data"] == {"config_write_error_code": "configVersionConflict"}
        assert tomllib.loads(config.read_text())["model"] == "a"
        other = client.call(
            "config/value/write",
            {
                "keyPath": "model",
                "value": "b",
                "mergeStrategy": "replace",
                "filePath": str(tmp_path / "elsewhere.toml"),
            },
        )
        assert other["error"]["code"] == INVALID_REQUEST
        assert "elsewhere.toml" in other["error"]["message"]


def test_requirements_read_and_config_warnings(scripted_model, tmp_path):
    home, ws, config = _home(tmp_path, scripted_model)
    config.write_text(config.read_text() + "\n[features]\nskils = true\n")
    with app_server(home, ws) as client:
        assert client.result("configRequirements/read") == {
            "requirements": None,
            "supportsIndependentSpeedModes": None,
        }
        warning = client.wait_method("configWarning")
        assert "skils" in warning["params"]["summary"]
        assert warning["params"]["path"] == str(config)


def test_reload_user_config_hands_the_written_settings_to_loaded_threads(scripted_model, tmp_path):
    home, ws, _config = _home(tmp_path, scripted_model)
    for reply in ("One.", "Two."):
        scripted_model.enqueue(text_response(reply))
    server = Path(__file__).parents[1] / "support" / "mcp_server.py"
    mcp_table = {"command": sys.executable, "args": [str(server)]}
    with app_server(home, ws) as client:
        thread_id = client.start_thread()["id"]
        client.result(
            "config/batchWrite",
            {
                "edits": [
                    {
                        "keyPath": "mcp_servers.tests",
                        "value": mcp_table,
                        "mergeStrategy": "replace",
                    },
                    {
                        "keyPath": "features.request_user_input",
                        "value": False,
                        "mergeStrategy": "replace",
                    },
                ]
            },
        )
        client.run_turn(thread_id, "without a reload")
        client.result(
            "config/batchWrite",
            {
                "edits": [
                    {
                        "keyPath": "model_reasoning_summary",
                        "value": "auto",
                        "mergeStrategy": "replace",
                    }
                ],
                "reloadUserConfig": True,
            },
        )
        client.wait_method("mcpServer/startupStatus/updated", name="tests", status="ready")
        client.run_turn(thread_id, "after the reload")
        settings = client.result("config/read", {})["config"]

    first, second = (set(_tool_names(r.body)) for r in scripted_model.requests[:2])
    # Written but not reloaded: the thread runs as it started.
    assert "request_user_input" in first and "mcp__tests__add" not in first
    assert "request_user_input" not in second and "mcp__tests__add" in second
    assert settings["model_reasoning_summary"] == "auto"


def _tool_names(body):
    return [tool.get("name") for tool in body.get("tools", [])]
