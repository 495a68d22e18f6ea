"""JSON-RPC 2.0 error codes, the same on both front doors (LSP and the app-server's lines)."""

from __future__ import annotations

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# LSP's: a request before `initialize`.
SERVER_NOT_INITIALIZED = -32002
