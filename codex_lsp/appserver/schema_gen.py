"""JSON Schema for the v2 protocol as codex-lsp implements it, generated from our pydantic models.

Backs `codex-lsp app-server generate-json-schema --out DIR`. The tree is the real
`codex app-server`'s (see `bindings_layout`): one self-contained draft-07 file per params, result
and notification type, the `ClientRequest` / `ServerNotification` / `ServerRequest` unions keyed by
method and the JSON-RPC envelopes, the v2 API's under `v2/`, `initialize`'s under `v1/`, the rest
at the top; and two bundles: `codex_app_server_protocol.schemas.json` (the shared definitions
at `#/definitions/`, the v2 API's at `#/definitions/v2/`) and
`codex_app_server_protocol.v2.schemas.json` (every definition at `#/definitions/`).

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

from codex_lsp.appserver import bindings_layout as layout
from codex_lsp.protocol import v2
from codex_lsp.protocol.common import EXPERIMENTAL_MARK

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
BUNDLE_FILE = "codex_app_server_protocol.schemas.json"
V2_BUNDLE_FILE = "codex_app_server_protocol.v2.schemas.json"
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


def client_requests(
    *, experimental: bool = True
) -> dict[str, tuple[type[BaseModel], type[BaseModel]]]:
    """The client requests, by method; without `experimental`, those of the stable API only."""
    return {
        name: (method.params, method.result)
        for name, method in v2.METHODS.items()
        if experimental or not method.experimental
    }


def protocol_types(*, experimental: bool = True) -> dict[str, type[BaseModel]]:
    """Every params, result and notification model of the protocol, by type name."""
    models: list[type[BaseModel]] = []
    for params, result in client_requests(experimental=experimental).values():
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


def build_bundle(*, experimental: bool = True) -> dict[str, Any]:
    """All definitions, the JSON-RPC envelopes and the three method unions, as one document
    (without `experimental`, only the stable API's)."""
    definitions = _model_definitions(protocol_types(experimental=experimental))
    if not experimental:
        # Types the reference writes in its stable bindings though only experimental methods
        # use them: taken, with what they refer to, from the experimental definitions.
        everything = _model_definitions(protocol_types(experimental=True))
        pending = list(layout.STABLE_WITHOUT_METHOD)
        while pending:
            name = pending.pop()
            if name not in definitions:
                definitions[name] = everything[name]
                pending += [ref.removeprefix("#/definitions/") for ref in _refs(everything[name])]
    definitions = {
        name: _without_experimental_fields(schema, drop=not experimental)
        for name, schema in definitions.items()
    }
    definitions.update(_jsonrpc_definitions())
    definitions["ClientRequest"] = _method_union(
        "ClientRequest",
        {m: p.__name__ for m, (p, _) in client_requests(experimental=experimental).items()},
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
    definitions = _renamed(definitions, layout.WIRE_NAMES)
    return {
        "$schema": DRAFT_07,
        "title": "CodexLspAppServerProtocol",
        "definitions": dict(sorted(definitions.items())),
    }


def _without_experimental_fields(schema: dict[str, Any], *, drop: bool) -> dict[str, Any]:
    """`schema` without the marks of experimental fields, and (`drop`) without the fields."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return schema
    marked = {name for name, prop in properties.items() if prop.get(EXPERIMENTAL_MARK)}
    if not marked:
        return schema
    kept = {
        name: {key: value for key, value in prop.items() if key != EXPERIMENTAL_MARK}
        for name, prop in properties.items()
        if not (drop and name in marked)
    }
    out = {**schema, "properties": kept}
    if drop and "required" in schema:
        out["required"] = [name for name in schema["required"] if name not in marked]
    return out


def _model_definitions(types: dict[str, type[BaseModel]]) -> dict[str, Any]:
    _, top = models_json_schema(
        [(model, "validation") for model in types.values()],
        by_alias=True,
        ref_template=REF_TEMPLATE,
        schema_generator=WireJsonSchema,
    )
    return dict(top.get("$defs", {}))


def _renamed(definitions: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """`definitions` with the types in `names` under their new names, references included."""

    def relink(node: Any) -> Any:
        if isinstance(node, dict):
            out = {key: relink(value) for key, value in node.items()}
            target = str(out.get("$ref", "")).removeprefix("#/definitions/")
            if target in names:
                out["$ref"] = REF_TEMPLATE.format(model=names[target])
            return out
        if isinstance(node, list):
            return [relink(value) for value in node]
        return node

    return {names.get(name, name): relink(schema) for name, schema in definitions.items()}


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


def _nested_bundle(bundle: dict[str, Any]) -> dict[str, Any]:
    """The main bundle: shared definitions at `#/definitions/`, the v2 API's under `v2/`."""
    definitions: dict[str, Any] = bundle["definitions"]
    nested = {name for name in definitions if _in_v2(name)}

    def relink(node: Any) -> Any:
        if isinstance(node, dict):
            out = {key: relink(value) for key, value in node.items()}
            target = str(out.get("$ref", "")).removeprefix("#/definitions/")
            if target in nested:
                out["$ref"] = f"#/definitions/{layout.V2_DIR}/{target}"
            return out
        if isinstance(node, list):
            return [relink(value) for value in node]
        return node

    shared = {name: relink(s) for name, s in definitions.items() if name not in nested}
    shared[layout.V2_DIR] = {name: relink(definitions[name]) for name in sorted(nested)}
    return {
        "$schema": DRAFT_07,
        "definitions": shared,
        "title": "CodexAppServerProtocol",
        "type": "object",
    }


def _in_v2(name: str) -> bool:
    return layout.json_dir(name) == layout.V2_DIR and layout.ts_dir(name) == layout.V2_DIR


def generate_json_schema(out_dir: Path | str, *, experimental: bool = False) -> list[Path]:
    """Write the schema files under `out_dir` (created if needed); returns the paths written."""
    out = Path(out_dir)
    bundle = build_bundle(experimental=experimental)
    names = [
        *layout.JSONRPC_ENVELOPES,
        "RequestId",
        "ClientRequest",
        "ServerNotification",
        "ServerRequest",
    ]
    # A method that takes no params has no params file.
    no_params = {m.params.__name__ for m in v2.METHODS.values() if m.no_params}
    names += [name for name in protocol_types(experimental=experimental) if name not in no_params]
    for folder in {layout.json_dir(name) for name in names}:
        (out / folder).mkdir(parents=True, exist_ok=True)
    written = [_write(out / BUNDLE_FILE, _nested_bundle(bundle))]
    flat = {**bundle, "title": "CodexAppServerProtocolV2", "type": "object"}
    written.append(_write(out / V2_BUNDLE_FILE, flat))
    for name in names:
        path = out / layout.json_dir(name) / f"{name}.json"
        written.append(_write(path, _standalone(bundle, name)))
    return written
