"""Which config keys codex-lsp knows, and what it says about the others.

config.toml ignores keys it does not know, so a Codex user's file loads as is; but nothing is
ignored silently: a key of the file (or of `-c`) the schema does not know is named, with the
nearest known key when it looks misspelt, and a key that is read but not acted on yet is named
with what happens instead. `doctor`, `exec` and `serve` print these; the servers send them as
one `configWarning`. The known keys come from the config schema itself (the pydantic models),
so they cannot drift from what loads.
"""

from __future__ import annotations

import difflib
import types
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union, get_args, get_origin

from pydantic import BaseModel

if TYPE_CHECKING:
    from codex_lsp.store.config import Config

ANY_NAME = "<name>"
# The hook events the engine runs; the others Codex knows are named as not run.
RUN_HOOK_EVENTS = frozenset({"PreToolUse", "PostToolUse"})
# How close a key must be to a known one to be called a misspelling of it.
_MISSPELT_CUTOFF = 0.8

# Keys the schema reads that are not acted on yet, and what happens instead.
NOT_APPLIED: dict[tuple[str, ...], str] = {
    ("approval_policy", "granular"): "questions are asked as under `on-request`",
    ("cli_auth_credentials_store",): "credentials are kept in auth.json",
}


@dataclass
class KeyNode:
    """One level of the schema: named children, a child for any name, or free-form below."""

    children: dict[str, KeyNode] = field(default_factory=dict)
    any_name: KeyNode | None = None
    free_form: bool = False

    @property
    def is_leaf(self) -> bool:
        return not self.children and self.any_name is None and not self.free_form


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _node_for(annotation: Any) -> KeyNode:
    if get_origin(annotation) in (Union, types.UnionType):
        real = [arg for arg in get_args(annotation) if arg is not type(None)]
        if len(real) == 1:
            return _node_for(real[0])
        # A value that is a name or a table (`approval_policy`): the table's keys are known.
        tables = [arg for arg in real if _model_in(arg) is not None]
        return _node_for(tables[0]) if len(tables) == 1 else KeyNode()
    model = _model_in(annotation)
    if model is not None:
        return model_tree(model)
    if get_origin(annotation) is dict:
        value = get_args(annotation)[1] if get_args(annotation) else Any
        inner = _model_in(value)
        if inner is not None:
            return KeyNode(any_name=model_tree(inner))
        return KeyNode(free_form=True)
    return KeyNode()


def model_tree(model: type[BaseModel]) -> KeyNode:
    return KeyNode(
        children={name: _node_for(info.annotation) for name, info in model.model_fields.items()}
    )


def config_tree() -> KeyNode:
    """Every key config.toml understands: the top level, and each `[profiles.<name>]`."""
    from codex_lsp.store.config import Config

    root = model_tree(Config)
    root.children["profiles"] = KeyNode(any_name=model_tree(Config))
    return root


def _dotted(tree: KeyNode, prefix: tuple[str, ...] = ()) -> Iterator[str]:
    if tree.is_leaf and prefix:
        yield ".".join(prefix)
    for name, child in tree.children.items():
        yield from _dotted(child, (*prefix, name))
    if tree.any_name is not None:
        yield from _dotted(tree.any_name, (*prefix, ANY_NAME))
    if tree.free_form:
        yield ".".join(prefix)


def unknown_key_warning(path: Sequence[str], tree: KeyNode) -> str | None:
    """A warning naming `path` and the nearest known key, or None when `path` is known."""
    node = tree
    for depth, part in enumerate(path):
        if node.free_form:
            return None
        child = node.children.get(part) or node.any_name
        if child is not None:
            node = child
            continue
        key = ".".join(path)
        siblings = list(node.children)
        close = difflib.get_close_matches(part, siblings, n=1, cutoff=0.6)
        if close:
            nearest = ".".join([*path[:depth], close[0]])
        else:
            everywhere = difflib.get_close_matches(key, list(_dotted(tree)), n=1, cutoff=0.5)
            nearest = everywhere[0] if everywhere else ""
        hint = f"; did you mean {nearest}?" if nearest else ""
        return f"warning: -c {key}: codex-lsp knows no such config key, so it is ignored{hint}"
    return None


def override_warnings(overrides: Sequence[str]) -> list[str]:
    """One warning per `-c` override whose key the config schema does not know."""
    from codex_lsp.store.config_errors import ConfigError
    from codex_lsp.store.config_layers import parse_override

    tree = config_tree()
    warnings: list[str] = []
    for override in overrides:
        try:
            path, _ = parse_override(override)
        except ConfigError:
            continue  # loading the config reports a malformed override as an error
        warning = unknown_key_warning(path, tree)
        if warning is not None:
            warnings.append(warning)
    return warnings


def _misspelt(part: str, siblings: Sequence[str]) -> str | None:
    close = difflib.get_close_matches(part, list(siblings), n=1, cutoff=_MISSPELT_CUTOFF)
    return close[0] if close else None


def _unknown_at(path: Sequence[str], tree: KeyNode) -> tuple[int, str | None] | None:
    """Where `path` leaves the schema (its depth) and a likely intended key, or None."""
    node = tree
    for depth, part in enumerate(path):
        if node.free_form:
            return None
        child = node.children.get(part) or node.any_name
        if child is None:
            return depth, _misspelt(part, list(node.children))
        node = child
    return None


def _pattern(path: Sequence[str], tree: KeyNode) -> tuple[str, ...]:
    """`path` with each user-chosen name (a server's, a provider's) replaced by `<name>`."""
    node: KeyNode | None = tree
    out: list[str] = []
    for part in path:
        if node is None:
            out.append(part)
            continue
        if part in node.children:
            out.append(part)
            node = node.children[part]
        else:
            out.append(ANY_NAME)
            node = node.any_name
    return tuple(out)


@dataclass(frozen=True)
class IgnoredKey:
    """A key of a config file that codex-lsp does not act on, and why."""

    path: Path
    key: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.key}: {self.reason}"


def file_key_warnings(config: Config) -> list[IgnoredKey]:
    """Each key of the user's files that codex-lsp ignores, in file order."""
    from codex_lsp.store.config_layers import leaf_paths

    tree = config_tree()
    warnings: list[IgnoredKey] = []
    for path, tables in config.file_layers:
        seen: set[tuple[str, ...]] = set()
        for leaf in leaf_paths(tables):
            if leaf[0] == "profiles" and len(leaf) > 1:
                key: tuple[str, ...] = leaf[:2]
                message = (
                    f"a legacy profile table is not applied; move it to "
                    f"{path.parent / (leaf[1] + '.config.toml')} and use --profile {leaf[1]}"
                )
            elif (unknown := _unknown_at(leaf, tree)) is not None:
                depth, nearest = unknown
                key = leaf[: depth + 1]
                if nearest is not None:
                    intended = ".".join([*key[:-1], nearest])
                    message = f"not a config key, so it is ignored; did you mean {intended}?"
                else:
                    message = "not implemented by codex-lsp, so it is ignored"
            elif leaf[0] == "hooks" and len(leaf) > 1 and leaf[1] not in RUN_HOOK_EVENTS:
                key = leaf[:2]
                message = "not run by codex-lsp (it runs PreToolUse and PostToolUse hooks)"
            else:
                pattern = _pattern(leaf, tree)
                found = next(
                    (n for n in range(1, len(pattern) + 1) if pattern[:n] in NOT_APPLIED), None
                )
                if found is None:
                    continue
                key = leaf[:found]
                message = f"read but not applied by codex-lsp: {NOT_APPLIED[pattern[:found]]}"
            if key not in seen:
                seen.add(key)
                warnings.append(IgnoredKey(path, ".".join(key), message))
    return warnings
