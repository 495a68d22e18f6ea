"""lsp layer of codex-lsp."""
