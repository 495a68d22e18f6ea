"""The Agent Client Protocol door: `codex-lsp acp` serves the engine to ACP editors (Zed, the
JetBrains IDEs, CodeCompanion, avante, agent-shell) over stdio.

It drives the same v2 API as the other doors, by method name with plain dicts, and turns what
the API says into ACP `session/update` notifications and `session/request_permission` requests.
An ACP session is a thread: its id is the thread id, so the other doors can resume it.
"""
