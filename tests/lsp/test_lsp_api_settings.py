"""MCP servers, providers, settings and feedback through `codex-lsp serve` as `codex/*` requests,
with their notifications coming back as `codex/<method>`."""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path

from tests.support.engine import make_git_repo, write_config
from tests.support.lsp_client import EditorSession

MCP_SERVER = Path(__file__).parents[1] / "support" / "mcp_server.py"


async def test_servers_and_settings_through_the_language_server(tmp_path, scripted_model):
    ws = make_git_repo(tmp_path / "ws", {"app.py": "print('hi')\n"})
    home = tmp_path / "home"
    table = (
        f"[mcp_servers.tests]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(MCP_SERVER))}]\n"
    )
    write_config(home, scripted_model.base_url, sandbox_mode="danger-full-access", extra=table)
    extra_skills = tmp_path / "team-skills" / "release"
    extra_skills.mkdir(parents=True)
    (extra_skills / "SKILL.md").write_text("---\nname: release\ndescription: Ship it.\n---\n")
    async with EditorSession(home, ws) as client:
        thread_id = await client.start_thread(ws)
        await client.wait_for(
            "mcpServer/startupStatus/updated",
            lambda p: p["threadId"] == thread_id and p["status"] == "ready",
        )
        status = await client.codex("mcpServerStatus/list", {"threadId": thread_id})
        called = await client.codex(
            "mcpServer/tool/call",
            {"threadId": thread_id, "server": "tests", "tool": "echo", "arguments": {"text": "x"}},
        )
        read = await client.codex(
            "mcpServer/resource/read",
            {"threadId": thread_id, "server": "tests", "uri": "memo://greeting"},
        )
        providers = await client.codex("modelProvider/list", {})
        features = await client.codex("experimentalFeature/list", {})
        await client.codex("skills/extraRoots/set", {"extraRoots": [str(extra_skills.parent)]})
        # Its params are `{}`: wait for the notification itself, not for truthy params.
        await client.wait_until(lambda: client.notifications("skills/changed"))
        skills = await client.codex("skills/list", {"cwds": [str(ws)], "forceReload": True})
        saved = await client.codex(
            "feedback/save",
            {"classification": "bug", "savePath": str(tmp_path / "r.zip"), "threadId": thread_id},
        )

    (server,) = status["data"]
    assert server["name"] == "tests" and server["runtimeStatus"] == "connected"
    assert called["content"] == [{"type": "text", "text": "x"}]
    assert read["contents"][0]["text"] == "hello from the memo server"
    assert providers["defaultProviderId"] == "scripted"
    assert any(f["name"] == "skills" for f in features["data"])
    assert "release" in {s["name"] for s in skills["data"][0]["skills"]}
    with zipfile.ZipFile(saved["savedPath"]) as bundle:
        assert any(name.startswith("rollout/") for name in bundle.namelist())
