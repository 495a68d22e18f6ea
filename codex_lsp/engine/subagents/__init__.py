"""Subagents: child sessions a thread's model spawns, steers and awaits, in parallel with it.

`SubagentsExtension` offers the `subagent_*` tools; `tree` runs the children and reports them
with `subagent_lifecycle` / `agent_inbox` events; `restore` rebuilds them on resume.
"""

from codex_lsp.engine.subagents.extension import SubagentsExtension

__all__ = ["SubagentsExtension"]
