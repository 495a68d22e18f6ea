"""codex-lsp: the Codex agent engine, served to editors as a language server."""

__version__ = "0.1.0"
