"""api layer of codex-lsp."""
