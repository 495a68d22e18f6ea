"""MCP tools: `[mcp_servers.<name>]` connected per session, their tools offered to the model.

`McpExtension` is the engine seam; `connection` owns one server's client, `connections` the
servers of one session, `names` the tool names and specs the model sees, `calls` and
`approval` what happens when the model calls one, and `results` how a result reads.
"""

from codex_lsp.engine.mcp.extension import McpExtension

__all__ = ["McpExtension"]
