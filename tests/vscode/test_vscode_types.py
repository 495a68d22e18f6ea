"""The VS Code extension's protocol bindings (editors/vscode/src/generated/) are exactly what
`codex-lsp app-server generate-ts` writes today (`index.ts`, `v2/`, `serde_json/`), so the
extension's type check runs against the server's real v2 types. `scripts/generate-vscode-types`
rewrites them after a protocol change.
"""

from __future__ import annotations

from pathlib import Path

from codex_lsp.appserver.ts_gen import generate_ts

GENERATED = Path(__file__).resolve().parents[2] / "editors" / "vscode" / "src" / "generated"
FIX = "run scripts/generate-vscode-types and commit the result"


def _files(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): path.read_text() for path in sorted(root.rglob("*.ts"))
    }


def test_committed_bindings_match_generate_ts(tmp_path: Path) -> None:
    generate_ts(tmp_path)
    fresh, committed = _files(tmp_path), _files(GENERATED)
    missing = sorted(fresh.keys() - committed.keys())
    stale = sorted(committed.keys() - fresh.keys())
    changed = sorted(n for n in fresh.keys() & committed.keys() if fresh[n] != committed[n])
    assert not missing, f"bindings missing from {GENERATED}: {missing}; {FIX}"
    assert not stale, f"bindings the protocol no longer has: {stale}; {FIX}"
    assert not changed, f"bindings that differ from generate-ts: {changed}; {FIX}"
