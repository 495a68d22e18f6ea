"""The texts that describe apply_patch to the model.

Two tool forms exist. Current models get a freeform (custom) tool constrained by the Lark grammar
below, so the description can stay one sentence. Models without grammar-constrained tools get a
JSON function taking `{"input": "<patch>"}`, whose description has to teach the whole format.
"""

from __future__ import annotations

APPLY_PATCH_LARK_GRAMMAR = """\
start: begin_patch hunk+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?

hunk: add_hunk | delete_hunk | update_hunk
add_hunk: "*** Add File: " filename LF add_line+
delete_hunk: "*** Delete File: " filename LF
update_hunk: "*** Update File: " filename LF change_move? change?

filename: /(.+)/
add_line: "+" /(.*)/ LF -> line

change_move: "*** Move to: " filename LF
change: (change_context | change_line)+ eof_line?
change_context: ("@@" | "@@ " /(.+)/) LF
change_line: ("+" | "-" | " ") /(.*)/ LF
eof_line: "*** End of File" LF

%import common.LF
"""

APPLY_PATCH_FREEFORM_DESCRIPTION = (
    "Use the apply_patch tool to edit files. This is a FREEFORM tool, so do not wrap the patch "
    "in JSON."
)

APPLY_PATCH_FUNCTION_DESCRIPTION = (
    """\
Edit files by sending a patch in the apply_patch format as the `input` argument. The format is
a small, file-oriented diff designed to be easy to write and safe to apply; it is not the
unified diff format used by git or patch(1).

The whole patch sits between two marker lines:

*** Begin Patch
[one or more file operations]
*** End Patch

Each file operation starts with a header naming the file and its action:

*** Add File: <path>      create a new file. Every following line is file content and must
                          start with "+".
*** Delete File: <path>   remove an existing file. Nothing follows the header.
*** Update File: <path>   change an existing file in place. It may be followed directly by
                          "*** Move to: <new path>" to rename the file as well.

An update is made of one or more chunks. A chunk begins with a line "@@" or "@@ <anchor>", where
the anchor is a line of the file (typically a class or function signature) that appears above
the change. After it come the chunk lines, each starting with one character:

  " " (a space)  an unchanged context line
  "-"            a line to remove
  "+"            a line to add

Show 3 lines of unchanged context above and 3 below each change, unless another change is
closer than that; do not repeat context lines that the previous chunk already showed. When 3
lines are not enough to say where the change goes (the same lines appear more than once), add
an anchor with "@@ <line>". If one anchor is still ambiguous, stack several "@@" lines, outermost
first, to narrow the location step by step:

@@ class BaseClass
@@     def method(self):
 [context lines]
-[old code]
+[new code]
 [context lines]

If a chunk changes the last lines of the file, end it with the line "*** End of File".

Example:

*** Begin Patch
*** Add File: docs/hello.txt
+Hello, world!
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-    print("Hi")
+    print("Hello, world!")
*** Delete File: obsolete.txt
*** End Patch

Rules:
- Every file path must be relative to the working directory; never use an absolute path.
- Always include the action header (Add, Delete or Update) for every file you touch.
- Prefix every content line with " ", "-" or "+", even blank lines in an Add File.
- A patch is applied completely or not at all; if it fails, fix it and send it again.

The format, as a Lark grammar:

"""
    + APPLY_PATCH_LARK_GRAMMAR
)
