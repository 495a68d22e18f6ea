"""Applying `[[skills.config]]`: which of the skills found are enabled.

An entry chooses a skill by the path of its SKILL.md (compared resolved) or by its name; where
several entries choose one skill, the last wins. Skills no entry names keep their default.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from codex_lsp.engine.skills.loader import Skill, SkillsOutcome
from codex_lsp.store.config_skills import SkillConfigEntry


def apply_settings(found: SkillsOutcome, entries: list[SkillConfigEntry]) -> SkillsOutcome:
    if not entries:
        return found
    return SkillsOutcome(
        skills=[_applied(skill, entries) for skill in found.skills], errors=found.errors
    )


def chosen(skill: Skill, entry: SkillConfigEntry) -> bool:
    if entry.path:
        return _resolved(Path(entry.path)) == _resolved(skill.path)
    return entry.name == skill.name


def _applied(skill: Skill, entries: list[SkillConfigEntry]) -> Skill:
    enabled = skill.enabled
    for entry in entries:
        if chosen(skill, entry):
            enabled = entry.enabled
    return skill if enabled == skill.enabled else replace(skill, enabled=enabled)


def _resolved(path: Path) -> Path:
    try:
        return path.expanduser().resolve()
    except OSError:
        return path
