"""Every scenario through the real `codex app-server` and through ours, compared.

The real server runs each scenario once; `codex-lsp app-server` and `codex-lsp serve` (through
the `codex/` prefix) each run it again on a fresh scripted model, and each of their transcripts
is compared with the real one (`compare.py`). A difference not excused in `differences.toml`
fails the scenario's test; an entry there that no scenario needs any more fails the last test.
Both transcripts, normalised, are written to `test-artifacts/conformance/<scenario>/`.

Needs the real binary that `scripts/setup-editors` installs. Run alone with
`.venv/bin/python -m pytest tests/conformance -q`.
"""

from __future__ import annotations

import fnmatch
import json
import re
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conformance import compare
from tests.conformance.differences import Listed, load, unordered_kinds
from tests.conformance.scenarios import SCENARIOS, Scenario
from tests.conformance.servers import REPO, Run, Side, run_on
from tests.conformance.wire import Entry
from tests.support.scripted_model import offered_tools

ARTIFACTS = REPO / "test-artifacts" / "conformance"
MACHINE_HOME = Path.home()
LISTED: list[Listed] = load()
CASES: list[tuple[Scenario, Side]] = [(s, side) for s in SCENARIOS for side in ("ours", "ours-lsp")]
_used: set[int] = set()
_compared: set[tuple[str, str]] = set()


@dataclass(frozen=True)
class Recorded:
    transcript: list[Entry]
    roots: dict[str, str]  # the run's own directories -> placeholders


def _normalised(entry: Entry, roots: dict[str, str]) -> str:
    text = json.dumps({"dir": entry.direction, "answers": entry.answers, "message": entry.message})
    for root, name in roots.items():
        text = text.replace(root, name)
    return compare._UUID.sub("<uuid>", text)


def _model_log(run: Run) -> str:
    """What the server asked the scripted model: every HTTP request, and for model calls the
    tools offered and the last items of the input."""
    lines = [json.dumps({"http": r.method, "path": r.path}) for r in run.model.http_log]
    for request in run.model.requests:
        body = request.body if isinstance(request.body, dict) else {}
        tail = [
            {k: str(item.get(k))[:300] for k in ("type", "role", "name", "output") if k in item}
            for item in body.get("input", [])[-3:]
            if isinstance(item, dict)
        ]
        summary = {"tools": sorted(offered_tools(body)), "input_tail": tail}
        lines.append(json.dumps(summary))
    return "\n".join(lines) + "\n"


def _record(scenario: Scenario, side: Side, tmp_path: Path) -> Recorded:
    out = ARTIFACTS / scenario.name
    out.mkdir(parents=True, exist_ok=True)
    with run_on(
        side,
        tmp_path,
        extra_config=scenario.extra_config,
        features=scenario.features,
        experimental_api=scenario.experimental_api,
    ) as run:
        roots = {str(run.home): "<home>", str(run.ws): "<ws>"}
        try:
            scenario.drive(run)
        finally:
            lines = [_normalised(e, roots) for c in run.clients for e in c.transcript]
            transcript = "\n".join(lines) + "\n"
            model_log = _model_log(run)
            (out / f"{side}.jsonl").write_text(transcript)
            (out / f"{side}.model.jsonl").write_text(model_log)
            stderr = run.home.parent / f"{side}.stderr"
            if stderr.exists():
                shutil.copy(stderr, out / f"{side}.stderr")
        for root, name in roots.items():
            model_log = model_log.replace(root, name)
        _assert_machine_home_absent(side, transcript + model_log)
        return Recorded(run.transcript, roots)


def _assert_machine_home_absent(side: Side, text: str) -> None:
    """Neither server may show the client or the model anything of the machine's own home
    (its login profile, skills, caches): each run's HOME is its CODEX_HOME, so whatever the
    servers say is the same on any machine."""
    machine_home = str(MACHINE_HOME)
    leaks = sorted({m.group(0) for m in re.finditer(re.escape(machine_home) + r"/[^\s\"']*", text)})
    assert not leaks, f"{side}: the machine's home reached the transcript: {leaks[:5]}"


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[Scenario], Recorded]]:
    cache: dict[str, Recorded] = {}

    def get(scenario: Scenario) -> Recorded:
        if scenario.name not in cache:
            cache[scenario.name] = _record(
                scenario, "real", tmp_path_factory.mktemp(f"real-{scenario.name}")
            )
        return cache[scenario.name]

    yield get


def _differences(
    scenario: Scenario, side: Side, real: Recorded, ours: Recorded
) -> list[compare.Difference]:
    real_kinds = compare.server_kinds(real.transcript, fold_repeats=True)
    ours_kinds = compare.server_kinds(ours.transcript)
    unordered = unordered_kinds(LISTED, set(real_kinds), scenario.name, side)
    # An `order` entry is in use when a kind it names is in the real transcript.
    _used.update(
        e.index
        for e in LISTED
        if e.kind == "order"
        and e.applies(scenario.name, side)
        and any(fnmatch.fnmatchcase(kind, e.subject) for kind in unordered)
    )
    return compare.order_differences(real_kinds, ours_kinds, unordered=unordered) + (
        compare.shape_differences(
            compare.shapes(real.transcript, real.roots), compare.shapes(ours.transcript, ours.roots)
        )
    )


@pytest.mark.parametrize(("scenario", "side"), CASES, ids=[f"{s.name}-{side}" for s, side in CASES])
def test_matches_the_real_server(
    scenario: Scenario, side: Side, real_run: Callable[[Scenario], Recorded], tmp_path: Path
) -> None:
    real = real_run(scenario)
    ours = _record(scenario, side, tmp_path)
    unlisted: list[str] = []
    for difference in _differences(scenario, side, real, ours):
        excusing = [e for e in LISTED if e.excuses(difference, scenario.name, side)]
        _used.update(e.index for e in excusing)
        if not excusing:
            unlisted.append(str(difference))
    _compared.add((scenario.name, side))
    assert not unlisted, (
        f"{len(unlisted)} difference(s) from the real server not listed in differences.toml "
        f"(transcripts in {ARTIFACTS / scenario.name}):\n" + "\n".join(unlisted)
    )


def test_every_listed_difference_still_occurs() -> None:
    """An entry that excuses nothing any more is a stale claim: remove it."""
    stale = []
    for entry in LISTED:
        if entry.kind == "binding":
            continue  # checked by test_bindings.py
        scope = [(s.name, side) for s, side in CASES if entry.applies(s.name, side)]
        if scope and all(case in _compared for case in scope) and entry.index not in _used:
            stale.append(f"{entry}: {entry.reason}")
    assert not stale, "listed differences that no longer occur:\n" + "\n".join(stale)


def test_differences_file_is_well_formed() -> None:
    scenarios = {s.name for s in SCENARIOS}
    for entry in LISTED:
        for pattern in entry.scenarios:
            assert pattern == "*" or any(
                re.fullmatch(pattern.replace("*", ".*"), name) for name in scenarios
            ), f"{entry} names no scenario: {pattern}"
