"""How skills reach the model: a `## Skills` section, and the bodies of the skills a turn names.

The developer message lists every enabled skill (name, description, SKILL.md path) with short
rules for using them, so the model opens a skill only when it needs it. When the user names a
skill (`$skill-name` in text, or a `skill` input item), the whole SKILL.md goes into the turn as
its own user message, so the model does not have to read it first.
"""

from __future__ import annotations

import re
from pathlib import Path

from codex_lsp.engine.skills.loader import SKILL_FILE, Skill, SkillsOutcome
from codex_lsp.protocol.core.inputs import SkillInput, TextInput, UserInput
from codex_lsp.protocol.core.response_items import MessageItem

# `$name` where name is a skill-like token; `$` inside a word (`a$b`) is not a mention.
MENTION = re.compile(r"(?<![\w$])\$([A-Za-z0-9][A-Za-z0-9_:-]*)")

USAGE_RULES = """\
How to use skills:
- Use a skill when the user names it (for example `$skill-name`) or when the task clearly \
matches its description. Several may apply; use the fewest that cover the task.
- A skill's instructions are in its SKILL.md. Open it only when you use the skill, and read \
only as much of it and of the files it points to as the task needs.
- Resolve relative paths in a SKILL.md from the directory that holds it.
- Prefer the scripts, templates and other files a skill ships with over writing your own.
- If a skill is missing or its instructions do not fit the situation, say so briefly and carry \
on without it."""


def skills_section(skills: list[Skill]) -> str | None:
    """The developer-message section, or None when no skill is enabled."""
    listed = [skill for skill in skills if skill.enabled]
    if not listed:
        return None
    lines = [
        "<skills_instructions>",
        "## Skills",
        "A skill is a set of local instructions kept in a `SKILL.md` file. These skills are "
        "available in this session:",
    ]
    lines += [f"- {skill.name}: {skill.description} (file: {skill.path})" for skill in listed]
    lines += [USAGE_RULES, "</skills_instructions>"]
    return "\n".join(lines)


def mentioned_skills(items: list[UserInput], outcome: SkillsOutcome) -> list[Skill]:
    """Skills the user's input names, in order of first mention, each once."""
    chosen: list[Skill] = []
    for item in items:
        if isinstance(item, SkillInput):
            skill = _skill_for_input(item, outcome)
            if skill is not None:
                chosen.append(skill)
        elif isinstance(item, TextInput):
            for match in MENTION.finditer(item.text):
                skill = outcome.by_name(match.group(1))
                if skill is not None and skill.enabled:
                    chosen.append(skill)
    unique: dict[Path, Skill] = {}
    for skill in chosen:
        unique.setdefault(skill.path.resolve(), skill)
    return list(unique.values())


def _skill_for_input(item: SkillInput, outcome: SkillsOutcome) -> Skill | None:
    """A `skill` item names a path; a known skill there wins, else any SKILL.md the path is."""
    path = Path(item.path).expanduser()
    if path.name != SKILL_FILE:
        path = path / SKILL_FILE
    known = next((s for s in outcome.skills if s.path.resolve() == path.resolve()), None)
    if known is not None:
        return known
    if path.is_file():
        return Skill(name=item.name, description="", path=path, scope="user")
    return outcome.by_name(item.name)


def skill_message(skill: Skill, contents: str) -> MessageItem:
    """The user message that carries one SKILL.md into the conversation."""
    text = (
        f"<skill>\n<name>{skill.name}</name>\n<path>{skill.path}</path>\n"
        f"{contents.rstrip()}\n</skill>"
    )
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
