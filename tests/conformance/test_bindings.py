"""Our v2 types against the real server's TypeScript bindings.

Clients generated from `codex app-server generate-ts` see `field: T | null` as always present:
`x === null` is how they test for "unset", and `undefined` breaks them. So every field the real
bindings declare without `?` must be one our schema marks required, which for our models means
a plain `T | None = None` field (written as `null`) rather than `Opt[T]` (left out). The
bindings are generated fresh from the installed binary; for the types both sides define (by
name, and union variants by their `type` tag) and that we send (reachable from a result, a
notification or a server request), each such field is checked.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from codex_lsp.appserver.schema_gen import build_bundle
from codex_lsp.protocol import v2
from codex_lsp.protocol.common import SnakeModel, V2Model
from tests.conformance.bindings import Shape, TsType, load_bindings
from tests.conformance.compare import Difference
from tests.conformance.differences import load
from tests.conformance.servers import peer_binary, scratch_root


@dataclass(frozen=True)
class OurShape:
    tag: str | None
    written: frozenset[str]  # fields every message of this shape carries


def sent_types(definitions: dict[str, Any]) -> set[str]:
    """The definitions reachable from what the server sends (not from what it only reads)."""
    roots = [result.__name__ for _params, result in v2.CLIENT_REQUESTS.values()]
    roots += [model.__name__ for model in v2.SERVER_NOTIFICATIONS.values()]
    roots += [params.__name__ for params, _result in v2.SERVER_REQUESTS.values()]
    seen: set[str] = set()
    stack = [name for name in roots if name in definitions]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        stack += [ref for ref in _refs(definitions[name]) if ref not in seen]
    return seen


def _refs(schema: Any) -> list[str]:
    if isinstance(schema, dict):
        found = [schema["$ref"].rsplit("/", 1)[-1]] if "$ref" in schema else []
        return found + [r for value in schema.values() for r in _refs(value)]
    if isinstance(schema, list):
        return [r for value in schema for r in _refs(value)]
    return []


@pytest.fixture(scope="module")
def real_bindings() -> Iterator[dict[str, TsType]]:
    with scratch_root("bindings") as root:
        out = root / "ts"
        env = dict(os.environ, CODEX_HOME=str(root))
        subprocess.run(
            [str(peer_binary()), "app-server", "generate-ts", "--out", str(out)],
            env=env,
            check=True,
            capture_output=True,
            timeout=120,
        )
        yield load_bindings(out)


def protocol_models() -> dict[str, type[BaseModel]]:
    """Every pydantic model of our protocol package, by the name its schema definition has."""
    found: dict[str, type[BaseModel]] = {}
    stack: list[type[BaseModel]] = [V2Model, SnakeModel]
    while stack:
        model = stack.pop()
        found.setdefault(model.__name__, model)
        stack += model.__subclasses__()
    return found


def written_fields(model: type[BaseModel]) -> frozenset[str]:
    """The wire names of the fields every message of `model` carries: all but `Opt` ones."""
    return frozenset(
        info.serialization_alias or info.alias or name
        for name, info in model.model_fields.items()
        if info.exclude_if is None and not info.exclude
    )


def our_shapes(
    definitions: dict[str, Any], models: dict[str, type[BaseModel]], name: str
) -> list[OurShape]:
    """The object shapes of our definition `name`: one, or one per variant of a union."""
    schema = definitions[name]
    while "$ref" in schema and "oneOf" not in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = definitions[name]
    variants = schema.get("oneOf") or schema.get("anyOf")
    names = [v["$ref"].rsplit("/", 1)[-1] for v in variants if "$ref" in v] if variants else [name]
    shapes = []
    for variant in names:
        model = models.get(variant)
        if model is None:
            continue
        tag_field = model.model_fields.get("type")
        tag = tag_field.default if tag_field is not None else None
        shapes.append(OurShape(tag if isinstance(tag, str) else None, written_fields(model)))
    return shapes


def binding_differences(real: dict[str, TsType], definitions: dict[str, Any]) -> list[Difference]:
    differences = []
    sent = sent_types(definitions)
    models = protocol_models()
    for name, ts_type in sorted(real.items()):
        if name not in sent or not ts_type.shapes:
            continue
        ours = our_shapes(definitions, models, name)
        tagged = len(ts_type.shapes) > 1 and all(s.tag is not None for s in ts_type.shapes)
        groups: dict[str | None, list[Shape]] = {}
        for shape in ts_type.shapes:
            groups.setdefault(shape.tag if tagged else None, []).append(shape)
        for tag, shapes in groups.items():
            matching = [o for o in ours if o.tag == tag] if tagged else ours
            if len(matching) != 1 or (not tagged and len(shapes) != 1):
                continue  # a variant we do not implement, or a shape we model otherwise
            subject = f"{name}<{tag}>" if tagged else name
            # `{ "type": "x" } & ({ a } | { b })`: only what every alternative requires.
            always = set.intersection(
                *({k for k, f in shape.fields.items() if not f.optional} for shape in shapes)
            )
            for field_name in sorted(
                always - matching[0].written, key=list(shapes[0].fields).index
            ):
                nullable = shapes[0].fields[field_name].nullable
                what = "always sent, `null` when unset" if nullable else "required"
                differences.append(
                    Difference("binding", subject, field_name, f"the real bindings: {what}")
                )
    return differences


def test_every_field_the_real_bindings_always_carry_is_always_sent(
    real_bindings: dict[str, TsType],
) -> None:
    assert "Thread" in real_bindings and real_bindings["Thread"].shapes, "bindings not parsed"
    definitions = build_bundle()["definitions"]
    listed = [e for e in load() if e.kind == "binding"]
    found = binding_differences(real_bindings, definitions)
    unlisted = [d for d in found if not any(e.excuses(d, "bindings", "ours") for e in listed)]
    stale = [e for e in listed if not any(e.excuses(d, "bindings", "ours") for d in found)]
    assert not unlisted, f"{len(unlisted)} field(s) the real bindings always carry:\n" + (
        "\n".join(map(str, unlisted))
    )
    assert not stale, "binding entries in differences.toml that no longer apply:\n" + (
        "\n".join(f"{e}: {e.reason}" for e in stale)
    )


def test_the_bindings_reader_distributes_tagged_unions(tmp_path: Path) -> None:
    (tmp_path / "X.ts").write_text(
        'export type X = { a?: number | null, } & ({ "type": "one", b: string | null, } '
        '| { "type": "two", c: Array<string>, d?: { [key in string]?: number } });\n'
    )
    (x,) = load_bindings(tmp_path).values()
    assert [s.tag for s in x.shapes] == ["one", "two"]
    one, two = x.shapes
    assert (one.fields["a"].optional, one.fields["b"].nullable) == (True, True)
    assert not two.fields["c"].optional and not two.fields["c"].nullable
    assert two.fields["d"].optional
