"""Settings through `codex-lsp app-server`: experimental features listed and switched (in
config.toml, and in loaded threads), permission profiles, and hooks, which this engine reads
but does not run."""

from __future__ import annotations

import json
import tomllib

from codex_lsp.api.port import INVALID_PARAMS, INVALID_REQUEST
from codex_lsp.store.features import FEATURES
from tests.support.appserver import app_server, make_home
from tests.support.scripted_builders import text_response

PROFILES = '\n[permissions.locked]\ndescription = "No writes"\n[permissions.bare]\n'
HOOKS_TABLE = (
    '\n[[hooks.PreToolUse]]\nmatcher = "Bash"\n'
    '[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "echo hi"\n'
)


def _tool_names(body):
    return {tool.get("name") for tool in body.get("tools", [])}


def test_features_are_listed_with_their_state_and_pages(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    config = home / "config.toml"
    config.write_text(config.read_text() + "\n[features]\nskills = false\n")
    with app_server(home, ws) as client:
        listed = client.result("experimentalFeature/list", {})
        first = client.result("experimentalFeature/list", {"limit": 1})
        rest = client.result("experimentalFeature/list", {"cursor": first["nextCursor"]})
        unknown_thread = client.call("experimentalFeature/list", {"threadId": "nope"})["error"]

    features = {f["name"]: f for f in listed["data"]}
    assert list(features) == [feature.name for feature in FEATURES]
    assert features["skills"] == {
        "name": "skills",
        "stage": "stable",
        "enabled": False,
        "defaultEnabled": True,
        "displayName": None,
        "description": None,
        "announcement": None,
    }
    beta = features["subagent_tools"]
    assert beta["stage"] == "beta" and beta["enabled"] is False
    assert beta["displayName"] == "Subagents" and beta["description"]
    assert [f["name"] for f in first["data"] + rest["data"]] == list(features)
    assert listed["nextCursor"] is None and rest["nextCursor"] is None
    assert unknown_thread == {"code": INVALID_REQUEST, "message": "thread not found: nope"}


def test_switching_a_feature_writes_it_and_loaded_threads_follow(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    config = home / "config.toml"
    scripted_model.enqueue(text_response("Before."))
    scripted_model.enqueue(text_response("After."))
    with app_server(home, ws) as client:
        thread_id = client.start_thread()["id"]
        client.run_turn(thread_id, "first")
        switched = client.result(
            "experimentalFeature/enablement/set",
            {"enablement": {"request_user_input": False, "warp_drive": True}},
        )
        client.run_turn(thread_id, "second")
        for_thread = client.result("experimentalFeature/list", {"threadId": thread_id})

    assert switched == {"enablement": {"request_user_input": False}}
    assert tomllib.loads(config.read_text())["features"] == {"request_user_input": False}
    before, after = (r.body for r in scripted_model.requests)
    assert "request_user_input" in _tool_names(before)
    assert "request_user_input" not in _tool_names(after)
    flags = {f["name"]: f["enabled"] for f in for_thread["data"]}
    assert flags["request_user_input"] is False


def test_permission_profiles_are_the_built_in_modes_and_the_users_tables(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, extra=PROFILES)
    with app_server(home, ws) as client:
        listed = client.result("permissionProfile/list", {})
        page = client.result("permissionProfile/list", {"limit": 2})
        bad = client.call("permissionProfile/list", {"cursor": "x"})["error"]

    assert listed == {
        "data": [
            {"id": ":read-only", "allowed": True, "description": None},
            {"id": ":workspace", "allowed": True, "description": None},
            {"id": ":danger-full-access", "allowed": True, "description": None},
            {"id": "bare", "allowed": True, "description": None},
            {"id": "locked", "allowed": True, "description": "No writes"},
        ],
        "nextCursor": None,
    }
    assert [p["id"] for p in page["data"]] == [":read-only", ":workspace"]
    assert page["nextCursor"] == "2"
    assert bad["code"] == INVALID_PARAMS


def test_hooks_are_listed_where_run_with_a_warning_where_not(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, extra=HOOKS_TABLE)
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".codex").mkdir()
    (project / ".codex" / "hooks.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}})
    )
    broken = tmp_path / "broken"
    (broken / ".git").mkdir(parents=True)
    (broken / ".codex").mkdir()
    (broken / ".codex" / "hooks.json").write_text("{not json")
    with app_server(home, ws) as client:
        listed = client.result("hooks/list", {"cwds": [str(project), str(broken)]})
        thread = client.start_thread(cwd=str(project))
        for_thread = client.result("hooks/list", {"threadId": thread["id"]})

    here, there = listed["data"]
    assert here["cwd"] == str(project)
    assert here["hooks"] == [
        {
            "eventName": "PreToolUse",
            "matcher": "Bash",
            "command": "echo hi",
            "source": str(home / "config.toml"),
        }
    ]
    assert here["warnings"] == [
        f"hooks in {project / '.codex' / 'hooks.json'} are not run: codex-lsp does not run hooks",
    ]
    assert here["errors"] == []
    assert len(there["hooks"]) == 1 and there["warnings"] == []
    (error,) = there["errors"]
    assert error["path"] == str(broken / ".codex" / "hooks.json") and error["message"]
    assert for_thread["data"] == [here]


def test_without_hooks_configured_the_list_is_quiet(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    with app_server(home, ws) as client:
        listed = client.result("hooks/list", {"cwds": [str(ws)]})
    assert listed == {"data": [{"cwd": str(ws), "hooks": [], "warnings": [], "errors": []}]}
