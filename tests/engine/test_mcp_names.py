"""What the model sees of MCP tools: names, parameter schemas, results as text."""

from __future__ import annotations

import re

from mcp.types import (
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from codex_lsp.engine.mcp.names import function_spec, parameters_schema, qualified_name
from codex_lsp.engine.mcp.results import NO_CONTENT, result_for_event, text_for_model

VALID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def test_plain_names_are_qualified_as_is():
    assert qualified_name("tests", "add", set()) == "mcp__tests__add"
    assert qualified_name("my-server", "get_file", set()) == "mcp__my-server__get_file"


def test_names_are_sanitised_to_the_responses_api_pattern():
    name = qualified_name("docs.example.com", "search/v2 (beta)", set())
    assert name == "mcp__docs_example_com__search_v2__beta_"
    assert VALID.match(name)


def test_long_names_are_cut_to_64_characters_and_stay_distinct():
    server = "a-very-long-server-name-that-keeps-going"
    first = qualified_name(server, "tool_number_one_with_a_long_name", set())
    second = qualified_name(server, "tool_number_one_with_a_long_name_too", {first})
    assert VALID.match(first) and VALID.match(second)
    assert first != second
    # Stable: the same tool gets the same name in the next session.
    assert qualified_name(server, "tool_number_one_with_a_long_name", set()) == first


def test_names_that_collide_after_sanitising_are_deduplicated():
    taken: set[str] = set()
    names = []
    for tool in ("read.file", "read file", "read_file"):
        name = qualified_name("fs", tool, taken)
        taken.add(name)
        names.append(name)
    assert names[0] == "mcp__fs__read_file"
    assert len(set(names)) == 3
    assert all(VALID.match(name) for name in names)


def test_schemas_become_objects_and_keep_everything_else():
    given = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    assert parameters_schema(given) == given
    assert parameters_schema({}) == {"type": "object", "properties": {}}
    assert parameters_schema({"required": [], "$defs": {"x": {}}}) == {
        "type": "object",
        "properties": {},
        "required": [],
        "$defs": {"x": {}},
    }
    assert parameters_schema(None) == {"type": "object", "properties": {}}


def test_function_spec_omits_a_missing_description():
    spec = function_spec("mcp__s__t", None, {"type": "object", "properties": {}})
    assert spec == {
        "type": "function",
        "name": "mcp__s__t",
        "strict": False,
        "parameters": {"type": "object", "properties": {}},
    }


def test_text_for_the_model_notes_what_is_not_text():
    result = CallToolResult(
        content=[
            TextContent(type="text", text="a pixel"),
            ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png"),
            ResourceLink(type="resource_link", name="notes", uri="file:///tmp/notes.md"),
            EmbeddedResource(
                type="resource",
                resource=TextResourceContents(uri="file:///a.txt", text="inline text"),
            ),
            EmbeddedResource(
                type="resource",
                resource=BlobResourceContents(
                    uri="file:///b.bin", blob="AAAA", mime_type="application/octet-stream"
                ),
            ),
        ]
    )
    assert text_for_model(result).splitlines() == [
        "a pixel",
        "[image content omitted: image/png, 8 bytes]",
        "[resource link: notes <file:///tmp/notes.md>]",
        "inline text",
        "[binary resource omitted: <file:///b.bin>, application/octet-stream]",
    ]


def test_structured_content_is_the_text_only_when_nothing_else_was_sent():
    structured = CallToolResult(content=[], structured_content={"sum": 3})
    assert text_for_model(structured) == '{"sum": 3}'
    assert text_for_model(CallToolResult(content=[])) == NO_CONTENT


def test_the_event_keeps_the_result_in_mcp_wire_spelling():
    result = CallToolResult(
        content=[ImageContent(type="image", data="AAAA", mime_type="image/png")],
        structured_content={"ok": True},
        is_error=True,
    )
    assert result_for_event(result) == {
        "content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}],
        "structuredContent": {"ok": True},
        "isError": True,
    }
