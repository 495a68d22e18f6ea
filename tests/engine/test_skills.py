"""Skills end to end: found per cwd and scope, listed, offered to the model, injected on mention."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from codex_lsp.protocol.core.inputs import SkillInput, TextInput
from codex_lsp.protocol.core.ops import ListSkills, UserInputOp
from tests.support.engine import make_git_repo, running_engine, write_config
from tests.support.scripted_builders import text_response


def write_skill(root: Path, directory: str, frontmatter: str, body: str = "# Steps\n") -> Path:
    path = root / directory / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{frontmatter}---\n{body}")
    return path


@pytest.fixture
def skills_world(tmp_path, monkeypatch) -> dict[str, Path]:
    """Two repos and a user home, each with skills; one repo skill is broken."""
    home, user_home = tmp_path / "codex_home", tmp_path / "user_home"
    monkeypatch.setenv("HOME", str(user_home))
    repo = make_git_repo(tmp_path / "repo", {"pkg/mod.py": "x = 1\n"})
    other = make_git_repo(tmp_path / "other")
    paths = {
        "home": home,
        "repo": repo,
        "pkg": repo / "pkg",
        "other": other,
        "pdf": write_skill(
            repo / ".codex" / "skills",
            "pdf-fill",
            "name: pdf-fill\n"
            "description: Fill PDF forms from a JSON spec.\n"
            "metadata:\n"
            "  short-description: PDF form filler\n",
            "# Steps\nRun scripts/fill.py with the spec.\n",
        ),
        "lint": write_skill(
            repo / "pkg" / ".agents" / "skills", "lint-fix", "description: Fix lint errors.\n"
        ),
        "broken": write_skill(repo / ".agents" / "skills", "broken", "name: broken\n"),
        "release": write_skill(
            other / ".agents" / "skills", "release", "description: 'Cut a release: tag, notes.'\n"
        ),
        "notes": write_skill(
            home / "skills", "notes", "name: meeting-notes\ndescription: >\n  Summarise\n  notes.\n"
        ),
        "deploy": write_skill(
            user_home / ".agents" / "skills", "deploy", 'description: "Deploy the app."\n'
        ),
        "system": write_skill(
            home / "skills" / ".system", "creator", "description: Create new skills.\n"
        ),
    }
    return paths


def _listed(entry: dict[str, Any]) -> dict[str, str]:
    # Admin skills of the machine running the tests are not ours to assert on.
    return {s["name"]: s["scope"] for s in entry["skills"] if s["scope"] != "admin"}


async def test_list_skills_for_two_cwds_with_scopes_and_errors(scripted_model, skills_world):
    w = skills_world
    write_config(w["home"], scripted_model.base_url)
    async with running_engine(w["home"]) as engine:
        configured = await engine.configure(cwd=str(w["pkg"]))
        # The broken SKILL.md is a warning when the session starts, not a failure.
        warnings = [e.msg.message for e in engine.events if e.msg.type == "warning"]
        assert configured.msg.type == "session_configured"
        assert any(str(w["broken"]) in m and "description" in m for m in warnings)
        await engine.codex.submit(ListSkills(cwds=[str(w["pkg"]), str(w["other"])]))
        response = (await engine.until("list_skills_response")).msg

    pkg, other = response.skills
    assert pkg["cwd"] == str(w["pkg"]) and other["cwd"] == str(w["other"])
    user_and_system = {
        "meeting-notes": "user",
        "deploy": "user",
        "creator": "system",
    }
    assert _listed(pkg) == {"pdf-fill": "repo", "lint-fix": "repo", **user_and_system}
    assert _listed(other) == {"release": "repo", **user_and_system}
    pdf = next(s for s in pkg["skills"] if s["name"] == "pdf-fill")
    assert pdf == {
        "name": "pdf-fill",
        "description": "Fill PDF forms from a JSON spec.",
        "short_description": "PDF form filler",
        "path": str(w["pdf"]),
        "scope": "repo",
        "enabled": True,
    }
    notes = next(s for s in pkg["skills"] if s["name"] == "meeting-notes")
    assert notes["description"] == "Summarise notes."
    assert "short_description" not in notes
    assert pkg["errors"] == [
        {"path": str(w["broken"]), "message": "`description` is required in the frontmatter"}
    ]
    assert other["errors"] == []


async def test_force_reload_sees_a_new_skill(scripted_model, skills_world):
    w = skills_world
    write_config(w["home"], scripted_model.base_url)
    async with running_engine(w["home"]) as engine:
        await engine.configure(cwd=str(w["other"]))
        await engine.codex.submit(ListSkills())
        before = (await engine.until("list_skills_response")).msg.skills[0]
        write_skill(w["other"] / ".codex" / "skills", "fresh", "description: New.\n")
        await engine.codex.submit(ListSkills())
        cached = (await engine.until("list_skills_response")).msg.skills[0]
        await engine.codex.submit(ListSkills(force_reload=True))
        reloaded = (await engine.until("list_skills_response")).msg.skills[0]

    assert before["cwd"] == str(w["other"])
    assert "fresh" not in _listed(before) and "fresh" not in _listed(cached)
    assert _listed(reloaded)["fresh"] == "repo"


async def test_skills_in_developer_message_and_mention_injects_body(scripted_model, skills_world):
    w = skills_world
    write_config(w["home"], scripted_model.base_url)
    scripted_model.enqueue(text_response("Filled.", response_id="r1"))
    scripted_model.enqueue(text_response("Linted.", response_id="r2"))
    async with running_engine(w["home"]) as engine:
        await engine.configure(cwd=str(w["pkg"]))
        await engine.run_turn("please use $pdf-fill on form.pdf, and $unknown-skill too")
        sub_id = await engine.codex.submit(
            UserInputOp(
                items=[
                    TextInput(text="tidy up"),
                    SkillInput(name="lint-fix", path=str(w["lint"].parent)),
                ]
            )
        )
        await engine.until("task_complete", sub_id=sub_id)

    first, second = (r.body for r in scripted_model.requests)
    developer = "\n".join(
        part["text"]
        for item in first["input"]
        if item.get("role") == "developer"
        for part in item["content"]
    )
    assert "## Skills" in developer
    assert f"- pdf-fill: Fill PDF forms from a JSON spec. (file: {w['pdf']})" in developer
    assert f"- deploy: Deploy the app. (file: {w['deploy']})" in developer
    assert "broken" not in developer

    def user_texts(body: dict[str, Any]) -> list[str]:
        return [
            part["text"]
            for item in body["input"]
            if item.get("role") == "user"
            for part in item["content"]
        ]

    injected = [t for t in user_texts(first) if t.startswith("<skill>")]
    assert injected == [
        f"<skill>\n<name>pdf-fill</name>\n<path>{w['pdf']}</path>\n"
        + w["pdf"].read_text().rstrip()
        + "\n</skill>"
    ]
    texts = user_texts(first)
    assert (
        texts.index(injected[0])
        == texts.index("please use $pdf-fill on form.pdf, and $unknown-skill too") + 1
    )
    second_injected = [t for t in user_texts(second) if t.startswith("<skill>")]
    assert len(second_injected) == 2
    assert second_injected[1].startswith(f"<skill>\n<name>lint-fix</name>\n<path>{w['lint']}")


async def test_skills_feature_off_offers_nothing(scripted_model, skills_world):
    w = skills_world
    write_config(w["home"], scripted_model.base_url, extra="[features]\nskills = false\n")
    scripted_model.enqueue(text_response("ok"))
    async with running_engine(w["home"]) as engine:
        await engine.configure(cwd=str(w["pkg"]))
        await engine.run_turn("use $pdf-fill")

    body = scripted_model.requests[0].body
    assert "## Skills" not in str(body["input"])
    assert "<skill>" not in str(body["input"])
