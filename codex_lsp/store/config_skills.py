"""`[skills]` of config.toml: per-skill settings, Codex's `[[skills.config]]` entries.

Each entry picks a skill by the path of its SKILL.md or by its name and says whether it is
enabled; where several entries pick the same skill, the last one wins.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class SkillConfigEntry(BaseModel):
    model_config = ConfigDict(extra="ignore")

    path: str | None = None
    name: str | None = None
    enabled: bool = True

    @model_validator(mode="after")
    def _has_selector(self) -> SkillConfigEntry:
        if not self.path and not self.name:
            raise ValueError("expected a `path` or a `name` choosing the skill")
        return self


class SkillsConfig(BaseModel):
    model_config = ConfigDict(extra="ignore")

    config: list[SkillConfigEntry] = Field(default_factory=list)
