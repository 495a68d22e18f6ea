"""`mcpServer*`: MCP servers, their tools and resources."""
