"""JSON Schema for the v2 protocol as codex-lsp implements it, generated from our pydantic models.

Backs `codex-lsp app-server generate-json-schema --out DIR`. The layout follows the real
`codex app-server`: one self-contained draft-07 file per params, result and notification type, the
`ClientRequest` / `ServerNotification` / `ServerRequest` unions keyed by method, and one bundle,
`codex_app_server_protocol.schemas.json`, holding every definition under `#/definitions/`.

A field is required when the wire always carries it: it has no default, it is a union tag, or it
is nullable but not `Opt` (written as `null`). Fields with other defaults stay optional, with the
default recorded, since a reader may leave them out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, models_json_schema
from pydantic_core import core_schema

from codex_lsp.protocol import v2

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
BUNDLE_FILE = "codex_app_server_protocol.schemas.json"
REF_TEMPLATE = "#/definitions/{model}"


class WireJsonSchema(GenerateJsonSchema):
    """Pydantic's generator with the wire's notion of "required" and without per-field titles."""

    def field_is_required(
        self,
        field: core_schema.ModelField | core_schema.DataclassField | core_schema.TypedDictField,
        total: bool,
    ) -> bool:
        if super().field_is_required(field, total):
            return True
        schema = field["schema"]
        if schema["type"] != "default":
            return False
        inner = schema["schema"]
        if inner["type"] == "literal" and len(inner["expected"]) == 1:
            return True
        written_as_null = "default" in schema and schema["default"] is None
        return written_as_null and field.get("serialization_exclude_if") is None

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


def protocol_types() -> dict[str, type[BaseModel]]:
    """Every params, result and notification model of the protocol, by type name."""
    models: list[type[BaseModel]] = []
    for params, result in v2.CLIENT_REQUESTS.values():
        models += [params, result]
    models += v2.SERVER_NOTIFICATIONS.values()
    for params, result in v2.SERVER_REQUESTS.values():
        models += [params, result]
    types: dict[str, type[BaseModel]] = {}
    for model in models:
        if types.setdefault(model.__name__, model) is not model:
            raise ValueError(f"two protocol types are named {model.__name__}")
    return types


def _method_union(
    title: str, entries: dict[str, str], *, with_id: bool, optional_params: frozenset[str]
) -> dict[str, Any]:
    """A `oneOf` over methods, each branch pinning `method` and pointing `params` at its type."""
    branches = []
    for method, type_name in entries.items():
        params: dict[str, Any] = {"$ref": REF_TEMPLATE.format(model=type_name)}
        required = ["id", "method", "params"] if with_id else ["method", "params"]
        if method in optional_params:
            params = {"anyOf": [params, {"type": "null"}]}
            required.remove("params")
        properties: dict[str, Any] = {"method": {"enum": [method], "type": "string"}}
        if with_id:
            properties = {"id": {"$ref": REF_TEMPLATE.format(model="RequestId")}, **properties}
        properties["params"] = params
        branches.append(
            {"properties": properties, "required": required, "title": method, "type": "object"}
        )
    return {"oneOf": branches, "title": title}


def _jsonrpc_definitions() -> dict[str, Any]:
    """The message envelopes: JSON-RPC 2.0 without the `jsonrpc` member."""
    request_id = {"$ref": REF_TEMPLATE.format(model="RequestId")}
    return {
        "RequestId": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "JSONRPCRequest": {
            "properties": {"id": request_id, "method": {"type": "string"}, "params": True},
            "required": ["id", "method"],
            "type": "object",
        },
        "JSONRPCNotification": {
            "properties": {"method": {"type": "string"}, "params": True},
            "required": ["method"],
            "type": "object",
        },
        "JSONRPCResponse": {
            "properties": {"id": request_id, "result": True},
            "required": ["id", "result"],
            "type": "object",
        },
        "JSONRPCErrorError": {
            "properties": {
                "code": {"type": "integer"},
                "message": {"type": "string"},
                "data": True,
            },
            "required": ["code", "message"],
            "type": "object",
        },
        "JSONRPCError": {
            "properties": {
                "id": request_id,
                "error": {"$ref": REF_TEMPLATE.format(model="JSONRPCErrorError")},
            },
            "required": ["error", "id"],
            "type": "object",
        },
        "JSONRPCMessage": {
            "anyOf": [
                {"$ref": REF_TEMPLATE.format(model=name)}
                for name in (
                    "JSONRPCRequest",
                    "JSONRPCNotification",
                    "JSONRPCResponse",
                    "JSONRPCError",
                )
            ]
        },
    }


def build_bundle() -> dict[str, Any]:
    """All definitions, the JSON-RPC envelopes and the three method unions, as one document."""
    types = protocol_types()
    _, top = models_json_schema(
        [(model, "validation") for model in types.values()],
        by_alias=True,
        ref_template=REF_TEMPLATE,
        schema_generator=WireJsonSchema,
    )
    definitions: dict[str, Any] = dict(top.get("$defs", {}))
    definitions.update(_jsonrpc_definitions())
    definitions["ClientRequest"] = _method_union(
        "ClientRequest",
        {m: p.__name__ for m, (p, _) in v2.CLIENT_REQUESTS.items()},
        with_id=True,
        optional_params=v2.NO_PARAMS_METHODS,
    )
    definitions["ServerNotification"] = _method_union(
        "ServerNotification",
        {m: n.__name__ for m, n in v2.SERVER_NOTIFICATIONS.items()},
        with_id=False,
        optional_params=frozenset(),
    )
    definitions["ServerRequest"] = _method_union(
        "ServerRequest",
        {m: p.__name__ for m, (p, _) in v2.SERVER_REQUESTS.items()},
        with_id=True,
        optional_params=frozenset(),
    )
    return {
        "$schema": DRAFT_07,
        "title": "CodexLspAppServerProtocol",
        "definitions": dict(sorted(definitions.items())),
    }


def _standalone(bundle: dict[str, Any], name: str) -> dict[str, Any]:
    """Definition `name` of the bundle as its own file, carrying only the definitions it uses."""
    definitions = bundle["definitions"]
    needed: set[str] = set()
    pending = [definitions[name]]
    while pending:
        for ref in _refs(pending.pop()):
            target = ref.removeprefix("#/definitions/")
            if target not in needed:
                needed.add(target)
                pending.append(definitions[target])
    out: dict[str, Any] = {"$schema": DRAFT_07, **definitions[name]}
    if needed:
        out["definitions"] = {key: definitions[key] for key in sorted(needed)}
    return out


def _refs(node: Any) -> list[str]:
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                found.append(value)
            elif key != "discriminator":
                found += _refs(value)
    elif isinstance(node, list):
        for value in node:
            found += _refs(value)
    return found


def _write(path: Path, document: dict[str, Any]) -> Path:
    path.write_text(json.dumps(document, indent=2, sort_keys=False) + "\n")
    return path


def generate_json_schema(out_dir: Path | str) -> list[Path]:
    """Write the schema files into `out_dir` (created if needed); returns the paths written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    bundle = build_bundle()
    written = [_write(out / BUNDLE_FILE, bundle)]
    for union in ("ClientRequest", "ServerNotification", "ServerRequest"):
        written.append(_write(out / f"{union}.json", _standalone(bundle, union)))
    for name in protocol_types():
        written.append(_write(out / f"{name}.json", _standalone(bundle, name)))
    return written
