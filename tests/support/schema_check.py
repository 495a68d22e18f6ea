"""Validate JSON-RPC messages against the schema the real `codex app-server` generates.

`SchemaChecker` loads the stable bundle that the real `codex` the test set-up installs
(`scripts/setup-editors`) writes with `app-server generate-json-schema`, generated once into
the editors' cache, and checks one message at a time: a client request, the response to it, a
notification, a server request, or the client's answer to one. `TranscriptChecker` feeds it a
whole conversation and remembers which method each id answers. The real server's transcripts
that the protocol tests read are kept in `tests/data/codex-traces/`.

Errors name the message, the JSON path and what was expected, and for a failed tagged union they
point into the variant whose `type` matched instead of the whole union.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import Any, Literal

from jsonschema import Draft7Validator, ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

REPO_ROOT = Path(__file__).resolve().parents[2]
BUNDLE_FILE = "codex_app_server_protocol.schemas.json"
BUNDLE_URI = "urn:codex-app-server:stable"

# Results whose name does not follow `<Params name minus "Params">Response`.
_RESULT_OVERRIDES = {
    "account/logout": "LogoutAccountResponse",
    "account/gatewayOAuth/cancel": "GatewayOAuthCancelResponse",
    "account/securitySetup/read": "GetAccountSecuritySetupResponse",
    "account/workspaceMessages/read": "GetWorkspaceMessagesResponse",
    "config/mcpServer/reload": "McpServerRefreshResponse",
    "config/value/write": "ConfigWriteResponse",
    "config/batchWrite": "ConfigWriteResponse",
    "modelProvider/default/set": "ConfigWriteResponse",
    "configRequirements/read": "ConfigRequirementsReadResponse",
    "externalAgentConfig/import/readHistories": "ExternalAgentConfigImportHistoriesReadResponse",
    "windowsSandbox/readiness": "WindowsSandboxReadinessResponse",
}


EDITORS_CACHE = Path(
    os.environ.get("CODEX_LSP_EDITORS_CACHE", Path.home() / ".cache" / "codex-lsp" / "editors")
)
PEER_BIN = (
    EDITORS_CACHE
    / "codex-peer/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
)


def schema_dir() -> Path:
    """The real server's stable JSON Schema tree, generated from the installed binary on first
    use (again whenever the binary changes)."""
    override = os.environ.get("CODEX_LSP_SCHEMA_DIR")
    if override:
        return Path(override)
    if not os.access(PEER_BIN, os.X_OK):
        raise FileNotFoundError(
            f"the real codex binary is missing at {PEER_BIN}: run scripts/setup-editors, "
            "which installs it from npm"
        )
    stamp = f"{PEER_BIN.stat().st_mtime_ns}-{PEER_BIN.stat().st_size}"
    out = EDITORS_CACHE / "codex-peer" / f"schema-{stamp}"
    if not (out / BUNDLE_FILE).is_file():
        partial = Path(tempfile.mkdtemp(prefix="schema-", dir=out.parent))
        subprocess.run(
            [str(PEER_BIN), "app-server", "generate-json-schema", "--out", str(partial)],
            check=True,
            capture_output=True,
            timeout=120,
        )
        try:
            partial.rename(out)  # whole or not at all, whoever generates it first
        except OSError:
            shutil.rmtree(partial, ignore_errors=True)
    return out


def traces_dir() -> Path:
    """Transcripts of the real `codex app-server` (0.169.0) kept with the tests."""
    return REPO_ROOT / "tests" / "data" / "codex-traces"


def stable_client_requests() -> list[str]:
    """Every client request method of the reference's stable schema, in its order."""
    union = json.loads((schema_dir() / "ClientRequest.json").read_text())
    return [variant["properties"]["method"]["enum"][0] for variant in union["oneOf"]]


class SchemaViolation(AssertionError):
    """A message broke the schema; `errors` holds one readable line per problem."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("\n".join(errors))
        self.errors = errors


Sender = Literal["client", "server"]


class SchemaChecker:
    """Checks single messages against the reference schema bundle."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or schema_dir()
        path = self.directory / BUNDLE_FILE
        if not path.is_file():
            raise FileNotFoundError(
                f"schema bundle {path} not found; set CODEX_LSP_SCHEMA_DIR to a directory that "
                "`codex app-server generate-json-schema --out` wrote"
            )
        self.bundle: dict[str, Any] = json.loads(path.read_text())
        resource = Resource.from_contents(self.bundle, default_specification=DRAFT7)
        self._registry = Registry().with_resource(BUNDLE_URI, resource)
        self._validators: dict[str, Draft7Validator] = {}

    # -- lookups ---------------------------------------------------------------------------

    def _branches(self, union: str) -> dict[str, str]:
        """method -> JSON pointer of the `oneOf` branch of `union` for that method."""
        out = {}
        for index, branch in enumerate(self.bundle["definitions"][union]["oneOf"]):
            method = branch["properties"]["method"]["enum"][0]
            out[method] = f"/definitions/{union}/oneOf/{index}"
        return out

    @cached_property
    def client_requests(self) -> dict[str, str]:
        return self._branches("ClientRequest")

    @cached_property
    def server_requests(self) -> dict[str, str]:
        return self._branches("ServerRequest")

    @cached_property
    def server_notifications(self) -> dict[str, str]:
        return self._branches("ServerNotification")

    @cached_property
    def client_notifications(self) -> dict[str, str]:
        return self._branches("ClientNotification")

    def definition_pointer(self, name: str) -> str:
        """Pointer of a named type: the root definitions first (v1, envelopes), then v2."""
        definitions = self.bundle["definitions"]
        if name in definitions:
            return f"/definitions/{name}"
        if name in definitions.get("v2", {}):
            return f"/definitions/v2/{name}"
        raise KeyError(f"no type {name!r} in the schema bundle")

    def _result_type(self, union: str, method: str) -> str:
        if method in _RESULT_OVERRIDES:
            return _RESULT_OVERRIDES[method]
        branches = self.client_requests if union == "ClientRequest" else self.server_requests
        if method not in branches:
            raise KeyError(f"{method!r} is not a {union} method")
        params = self._resolve(branches[method])["properties"].get("params", {})
        ref = params.get("$ref") or next(
            (alt["$ref"] for alt in params.get("anyOf", []) if "$ref" in alt), None
        )
        if ref is None or not ref.endswith("Params"):
            raise KeyError(f"cannot tell the result type of {method!r}")
        return ref.rsplit("/", 1)[1].removesuffix("Params") + "Response"

    def result_pointer(self, method: str) -> str:
        """Pointer of the result type of client request `method`."""
        return self.definition_pointer(self._result_type("ClientRequest", method))

    def server_request_result_pointer(self, method: str) -> str:
        """Pointer of the type of the client's answer to server request `method`."""
        return self.definition_pointer(self._result_type("ServerRequest", method))

    def _resolve(self, pointer: str) -> Any:
        node: Any = self.bundle
        for part in pointer.strip("/").split("/"):
            node = node[int(part)] if isinstance(node, list) else node[part]
        return node

    def _validator(self, pointer: str) -> Draft7Validator:
        if pointer not in self._validators:
            schema = {"$ref": f"{BUNDLE_URI}#{pointer}"}
            self._validators[pointer] = Draft7Validator(schema, registry=self._registry)
        return self._validators[pointer]

    # -- validation ------------------------------------------------------------------------

    def errors_against(self, pointer: str, instance: Any, *, label: str = "") -> list[str]:
        """Readable errors of `instance` against the schema at `pointer` (empty when valid)."""
        errors = sorted(self._validator(pointer).iter_errors(instance), key=_error_depth)
        lines = []
        for error in errors:
            for leaf in _leaves(error):
                lines.append(_describe(leaf, label or pointer))
        return lines

    def _envelope(self, union_pointer: dict[str, str], kind: str, message: dict) -> list[str]:
        method = message.get("method")
        if not isinstance(method, str):
            return [f"{kind}: no string `method` in {_short(message)}"]
        if method not in union_pointer:
            return [f"{kind} {method!r}: method not in the schema"]
        return self.errors_against(union_pointer[method], message, label=f"{kind} {method}")

    def client_request_errors(self, message: dict) -> list[str]:
        return self._envelope(self.client_requests, "client request", message)

    def server_request_errors(self, message: dict) -> list[str]:
        return self._envelope(self.server_requests, "server request", message)

    def notification_errors(self, message: dict) -> list[str]:
        return self._envelope(self.server_notifications, "notification", message)

    def client_notification_errors(self, message: dict) -> list[str]:
        return self._envelope(self.client_notifications, "client notification", message)

    def response_errors(self, method: str, message: dict, *, to: Sender = "client") -> list[str]:
        """Errors of a response to `method`; `to="server"` for the answer to a server request."""
        label = f"response to {method}"
        if "error" in message:
            return self.errors_against(
                self.definition_pointer("JSONRPCError"), message, label=label
            )
        problems = self.errors_against(
            self.definition_pointer("JSONRPCResponse"), message, label=label
        )
        if problems:
            return problems
        try:
            pointer = (
                self.result_pointer(method)
                if to == "client"
                else self.server_request_result_pointer(method)
            )
        except KeyError as exc:
            return [f"{label}: {exc.args[0]}"]
        return self.errors_against(pointer, message["result"], label=f"{label} (result)")

    # -- assertions ------------------------------------------------------------------------

    def check_client_request(self, message: dict) -> None:
        _raise_if(self.client_request_errors(message))

    def check_server_request(self, message: dict) -> None:
        _raise_if(self.server_request_errors(message))

    def check_notification(self, message: dict) -> None:
        _raise_if(self.notification_errors(message))

    def check_response(self, method: str, message: dict) -> None:
        """Check the server's response to client request `method`."""
        _raise_if(self.response_errors(method, message, to="client"))

    def check_client_response(self, method: str, message: dict) -> None:
        """Check the client's answer to server request `method`."""
        _raise_if(self.response_errors(method, message, to="server"))

    def check_result(self, method: str, result: Any) -> None:
        """Check a bare result object (no envelope) of client request `method`."""
        _raise_if(self.errors_against(self.result_pointer(method), result, label=method))


@cache
def default_checker() -> SchemaChecker:
    """One shared checker over the reference schema; loading the bundle takes a moment."""
    return SchemaChecker()


@dataclass
class TranscriptChecker:
    """Checks a conversation message by message, pairing each response with its request."""

    checker: SchemaChecker
    # Set when our own server is checked: the v2 wire carries no `jsonrpc` member.
    forbid_jsonrpc_from_server: bool = False
    errors: list[str] = field(default_factory=list)
    _client_pending: dict[Any, str] = field(default_factory=dict)
    _server_pending: dict[Any, str] = field(default_factory=dict)

    def feed(self, sender: Sender, message: dict) -> list[str]:
        """Check one message; returns (and records) its errors."""
        found = self._errors(sender, message)
        self.errors.extend(found)
        return found

    def feed_all(self, messages: Iterable[tuple[Sender, dict]]) -> list[str]:
        for sender, message in messages:
            self.feed(sender, message)
        return self.errors

    def _errors(self, sender: Sender, message: dict) -> list[str]:
        if not isinstance(message, dict):
            return [f"{sender} sent a non-object message: {_short(message)}"]
        if sender == "server" and self.forbid_jsonrpc_from_server and "jsonrpc" in message:
            return [f"server message carries a `jsonrpc` member: {_short(message)}"]
        has_id, has_method = "id" in message, "method" in message
        if has_method and has_id:
            pending = self._client_pending if sender == "client" else self._server_pending
            pending[message["id"]] = message["method"]
            if sender == "client":
                return self.checker.client_request_errors(message)
            return self.checker.server_request_errors(message)
        if has_method:
            if sender == "client":
                return self.checker.client_notification_errors(message)
            return self.checker.notification_errors(message)
        if has_id:
            # A response answers a request from the other side.
            pending = self._client_pending if sender == "server" else self._server_pending
            method = pending.pop(message["id"], None)
            if method is None:
                return [f"{sender} response with unknown id {message['id']!r}"]
            return self.checker.response_errors(
                method, message, to="client" if sender == "server" else "server"
            )
        return [f"{sender} message is neither request, response nor notification: {message}"]


def read_trace(path: Path) -> Iterator[tuple[Sender, dict]]:
    """The messages of a recorded trace (`{"dir": "c2s"|"s2c", "msg": {...}}` per line)."""
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record.get("dir") == "c2s":
            yield "client", record["msg"]
        elif record.get("dir") == "s2c":
            yield "server", record["msg"]


def _raise_if(errors: list[str]) -> None:
    if errors:
        raise SchemaViolation(errors)


def _error_depth(error: ValidationError) -> tuple[int, str]:
    return (len(error.absolute_path), error.message)


def _leaves(error: ValidationError) -> Iterator[ValidationError]:
    """The errors worth showing: inside a failed union, those of the variant that was meant."""
    if error.validator not in ("oneOf", "anyOf") or not error.context:
        yield error
        return
    by_branch: dict[int, list[ValidationError]] = {}
    for sub in error.context:
        by_branch.setdefault(int(sub.relative_schema_path[0]), []).append(sub)
    chosen = _intended_branch(error, by_branch)
    if chosen is None:
        yield error
        return
    for sub in sorted(by_branch[chosen], key=_error_depth):
        yield from _leaves(sub)


def _tags(branches: list[Any]) -> list[str]:
    """The `type` values of a tagged union's variants (empty when it is not one)."""
    tags = []
    for branch in branches:
        tag = branch.get("properties", {}).get("type", {}) if isinstance(branch, dict) else {}
        tags.extend(tag.get("enum", []))
    return tags


def _intended_branch(
    error: ValidationError, by_branch: dict[int, list[ValidationError]]
) -> int | None:
    instance = error.instance
    branches = error.validator_value
    if not isinstance(instance, dict):
        return None
    # A tagged union: the variant whose `type` (or, for `{key: ...}` variants, key) matches.
    for index, branch in enumerate(branches):
        branch = branch if isinstance(branch, dict) else {}
        tag = branch.get("properties", {}).get("type", {})
        if "enum" in tag and instance.get("type") in tag["enum"]:
            return index if index in by_branch else None
        required = branch.get("required", [])
        if len(required) == 1 and required[0] in instance and "type" not in instance:
            return index if index in by_branch else None
    if _tags(branches):
        return None
    # Otherwise the variant that got furthest, if one clearly did.
    depth = {i: max(len(e.absolute_path) for e in errs) for i, errs in by_branch.items()}
    best = max(depth.values())
    leaders = [i for i, d in depth.items() if d == best]
    return leaders[0] if len(leaders) == 1 else None


def _describe(error: ValidationError, label: str) -> str:
    path = "$" + "".join(
        f"[{part}]" if isinstance(part, int) else f".{part}" for part in error.absolute_path
    )
    message = error.message
    if error.validator in ("oneOf", "anyOf") and isinstance(error.instance, dict):
        tags = _tags(error.validator_value)
        if tags:
            message = f"`type` {error.instance.get('type')!r} is not one of {tags}"
    return f"{label}: at {path}: {_short(message, 300)}"


def _short(value: Any, limit: int = 200) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."
