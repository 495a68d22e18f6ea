"""Parser tests: hunk shapes, leniency, and the exact error messages the model sees."""

from __future__ import annotations

import pytest

from codex_lsp.engine.patch import (
    APPLY_PATCH_FREEFORM_DESCRIPTION,
    APPLY_PATCH_FUNCTION_DESCRIPTION,
    APPLY_PATCH_LARK_GRAMMAR,
    AddFile,
    DeleteFile,
    PatchApplyError,
    PatchParseError,
    UpdateChunk,
    UpdateFile,
    parse_patch,
)


def wrap(body: str) -> str:
    return f"*** Begin Patch\n{body}\n*** End Patch"


def test_parses_all_three_operations_in_order() -> None:
    hunks = parse_patch(
        wrap(
            "*** Add File: notes.txt\n+first\n+\n+third\n"
            "*** Delete File: old.txt\n"
            "*** Update File: src/app.py\n*** Move to: src/main.py\n"
            "@@ def greet():\n-    print('hi')\n+    print('hello')"
        )
    )
    assert hunks == [
        AddFile("notes.txt", "first\n\nthird\n"),
        DeleteFile("old.txt"),
        UpdateFile(
            "src/app.py",
            "src/main.py",
            [UpdateChunk("def greet():", ["    print('hi')"], ["    print('hello')"])],
        ),
    ]


def test_update_chunks_context_eof_and_blank_lines() -> None:
    (hunk,) = parse_patch(
        wrap(
            "*** Update File: a.py\n"
            " keep\n-old\n+new\n"  # first chunk without @@
            "\n"  # blank line between chunks is an empty context line of chunk 1
            "@@\n"
            " x\n"
            "\n"  # empty line inside a chunk = empty context line
            "-y\n"
            "+z\n"
            "*** End of File"
        )
    )
    assert isinstance(hunk, UpdateFile)
    first, second = hunk.chunks
    assert first == UpdateChunk(None, ["keep", "old", ""], ["keep", "new", ""])
    assert second == UpdateChunk(None, ["x", "", "y"], ["x", "", "z"], is_end_of_file=True)


def test_nested_context_markers_become_outer_contexts() -> None:
    (hunk,) = parse_patch(
        wrap(
            "*** Update File: a.py\n@@ class Foo:\n@@     def bar(self):\n"
            "-        pass\n+        return 1"
        )
    )
    assert isinstance(hunk, UpdateFile)
    (chunk,) = hunk.chunks
    assert chunk.change_context == "    def bar(self):"
    assert chunk.outer_contexts == ("class Foo:",)
    assert chunk.contexts == ("class Foo:", "    def bar(self):")


def test_lenient_trim_and_padded_headers() -> None:
    text = (
        "\n\n  *** Begin Patch  \n  *** Add File: a.txt  \n+x\n\n"
        "*** Delete File: b.txt\n *** End Patch \n\n"
    )
    assert parse_patch(text) == [AddFile("a.txt", "x\n"), DeleteFile("b.txt")]


@pytest.mark.parametrize("opener", ["<<EOF", "<<'EOF'", '<<"EOF"'])
def test_heredoc_wrapper_is_unwrapped(opener: str) -> None:
    text = f"{opener}\n*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch\nEOF\n"
    assert parse_patch(text) == [DeleteFile("gone.txt")]


def test_crlf_patch_text() -> None:
    text = "*** Begin Patch\r\n*** Update File: a.txt\r\n@@\r\n-a\r\n+b\r\n*** End Patch\r\n"
    (hunk,) = parse_patch(text)
    assert isinstance(hunk, UpdateFile)
    assert hunk.chunks == [UpdateChunk(None, ["a"], ["b"])]


def test_empty_envelope_parses_to_no_hunks() -> None:
    assert parse_patch("*** Begin Patch\n*** End Patch") == []


def test_add_file_with_no_lines_is_empty() -> None:
    assert parse_patch(wrap("*** Add File: empty.txt")) == [AddFile("empty.txt", "")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "bad\n*** End Patch",
            "invalid patch: The first line of the patch must be '*** Begin Patch'",
        ),
        (
            "*** Begin Patch\n*** Delete File: a.txt\n",
            "invalid patch: The last line of the patch must be '*** End Patch'",
        ),
        (
            "*** Begin Patch",
            "invalid patch: The last line of the patch must be '*** End Patch'",
        ),
        (
            # A heredoc wrapper whose inside is broken reports the outer problem.
            "<<'EOF'\n*** Begin Patch\n*** Delete File: a\nEOF",
            "invalid patch: The first line of the patch must be '*** Begin Patch'",
        ),
        (
            wrap("*** Frobnicate File: a.txt"),
            "invalid hunk at line 2, '*** Frobnicate File: a.txt' is not a valid hunk header. "
            "Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', "
            "'*** Update File: {path}'",
        ),
        (
            wrap("*** Add File: a.txt\n+x\n*** Update File: b.txt\n*** Delete File: c.txt"),
            "invalid hunk at line 4, Update file hunk for path 'b.txt' is empty",
        ),
        (
            wrap("*** Update File: a.txt\n@@\nbad"),
            "invalid hunk at line 4, Unexpected line found in update hunk: 'bad'. Every line "
            "should start with ' ' (context line), '+' (added line), or '-' (removed line)",
        ),
        (
            wrap("*** Update File: a.txt\n@@\n@@\n+x"),
            "invalid hunk at line 4, Unexpected line found in update hunk: '@@'. Every line "
            "should start with ' ' (context line), '+' (added line), or '-' (removed line)",
        ),
        (
            wrap("*** Update File: a.txt\n@@\n-old\nbad"),
            "invalid hunk at line 5, Expected update hunk to start with a @@ context marker, "
            "got: 'bad'",
        ),
        (
            wrap("*** Update File: a.txt\n@@"),
            "invalid hunk at line 4, Update hunk does not contain any lines",
        ),
        (
            wrap("*** Update File: a.txt\n@@\n*** End of File"),
            "invalid hunk at line 4, Update hunk does not contain any lines",
        ),
        (
            wrap("*** Update File: a.txt\n-x\n*** End of File\n*** End of File"),
            "invalid hunk at line 5, '*** End of File' is not a valid hunk header. Valid hunk "
            "headers: '*** Add File: {path}', '*** Delete File: {path}', "
            "'*** Update File: {path}'",
        ),
    ],
)
def test_error_messages(text: str, message: str) -> None:
    with pytest.raises(PatchParseError) as caught:
        parse_patch(text)
    assert str(caught.value) == message
    # Parse errors are apply errors too, so callers need only one except clause.
    assert isinstance(caught.value, PatchApplyError)
    assert caught.value.model_message == f"apply_patch verification failed: {message}"


def test_hunk_error_carries_line_number() -> None:
    with pytest.raises(PatchParseError) as caught:
        parse_patch(wrap("*** Add File: a\n+x\n+y\nnot a header"))
    assert caught.value.line_number == 5


def test_grammar_and_descriptions() -> None:
    assert APPLY_PATCH_LARK_GRAMMAR.startswith("start: begin_patch hunk+ end_patch\n")
    assert 'eof_line: "*** End of File" LF' in APPLY_PATCH_LARK_GRAMMAR
    assert APPLY_PATCH_LARK_GRAMMAR.rstrip().endswith("%import common.LF")
    assert "FREEFORM" in APPLY_PATCH_FREEFORM_DESCRIPTION
    for needle in (
        "*** Begin Patch",
        "*** Add File: ",
        "*** Delete File: ",
        "*** Update File: ",
        "*** Move to: ",
        "@@",
        "3 lines",
        "relative",
        APPLY_PATCH_LARK_GRAMMAR,
    ):
        assert needle in APPLY_PATCH_FUNCTION_DESCRIPTION


def test_the_description_example_parses() -> None:
    start = APPLY_PATCH_FUNCTION_DESCRIPTION.index("Example:\n\n") + len("Example:\n\n")
    end = APPLY_PATCH_FUNCTION_DESCRIPTION.index("*** End Patch", start) + len("*** End Patch")
    hunks = parse_patch(APPLY_PATCH_FUNCTION_DESCRIPTION[start:end])
    assert [type(h) for h in hunks] == [AddFile, UpdateFile, DeleteFile]
