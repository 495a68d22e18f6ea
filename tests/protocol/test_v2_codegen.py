"""`generate-json-schema` and `generate-ts`: files written from our models, and what is in them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from jsonschema import Draft7Validator

from codex_lsp.appserver.bindings_layout import JSONRPC_ENVELOPES, json_dir
from codex_lsp.appserver.schema_gen import (
    BUNDLE_FILE,
    V2_BUNDLE_FILE,
    build_bundle,
    generate_json_schema,
    protocol_types,
)
from codex_lsp.appserver.ts_gen import TsConverter, declaration, generate_ts, ts_path
from codex_lsp.protocol import v2
from tests.protocol.test_v2_events import NOTIFICATION_SAMPLES, SERVER_REQUEST_SAMPLES
from tests.protocol.test_v2_requests import CLIENT_SAMPLES
from tests.support.schema_check import SchemaChecker, default_checker, read_trace, traces_dir


@pytest.fixture(scope="module")
def schema_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("schema")
    generate_json_schema(out)
    return out


@pytest.fixture(scope="module")
def ours(schema_out: Path) -> SchemaChecker:
    """The checker, pointed at our generated files instead of the reference."""
    return SchemaChecker(schema_out)


@pytest.fixture(scope="module")
def ts_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ts")
    generate_ts(out)
    return out


# -- JSON Schema ---------------------------------------------------------------------------


def test_one_file_per_protocol_type_plus_unions_and_bundle(schema_out: Path) -> None:
    paths = {p.relative_to(schema_out).as_posix() for p in schema_out.rglob("*.json")}
    no_params = {v2.CLIENT_REQUESTS[method][0].__name__ for method in v2.NO_PARAMS_METHODS}
    names = [n for n in protocol_types(experimental=False) if n not in no_params]
    names += [
        *JSONRPC_ENVELOPES,
        "RequestId",
        "ClientRequest",
        "ServerNotification",
        "ServerRequest",
    ]
    expected = {f"{json_dir(name)}/{name}.json".lstrip("/") for name in names}
    assert paths == expected | {BUNDLE_FILE, V2_BUNDLE_FILE}
    assert {"v2/ThreadStartResponse.json", "v2/ItemStartedNotification.json"} <= paths
    assert {"v1/InitializeParams.json", "ClientRequest.json", "JSONRPCMessage.json"} <= paths
    # Experimental methods are left out without the flag, like the real server's stable schema.
    assert "FuzzyFileSearchSessionStartParams.json" not in paths


def test_every_file_is_a_valid_draft7_schema_with_its_refs_inside(schema_out: Path) -> None:
    for path in schema_out.rglob("*.json"):
        document = json.loads(path.read_text())
        assert document["$schema"] == "http://json-schema.org/draft-07/schema#", path.name
        Draft7Validator.check_schema(document)
        defined = set(document.get("definitions", {}))
        defined |= {f"v2/{name}" for name in document.get("definitions", {}).get("v2", {})}
        for ref in re.findall(r'"\$ref": "#/definitions/([^"]+)"', path.read_text()):
            assert ref in defined, f"{path.name}: dangling $ref {ref}"


def test_required_follows_what_the_wire_always_carries() -> None:
    definitions = build_bundle()["definitions"]
    thread = definitions["Thread"]
    # Nullable but always written, and tags: required. `Opt` fields: not.
    assert {"id", "sessionId", "projectId", "forkedFromId", "status"} <= set(thread["required"])
    assert "mcpAppResourceUri" not in definitions["McpToolCallThreadItem"]["required"]
    assert thread["properties"]["projectId"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
    assert "type" in definitions["TextUserInput"]["required"]
    assert "startedAtMs" in definitions["ItemStartedNotification"]["required"]
    # No pydantic "title" noise on properties.
    assert "title" not in thread["properties"]["id"]


def test_standalone_file_validates_on_its_own(schema_out: Path) -> None:
    schema = json.loads((schema_out / "v2" / "TurnCompletedNotification.json").read_text())
    sample = NOTIFICATION_SAMPLES["turn/completed"][0]
    assert list(Draft7Validator(schema).iter_errors(v2.dump(sample))) == []
    broken = {**v2.dump(sample), "turn": {"id": "x", "status": "sleeping"}}
    assert list(Draft7Validator(schema).iter_errors(broken)) != []


def test_our_samples_pass_our_generated_schema(ours: SchemaChecker) -> None:
    for method, pairs in CLIENT_SAMPLES.items():
        for index, (params, result) in enumerate(pairs):
            ours.check_client_request({"id": index, "method": method, "params": v2.dump(params)})
            ours.check_response(method, {"id": index, "result": v2.dump(result)})
    for method, notes in NOTIFICATION_SAMPLES.items():
        for params in notes:
            ours.check_notification({"method": method, "params": v2.dump(params)})
    for method, pairs in SERVER_REQUEST_SAMPLES.items():
        for index, (params, result) in enumerate(pairs):
            ours.check_server_request({"id": index, "method": method, "params": v2.dump(params)})
            ours.check_client_response(method, {"id": index, "result": v2.dump(result)})


def test_our_generated_schema_accepts_the_real_servers_messages(ours: SchemaChecker) -> None:
    """Our schema is no stricter than the real server: its traffic for our methods passes."""
    checked = 0
    pending: dict[object, str] = {}
    for trace in sorted(traces_dir().glob("*.jsonl")):
        for sender, message in read_trace(trace):
            method = message.get("method")
            if sender == "client" and method in v2.CLIENT_REQUESTS:
                pending[message["id"]] = method
                ours.check_client_request(message)
            elif sender == "server" and method in v2.SERVER_NOTIFICATIONS:
                ours.check_notification(message)
            elif sender == "server" and method in v2.SERVER_REQUESTS:
                ours.check_server_request(message)
            elif sender == "server" and message.get("id") in pending and "result" in message:
                ours.check_response(pending.pop(message["id"]), message)
            else:
                continue
            checked += 1
    assert checked > 100


def test_our_schema_rejects_what_our_models_reject(ours: SchemaChecker) -> None:
    bad = {"id": 1, "method": "turn/start", "params": {"threadId": "t", "input": [{"type": "x"}]}}
    assert ours.client_request_errors(bad) != []
    assert ours.client_request_errors({"id": 1, "method": "thread/read", "params": {}}) != []


# -- TypeScript ----------------------------------------------------------------------------


def test_one_ts_module_per_exported_type_and_an_index_per_folder(ts_out: Path) -> None:
    paths = {p.relative_to(ts_out).as_posix() for p in ts_out.rglob("*.ts")}
    assert {"index.ts", "v2/index.ts", "serde_json/JsonValue.ts"} <= paths
    shown = ("Thread", "ThreadItem", "ReasoningEffort", "ClientRequest")
    assert {ts_path(name) for name in shown} <= paths
    # Union variants are written inline, and JSON-RPC envelopes are JSON Schema only.
    assert not {"v2/TextUserInput.ts", "v2/AgentMessageThreadItem.ts", "JSONRPCMessage.ts"} & paths
    index = (ts_out / "index.ts").read_text()
    assert 'export type { ReasoningEffort } from "./ReasoningEffort";' in index
    assert index.rstrip().endswith('export * as v2 from "./v2";')
    nested = (ts_out / "v2" / "index.ts").read_text()
    assert 'export type { Thread } from "./Thread";' in nested
    for folder in (ts_out, ts_out / "v2"):
        index_text = (folder / "index.ts").read_text()
        listed = set(re.findall(r'^export type \{ (\w+) \} from "\./\1";$', index_text, re.M))
        assert listed == {p.stem for p in folder.glob("*.ts")} - {"index"}


def test_every_module_exports_its_type_and_imports_what_exists(ts_out: Path) -> None:
    for path in ts_out.rglob("*.ts"):
        if path.stem == "index":
            continue
        text = path.read_text()
        assert re.findall(r"^export type (\w+) =", text, re.M) == [path.stem], path.name
        for name, spec in re.findall(r'^import type \{ (\w+) \} from "([./\w]+)";$', text, re.M):
            assert spec.rsplit("/", 1)[-1] == name and (path.parent / f"{spec}.ts").exists()
        body = text.split("export type", 1)[1]
        assert body.count("{") == body.count("}") and body.rstrip().endswith(";"), path.name


def test_thread_declaration(ts_out: Path) -> None:
    text = (ts_out / "v2" / "Thread.ts").read_text()
    assert 'import type { Turn } from "./Turn";' in text
    assert "export type Thread = {\n  id: string;\n  sessionId: string;\n" in text
    assert "  projectId: string | null;\n" in text
    assert "  forkedFromId: string | null;\n" in text
    assert "  status: ThreadStatus;\n" in text
    assert "  turns?: Array<Turn>;\n" in text


def test_tagged_unions_and_literal_tags(ts_out: Path) -> None:
    item = (ts_out / "v2" / "ThreadItem.ts").read_text()
    assert "export type ThreadItem = {\n  id: string;\n" in item
    assert '  type: "userMessage";\n' in item and '  type: "agentMessage";\n' in item
    text = (ts_out / "v2" / "UserInput.ts").read_text()
    assert '  type: "text";\n  text: string;\n  text_elements?: Array<TextElement>;\n' in text
    status = (ts_out / "v2" / "TurnStatus.ts").read_text()
    assert (
        'export type TurnStatus = "completed" | "interrupted" | "failed" | "inProgress";' in status
    )
    decision = (ts_out / "v2" / "CommandExecutionApprovalDecision.ts").read_text()
    assert '"accept" | "acceptForSession" | "decline" | "cancel" | ' in decision
    empty = (ts_out / "v2" / "ThreadArchiveResponse.ts").read_text()
    assert "export type ThreadArchiveResponse = Record<string, never>;" in empty


def test_method_unions_pin_the_method(ts_out: Path) -> None:
    text = (ts_out / "ServerNotification.ts").read_text()
    assert (
        '  method: "item/agentMessage/delta";\n  params: AgentMessageDeltaNotification;\n' in text
    )
    logout = (ts_out / "ClientRequest.ts").read_text()
    # A method without params types them `undefined`, as the real bindings do.
    assert '  method: "account/logout";\n  params: undefined;\n' in logout
    assert "params: AgentMessageDeltaNotification" in text
    assert 'import type { AgentMessageDeltaNotification } from "./v2/AgentMessage' in text


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (True, "JsonValue"),
        ({}, "JsonValue"),
        ({"type": "integer"}, "number"),
        ({"type": ["string", "null"]}, "string | null"),
        ({"enum": ["a", "b"]}, '"a" | "b"'),
        ({"const": 3}, "3"),
        ({"anyOf": [{"$ref": "#/definitions/Foo"}, {"type": "null"}]}, "Foo | null"),
        ({"oneOf": [{"type": "string"}, {"type": "string"}]}, "string"),
        ({"allOf": [{"$ref": "#/definitions/A"}, {"$ref": "#/definitions/B"}]}, "A & B"),
        ({"type": "array", "items": {"type": "boolean"}}, "Array<boolean>"),
        ({"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}, "[string, number]"),
        ({"type": ["array", "null"], "items": {"type": "string"}}, "Array<string> | null"),
        (
            {"type": "object", "additionalProperties": {"type": "integer"}},
            "{ [key in string]?: number }",
        ),
        ({"type": "object", "properties": {}}, "Record<string, never>"),
        (
            {
                "type": "object",
                "properties": {"a-b": {"type": "string"}, "c": {}},
                "required": ["c"],
            },
            '{\n  "a-b"?: string;\n  c: JsonValue;\n}',
        ),
    ],
)
def test_converter_cases(schema: object, expected: str) -> None:
    assert TsConverter().convert(schema) == expected


def test_declaration_carries_descriptions_and_references() -> None:
    schema = {
        "description": "A thing.",
        "type": "object",
        "properties": {"kid": {"$ref": "#/definitions/Kid", "description": "The kid."}},
        "required": ["kid"],
    }
    text, references = declaration("Thing", schema)
    assert text == "/** A thing. */\nexport type Thing = {\n  /** The kid. */\n  kid: Kid;\n};\n"
    assert references == {"Kid"}


# Beyond the reference schema, on purpose: our own namespaced additions (see the model's
# comment), and fields the reference server sends outside its stable schema.
EXTENSIONS = {
    ("FileChangeRequestApprovalParams", "codexLsp"),
    ("CommandExecutionRequestApprovalParams", "codexLsp"),
    ("ReviewStartParams", "appendToOriginalThread"),
    ("CommandExecutionRequestApprovalParams", "availableDecisions"),
}


def _reference_shapes(bundle: dict) -> dict[str, tuple[set[str], set[str]]]:
    """Reference type or union variant title -> (property names, required names).

    A union's own properties (`startedAtMs` on `ThreadItem`) and the properties of a variant's
    nested `anyOf` (`url` / `fileId` on `ImageUserInput`) count for the variant.
    """
    definitions = {**bundle["definitions"], **bundle["definitions"]["v2"]}
    shapes: dict[str, tuple[set[str], set[str]]] = {}

    def add(name: str, node: dict, inherited: set[str]) -> None:
        props = set(node.get("properties", {})) | inherited
        for alt in node.get("anyOf", []):
            props |= set(alt.get("properties", {})) if isinstance(alt, dict) else set()
        shapes.setdefault(name, (props, set(node.get("required", []))))

    named = {name: node for name, node in definitions.items() if isinstance(node, dict)}
    for name, node in named.items():
        add(name, node, set())
    # Variants second, so a variant title never shadows a named type (`ErrorNotification`).
    for node in named.values():
        own = set(node.get("properties", {}))
        for alt in node.get("oneOf", []) + node.get("anyOf", []):
            if isinstance(alt, dict) and "title" in alt and "properties" in alt:
                add(alt["title"], alt, own)
    return shapes


def test_our_fields_are_the_references_fields() -> None:
    """No misspelt field: each property we write exists in the reference type of that name, and
    each property the reference requires is one we define. The reference schema is its stable
    one, so ours is too: fields it documents only as experimental are left out of both."""
    shapes = _reference_shapes(default_checker().bundle)
    compared = 0
    for name, schema in build_bundle(experimental=False)["definitions"].items():
        if name not in shapes or "properties" not in schema:
            continue
        reference_props, reference_required = shapes[name]
        ours = set(schema["properties"])
        extra = {p for p in ours - reference_props if (name, p) not in EXTENSIONS}
        assert not extra, f"{name}: not in the reference: {sorted(extra)}"
        assert reference_required <= ours, f"{name}: missing {reference_required - ours}"
        compared += 1
    assert compared > 80
