"""appserver layer of codex-lsp."""
