"""`generate-ts` and `generate-json-schema` write the real `codex app-server`'s tree.

An editor author who generated bindings with the real `codex` and switches to ours keeps their
import paths: every type both servers define sits at the same relative path (`v2/Thread.ts`,
`ReasoningEffort.ts`, `v1/InitializeParams.json`, ...), under the same index files, exporting the
same names. The real trees are generated fresh from the installed binary. Types the real server
has and we do not implement are absent from ours; the only files we add are our own API's.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conformance.servers import peer_binary, scratch_root

# Our own API (editor context, `turn/startTask`, approval extras, session approvals): not files
# of the real tree.
SESSION_APPROVALS = {
    "ThreadSessionApprovalsListParams",
    "ThreadSessionApprovalsListResponse",
    "ThreadSessionApprovalsRevokeParams",
    "ThreadSessionApprovalsRevokeResponse",
}
OUR_TS_TYPES = {
    *SESSION_APPROVALS,
    "SessionApproval",
    "CodexLspApprovalExtras",
    "ContextItem",
    "EditorProblem",
    "FindingLineRange",
    "LspPosition",
    "LspRange",
    "ProblemSeverity",
    "TaskFinding",
    "TurnStartTaskParams",
    "TurnTask",
}
OUR_JSON_TYPES = {"TurnStartTaskParams", *SESSION_APPROVALS}
SAMPLE_TS = [
    "index.ts",
    "v2/index.ts",
    "ClientRequest.ts",
    "ServerNotification.ts",
    "ReasoningEffort.ts",
    "InitializeParams.ts",
    "serde_json/JsonValue.ts",
    "v2/Thread.ts",
    "v2/ThreadItem.ts",
    "v2/ThreadStatus.ts",
    "v2/UserInput.ts",
    "v2/ThreadStartParams.ts",
    "v2/TurnStartResponse.ts",
    "v2/CommandExecutionRequestApprovalParams.ts",
    "v2/CommandExecutionApprovalDecision.ts",
    "v2/AskForApproval.ts",
    "Settings.ts",
]
_EXPORTED = re.compile(r"^export type (?:\{ )?(\w+)", re.M)
_IMPORT = re.compile(r'^import type \{ (\w+) \} from "([^"]+)";', re.M)


def _peer_generate(root: Path, command: str, *flags: str) -> Path:
    out = root / f"{command}{''.join(flags)}"
    env = dict(os.environ, CODEX_HOME=str(root), HOME=str(root))
    subprocess.run(
        [str(peer_binary()), "app-server", command, "--out", str(out), *flags],
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    return out


@pytest.fixture(scope="module")
def peer_trees() -> Iterator[dict[str, Path]]:
    with scratch_root("layout") as root:
        yield {
            "ts": _peer_generate(root, "generate-ts"),
            "ts-experimental": _peer_generate(root, "generate-ts", "--experimental"),
            "json": _peer_generate(root, "generate-json-schema"),
        }


class OurTrees:
    """Our trees, each written on first use by `codex-lsp app-server` as a user runs it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.commands = {
            "ts": ["generate-ts"],
            "ts-experimental": ["generate-ts", "--experimental"],
            "json": ["generate-json-schema"],
        }

    def __getitem__(self, tree: str) -> Path:
        out = self.root / tree
        if not out.exists():
            command, *flags = self.commands[tree]
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "codex_lsp",
                    "app-server",
                    command,
                    "--out",
                    str(out),
                    *flags,
                ],
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert done.returncode == 0, done.stderr
        return out


@pytest.fixture(scope="module")
def our_trees(tmp_path_factory: pytest.TempPathFactory) -> OurTrees:
    return OurTrees(tmp_path_factory.mktemp("layout"))


def _tree(root: Path) -> set[str]:
    return {path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file()}


def _misplaced_and_extra(ours: set[str], theirs: set[str], own: set[str]) -> tuple[dict, list]:
    """Our files the real tree has elsewhere, and ours it has nowhere (bar our own types)."""
    by_name = {Path(path).name: path for path in theirs}
    misplaced = {p: by_name[Path(p).name] for p in ours - theirs if Path(p).name in by_name}
    extra = sorted(
        p for p in ours - theirs if Path(p).name not in by_name and Path(p).stem not in own
    )
    return misplaced, extra


@pytest.mark.parametrize("tree", ["ts", "ts-experimental"])
def test_typescript_files_sit_where_the_real_bindings_put_them(
    tree: str, peer_trees: dict[str, Path], our_trees: OurTrees
) -> None:
    ours, theirs = _tree(our_trees[tree]), _tree(peer_trees[tree])
    misplaced, extra = _misplaced_and_extra(ours, theirs, OUR_TS_TYPES)
    assert not misplaced, f"ours -> the real path: {misplaced}"
    assert not extra, f"files the real bindings do not have: {extra}"
    # The shared surface is most of what we write, the index files included.
    assert {"index.ts", "v2/index.ts", "serde_json/JsonValue.ts", "v2/Thread.ts"} <= ours & theirs
    assert len(ours & theirs) >= len(ours) - len(OUR_TS_TYPES)


def test_experimental_types_only_with_the_flag(
    peer_trees: dict[str, Path], our_trees: OurTrees
) -> None:
    stable, experimental = _tree(our_trees["ts"]), _tree(our_trees["ts-experimental"])
    added = experimental - stable
    assert "FuzzyFileSearchSessionStartParams.ts" in added
    assert added <= _tree(peer_trees["ts-experimental"]) - _tree(peer_trees["ts"])


@pytest.mark.parametrize("path", SAMPLE_TS)
def test_sample_files_export_the_same_names(
    path: str, peer_trees: dict[str, Path], our_trees: OurTrees
) -> None:
    ours = set(_EXPORTED.findall((our_trees["ts"] / path).read_text()))
    theirs = set(_EXPORTED.findall((peer_trees["ts"] / path).read_text()))
    if path.endswith("index.ts"):
        # An index re-exports its folder's types: equal on the files both sides write there.
        folder = Path(path).parent
        shared = _folder_types(our_trees["ts"] / folder) & _folder_types(peer_trees["ts"] / folder)
        assert ours - OUR_TS_TYPES <= theirs
        assert {name for name in theirs if name in shared} <= ours
        assert ("export * as v2" in (our_trees["ts"] / path).read_text()) == (path == "index.ts")
    else:
        assert ours == theirs


def _folder_types(folder: Path) -> set[str]:
    return {path.stem for path in folder.glob("*.ts") if path.name != "index.ts"}


def test_every_import_resolves_within_the_tree(our_trees: OurTrees) -> None:
    root = our_trees["ts"]
    for path in root.rglob("*.ts"):
        for name, specifier in _IMPORT.findall(path.read_text()):
            target = (path.parent / f"{specifier}.ts").resolve()
            assert target.is_file(), f"{path.relative_to(root)} imports {specifier}"
            assert f"export type {name} " in target.read_text()


def test_json_schema_files_sit_where_the_real_schema_puts_them(
    peer_trees: dict[str, Path], our_trees: OurTrees
) -> None:
    ours, theirs = _tree(our_trees["json"]), _tree(peer_trees["json"])
    misplaced, extra = _misplaced_and_extra(ours, theirs, OUR_JSON_TYPES)
    assert not misplaced, f"ours -> the real path: {misplaced}"
    assert not extra, f"files the real schema does not have: {extra}"
    assert {
        "codex_app_server_protocol.schemas.json",
        "codex_app_server_protocol.v2.schemas.json",
        "v1/InitializeParams.json",
        "v2/ThreadStartParams.json",
        "ClientRequest.json",
        "JSONRPCMessage.json",
    } <= ours & theirs
