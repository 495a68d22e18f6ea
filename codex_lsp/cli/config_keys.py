"""Which `-c key=value` keys config.toml knows, and the nearest one to a key it does not.

config.toml ignores keys it does not know, so a Codex user's file loads as is; on the command
line that silence hides typos (`-c modle=o3` would quietly change nothing). The known keys come
from the config schema itself (the pydantic models), so they cannot drift from what loads.
"""

from __future__ import annotations

import difflib
import types
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel

ANY_NAME = "<name>"


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
        return KeyNode()
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
