"""engine layer of codex-lsp."""
