"""Skills: reusable instructions in `SKILL.md` files that the model can be pointed at.

`loader` finds and parses them, `prompt` shapes what the model sees, and `extension` wires both
into the engine (the `list_skills` op, the developer message, `$skill` mentions).
"""

from codex_lsp.engine.skills.extension import SkillsExtension
from codex_lsp.engine.skills.loader import Skill, SkillError, SkillsCache, SkillsOutcome

__all__ = ["Skill", "SkillError", "SkillsCache", "SkillsExtension", "SkillsOutcome"]
