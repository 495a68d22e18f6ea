"""What the reviewer model is told: our review instructions and the prompt for each target.

The instructions replace the usual base instructions for the review request; the target
prompt is the request's only user message and carries the diff itself, so a review works
even when the model may not run commands.
"""

from __future__ import annotations

from codex_lsp.engine.review.git import ReviewMaterial
from codex_lsp.protocol.core.inputs import (
    BaseBranchTarget,
    CommitTarget,
    CustomTarget,
    ReviewTarget,
    UncommittedChangesTarget,
)

# Omitted files are listed up to this many; past it the note gives a count.
MAX_LISTED_FILES = 60

_INSTRUCTIONS = """\
You are reviewing a code change the way a careful senior engineer reviews a colleague's \
change before it is merged. Your job is to find the problems the change introduces, not to \
summarise it or to praise it.

# What counts as a finding
Report a problem only when all of these hold:
- It is a discrete, actionable bug: wrong results, a crash, a security hole, lost or \
corrupted data, a broken interface or contract, a race, a leak, a real performance \
regression, or a test that cannot do what it claims.
- The change introduced it. Code the change did not touch is out of scope unless the change \
makes an existing problem reachable or worse.
- You can say concretely when it goes wrong (the input, state or sequence of events) and you \
believe the author would fix it once they saw it.
Do not report style, naming, formatting, missing comments or docs, or refactors you would \
prefer. Do not guess about code you cannot see; say what you would need instead. One finding \
per problem. No findings is a perfectly good answer for a sound change.

# How to write a finding
- "title": at most about 80 characters, starting with the priority tag "[P0]", "[P1]", \
"[P2]" or "[P3]" and then the problem, e.g. "[P1] Empty input makes parse() index past the end".
- "body": one paragraph of Markdown. Say what goes wrong, under which conditions, and why; \
name the functions and values involved. Plain and specific, no hedging. Add a ```suggestion \
block only when you can give the exact replacement lines.
- "priority": the tag as a number. 0: drop everything (data loss, security, a crash on a \
common path); 1: must be fixed before merging; 2: should be fixed, but not urgent; 3: minor.
- "confidence_score": from 0.0 to 1.0, how sure you are that the problem is real.
- "code_location": "absolute_file_path" is the file's absolute path (the repository root \
joined with the path shown in the diff); "line_range" has "start" and "end" line numbers in \
the new version of the file. Keep the range short (ten lines at most, ideally the exact lines) \
and make it overlap lines the change added or modified.

# The verdict
- "overall_correctness": "patch is correct" when nothing you found should block the change, \
otherwise "patch is incorrect".
- "overall_explanation": one to three sentences that justify the verdict.
- "overall_confidence_score": from 0.0 to 1.0, how sure you are of the verdict.
{tools}
# Output
Your final message is one JSON object and nothing else: no Markdown fence, no text before or \
after it. Its shape:
{{"findings": [{{"title": "[P1] ...", "body": "...", "confidence_score": 0.8, "priority": 1, \
"code_location": {{"absolute_file_path": "/abs/path/file.py", "line_range": {{"start": 10, \
"end": 12}}}}}}], "overall_correctness": "patch is incorrect", "overall_explanation": "...", \
"overall_confidence_score": 0.7}}
"""

_TOOLS = """
# Looking around
You may run read-only commands with `shell_command` (for example `git log`, `git show`, `rg`, \
`sed -n 1,80p FILE`) to read the code around the change. They run in a read-only sandbox: \
nothing can be modified and nobody can be asked for approval. Read only what you need; the \
diff in the request is usually enough.
"""


def review_instructions(*, tools: bool) -> str:
    """The base instructions of the review request."""
    return _INSTRUCTIONS.format(tools=_TOOLS if tools else "")


def user_facing_hint(target: ReviewTarget) -> str:
    """How the UI names what is being reviewed."""
    if isinstance(target, UncommittedChangesTarget):
        return "current changes"
    if isinstance(target, BaseBranchTarget):
        return f"changes against '{target.branch}'"
    if isinstance(target, CommitTarget):
        short = target.sha.strip()[:7]
        title = (target.title or "").strip()
        return f"commit {short}: {title}" if title else f"commit {short}"
    if isinstance(target, CustomTarget):
        return target.instructions.strip()
    return "review"


def review_prompt(target: ReviewTarget, material: ReviewMaterial) -> str:
    """The user message of the review request: what to review, and the diff itself."""
    root = material.repo_root
    if isinstance(target, CustomTarget):
        return (
            f"{target.instructions.strip()}\n\n"
            f"(The repository root is {root}; report absolute file paths.)"
        )
    if isinstance(target, UncommittedChangesTarget):
        if material.head_sha:
            what = (
                "Review the uncommitted changes in this repository: staged, unstaged and "
                f"untracked files, compared with the last commit ({material.head_sha[:12]})."
            )
        else:
            what = (
                "Review the uncommitted changes in this repository. It has no commits yet, "
                "so every file below is new."
            )
        if material.untracked:
            what += " Untracked files appear as new files."
    elif isinstance(target, BaseBranchTarget):
        base = material.merge_base or ""
        source = material.base_ref or target.branch
        what = (
            f"Review the changes on the current branch against the base branch "
            f"'{target.branch}'. The merge base of HEAD and '{source}' is {base}; the diff "
            f"below is `git diff {base}`: the branch's commits plus any edits not yet "
            "committed."
        )
    elif isinstance(target, CommitTarget):
        sha = material.commit_sha or target.sha
        title = (target.title or "").strip()
        named = f' ("{title}")' if title else ""
        what = (
            f"Review the changes introduced by commit {sha}{named}. Below is its `git show` "
            "output: the commit message, then the diff against its first parent."
        )
    else:
        what = "Review the following change."
    parts = [
        what,
        "Report prioritized findings as your instructions describe.",
        f"The repository root is {root}; paths in the diff are relative to it.",
        f"<diff>\n{material.diff.rstrip()}\n</diff>",
    ]
    note = truncation_note(material)
    if note:
        parts.append(note)
    return "\n\n".join(parts)


def truncation_note(material: ReviewMaterial) -> str:
    """What the reviewer must know when the diff was cut to fit, or "" when it is whole."""
    if not material.truncated:
        return ""
    lines = [
        f"Note: this change is too large to show in full; the diff above was cut to about "
        f"{len(material.diff):,} characters."
    ]
    if material.partial_file:
        lines.append(f"The diff of {material.partial_file} stops partway.")
    omitted = material.omitted_files
    if omitted:
        listed = ", ".join(omitted[:MAX_LISTED_FILES])
        more = len(omitted) - MAX_LISTED_FILES
        extra = f" and {more} more" if more > 0 else ""
        lines.append(f"Changed files not shown: {listed}{extra}.")
    lines.append(
        "Review what is shown. Do not report findings on code you have not seen; if you can "
        "run commands, read the rest with `git diff` before judging it."
    )
    return "\n".join(lines)
