"""Skills as an engine extension: discovery warnings, the `## Skills` section, `list_skills`,
and the SKILL.md bodies that a user turn names.

`[[skills.config]]` entries of the config enable or disable single skills: a disabled skill is
still listed (so a settings page can turn it back on) but never offered to the model.
`extra_roots` are scanned as user skills besides the usual roots.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from codex_lsp.engine.extensions import Extension, OpHandler
from codex_lsp.engine.skills.loader import (
    ADMIN_SKILLS_DIR,
    SkillsCache,
    SkillsOutcome,
    read_skill_file,
)
from codex_lsp.engine.skills.prompt import mentioned_skills, skill_message, skills_section
from codex_lsp.engine.skills.settings import apply_settings
from codex_lsp.protocol.core.events import ListSkillsResponseEvent, WarningEvent
from codex_lsp.protocol.core.ops import ListSkills
from codex_lsp.protocol.core.response_items import ResponseItem

if TYPE_CHECKING:
    from codex_lsp.engine.codex import Codex
    from codex_lsp.engine.session import Session
    from codex_lsp.engine.turn_context import TurnContext
    from codex_lsp.protocol.core.inputs import UserInput
    from codex_lsp.protocol.core.ops import Op

FEATURE = "skills"


class SkillsExtension(Extension):
    """Skills for every session unless `[features] skills = false`."""

    name = "skills"

    def __init__(self, *, enabled: bool = True, admin_dir: Path = ADMIN_SKILLS_DIR) -> None:
        self.enabled = enabled
        self.cache = SkillsCache(admin_dir=admin_dir)
        self.extra_roots: tuple[Path, ...] = ()

    def outcome(self, session: Session, cwd: Path, *, force_reload: bool = False) -> SkillsOutcome:
        services = session.services
        return self.outcome_for(
            cwd, codex_home=services.codex_home, config=services.config, force_reload=force_reload
        )

    def outcome_for(
        self, cwd: Path, *, codex_home: Path, config: Any, force_reload: bool = False
    ) -> SkillsOutcome:
        """The skills `cwd` sees, each enabled or not as `config`'s `[[skills.config]]` says."""
        found = self.cache.for_cwd(
            cwd, codex_home=codex_home, force_reload=force_reload, extra_roots=self.extra_roots
        )
        skills = getattr(config, "skills", None)
        return apply_settings(found, skills.config if skills is not None else [])

    async def config_reloaded(self, session: Session, sub_id: str) -> None:
        self.enabled = session.services.config.feature_enabled(FEATURE, True)

    async def session_started(self, session: Session, sub_id: str) -> None:
        if not self.enabled:
            return
        # A broken SKILL.md is worth telling the user about once, not worth failing over.
        for error in self.outcome(session, session.cwd).errors:
            session.warn_once(sub_id, f"skill {error.path} was skipped: {error.message}")

    def instructions(self, session: Session, ctx: TurnContext) -> list[str]:
        if not self.enabled:
            return []
        section = skills_section(self.outcome(session, ctx.cwd).skills)
        return [section] if section else []

    async def extra_user_items(
        self, session: Session, ctx: TurnContext, sub_id: str, items: list[UserInput]
    ) -> list[ResponseItem]:
        if not self.enabled:
            return []
        injected: list[ResponseItem] = []
        for skill in mentioned_skills(items, self.outcome(session, ctx.cwd)):
            try:
                contents = read_skill_file(skill.path)
            except (OSError, UnicodeDecodeError) as err:
                session.emit(
                    sub_id, WarningEvent(message=f"skill {skill.name} could not be read: {err}")
                )
                continue
            injected.append(skill_message(skill, contents))
        return injected

    def op_handlers(self) -> dict[str, OpHandler]:
        return {"list_skills": self._list_skills}

    async def _list_skills(self, codex: Codex, session: Session, sub_id: str, op: Op) -> None:
        assert isinstance(op, ListSkills)
        entries: list[dict[str, Any]] = []
        for raw in op.cwds or [str(session.cwd)]:
            # Reported as the client wrote it (relative ones from the session's cwd).
            cwd = session.cwd / raw
            if not self.enabled:
                entries.append({"cwd": str(cwd), "skills": [], "errors": []})
                continue
            outcome = self.outcome(session, cwd, force_reload=op.force_reload)
            entries.append(
                {
                    "cwd": str(cwd),
                    "skills": [skill.to_wire() for skill in outcome.skills],
                    "errors": [error.to_wire() for error in outcome.errors],
                }
            )
        codex.event(sub_id, ListSkillsResponseEvent(skills=entries))
