"""Where each protocol type sits in the generated bindings, as the real `codex app-server` lays
them out, so that import paths written against its output keep working against ours.

Both generators put the v2 API's own types under `v2/` and the types shared with the older
protocol (initialize, the method unions, reasoning and collaboration settings, fuzzy file search)
at the top. The two trees differ in detail: the JSON Schema tree keeps `InitializeParams` and
`InitializeResponse` under `v1/`, and files the server requests' params and responses at the top,
where the TypeScript tree files them under `v2/`. `generate-ts` also writes
`serde_json/JsonValue.ts` (any JSON value).

Types the real server offers only with `--experimental` are left out unless it is given.
"""

from __future__ import annotations

from codex_lsp.protocol import v2

# Our models whose type the real bindings name otherwise.
WIRE_NAMES: dict[str, str] = {"CollaborationModeSettings": "Settings"}

V2_DIR = "v2"
V1_DIR = "v1"
JSON_VALUE_DIR = "serde_json"
JSON_VALUE = "JsonValue"

# The fuzzy file search's requests and notifications: at the top of both trees.
_FUZZY_FILE_SEARCH: frozenset[str] = frozenset(
    {
        "FuzzyFileSearchParams",
        "FuzzyFileSearchResponse",
        "FuzzyFileSearchSessionCompletedNotification",
        "FuzzyFileSearchSessionStartParams",
        "FuzzyFileSearchSessionStartResponse",
        "FuzzyFileSearchSessionStopParams",
        "FuzzyFileSearchSessionStopResponse",
        "FuzzyFileSearchSessionUpdateParams",
        "FuzzyFileSearchSessionUpdateResponse",
        "FuzzyFileSearchSessionUpdatedNotification",
    }
)

# The JSON-RPC message envelopes: at the top of the JSON Schema tree.
JSONRPC_ENVELOPES = (
    "JSONRPCError",
    "JSONRPCErrorError",
    "JSONRPCMessage",
    "JSONRPCNotification",
    "JSONRPCRequest",
    "JSONRPCResponse",
)

# Types shared with the older protocol: the top level of the TypeScript tree.
TS_TOP_LEVEL: frozenset[str] = (
    frozenset(
        {
            "AuthMode",
            "ClientInfo",
            "ClientRequest",
            "CollaborationMode",
            "FuzzyFileSearchMatchType",
            "FuzzyFileSearchResult",
            "ImageDetail",
            "InitializeCapabilities",
            "InitializeParams",
            "InitializeResponse",
            "InputModality",
            "McpServerInfo",
            "MessagePhase",
            "ModeKind",
            "Personality",
            "PlanType",
            "ReasoningEffort",
            "ReasoningSummary",
            "RequestId",
            "ServerNotification",
            "ServerRequest",
            "Settings",
            "SubAgentSource",
        }
    )
    | _FUZZY_FILE_SEARCH
)

# The top level of the JSON Schema tree: envelopes, method unions, server requests, fuzzy search.
JSON_TOP_LEVEL: frozenset[str] = (
    frozenset(
        {
            "ClientRequest",
            "CommandExecutionRequestApprovalParams",
            "CommandExecutionRequestApprovalResponse",
            "FileChangeRequestApprovalParams",
            "FileChangeRequestApprovalResponse",
            "RequestId",
            "ServerNotification",
            "ServerRequest",
            "ToolRequestUserInputParams",
            "ToolRequestUserInputResponse",
        }
    )
    | _FUZZY_FILE_SEARCH
    | frozenset(JSONRPC_ENVELOPES)
)

JSON_V1: frozenset[str] = frozenset({"InitializeParams", "InitializeResponse"})

STABLE_WITHOUT_METHOD: frozenset[str] = frozenset(
    {"ThreadReadStateOperation", "ThreadSearchSortKey"}
)
"""Types the reference writes in its stable bindings although only experimental methods use
them."""


def ts_dir(name: str) -> str:
    """The folder of `<name>.ts`, relative to the output root ("" for the top level)."""
    if name == JSON_VALUE:
        return JSON_VALUE_DIR
    return "" if name in TS_TOP_LEVEL else V2_DIR


def json_dir(name: str) -> str:
    """The folder of `<name>.json`, relative to the output root ("" for the top level)."""
    if name in JSON_V1:
        return V1_DIR
    return "" if name in JSON_TOP_LEVEL else V2_DIR


def experimental_types() -> frozenset[str]:
    """The params and result types of the methods the real server marks experimental."""
    return frozenset(
        name
        for method in v2.METHODS.values()
        if method.experimental
        for name in (method.params.__name__, method.result.__name__)
    )
