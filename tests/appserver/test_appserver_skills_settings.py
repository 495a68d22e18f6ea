"""Skills settings through `codex-lsp app-server`: extra roots for the whole server with
`skills/changed`, and skills disabled or enabled in config.toml, which loaded threads and new
ones both follow."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from codex_lsp.api.port import INVALID_PARAMS
from tests.support.appserver import app_server, make_home
from tests.support.scripted_builders import text_response


def _skill(root: Path, name: str, description: str) -> Path:
    path = root / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n# Steps\nDo {name}.\n")
    return path


def _listed(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    (entry,) = result["data"]
    return {skill["name"]: skill for skill in entry["skills"]}


def _developer_text(body: dict[str, Any]) -> str:
    return "\n".join(
        part["text"]
        for item in body["input"]
        if item.get("role") == "developer"
        for part in item["content"]
    )


def _injected_skills(body: dict[str, Any]) -> str:
    return json.dumps([item for item in body["input"] if "<skill>" in json.dumps(item)])


def test_extra_roots_add_user_skills_for_every_thread(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    extra = tmp_path / "team-skills"
    path = _skill(extra, "release", "Cut a release.")
    scripted_model.enqueue(text_response("Ready."))
    env = {"HOME": str(tmp_path / "user")}
    with app_server(home, ws, env=env) as client:
        before = _listed(client.result("skills/list", {"cwds": [str(ws)]}))
        request = client.request("skills/extraRoots/set", {"extraRoots": [str(extra)]})
        assert client.response(request)["result"] == {}
        changed = client.first("skills/changed")
        after = _listed(client.result("skills/list", {"cwds": [str(ws)], "forceReload": True}))
        client.run_turn(client.start_thread()["id"], "hello")
        relative = client.call("skills/extraRoots/set", {"extraRoots": ["team-skills"]})["error"]

    assert "release" not in before
    # The notification comes before the response, as the reference server sends it.
    response = next(m for m in client.received if m.get("id") == request)
    assert client.received.index(changed) < client.received.index(response)
    assert after["release"]["scope"] == "user" and after["release"]["path"] == str(path)
    assert f"- release: Cut a release. (file: {path})" in _developer_text(
        scripted_model.requests[0].body
    )
    assert relative["code"] == INVALID_PARAMS and "extraRoots[0]" in relative["message"]


def test_a_disabled_skill_is_listed_but_no_thread_offers_it(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    path = _skill(home / "skills", "notes", "Write meeting notes.")
    config = home / "config.toml"
    for reply in ("Not that skill.", "A new thread.", "Back on."):
        scripted_model.enqueue(text_response(reply))
    env = {"HOME": str(tmp_path / "user")}
    with app_server(home, ws, env=env) as client:
        loaded = client.start_thread()["id"]
        disabled = client.result("skills/config/write", {"name": "notes", "enabled": False})
        listed_off = _listed(client.result("skills/list", {"cwds": [str(ws)]}))
        client.run_turn(loaded, "use $notes for this meeting")
        client.run_turn(client.start_thread()["id"], "hello")
        enabled = client.result("skills/config/write", {"path": str(path), "enabled": True})
        listed_on = _listed(client.result("skills/list", {"cwds": [str(ws)]}))
        client.run_turn(loaded, "use $notes now")
        neither = client.call("skills/config/write", {"enabled": True})["error"]

    assert disabled == {"effectiveEnabled": False} and enabled == {"effectiveEnabled": True}
    assert listed_off["notes"]["enabled"] is False and listed_on["notes"]["enabled"] is True
    entries = tomllib.loads(config.read_text())["skills"]["config"]
    assert entries == [
        {"name": "notes", "enabled": False},
        {"path": str(path), "enabled": True},
    ]
    mentioned_off, new_thread, mentioned_on = (r.body for r in scripted_model.requests)
    # The loaded thread took the change: the skill named in the turn is not injected.
    assert "<name>notes</name>" not in _injected_skills(mentioned_off)
    assert "notes" not in _developer_text(new_thread)
    # The entry choosing it by path comes last, so it wins: the loaded thread offers it again.
    assert "<name>notes</name>" in _injected_skills(mentioned_on)
    assert neither["code"] == INVALID_PARAMS
