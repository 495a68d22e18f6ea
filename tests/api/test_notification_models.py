"""Every notification the API sends is built as the params model its method registers.

The port takes any model (`ClientPort.notify(method, params)`), so the pairing is checked here,
over the source: each call that names its method and builds its params in place must build the
model `notification_model` gives for that method. Calls whose method or params come from a
variable are covered at run time by the fake ports of the in-process tests (`sent_params`).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from pydantic import BaseModel

from codex_lsp.protocol.threads.notifications import WarningNotification
from codex_lsp.protocol.v2 import notification_model
from tests.support.ports import sent_params

SOURCES = Path(__file__).resolve().parents[2] / "codex_lsp"
# The callables that take (method, params) and send a notification.
SENDERS = frozenset({"notify", "_notify", "send", "after_response", "_after_response"})


def _called(node: ast.expr) -> str | None:
    """The name `node` calls, if it is a call: `Model(...)`, `module.Model(...)`."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in ("model_validate", "model_construct"):
        func = func.value  # `Model.model_validate(...)` builds a Model
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)


def _built_in(function: ast.AST, returns: dict[str, str], where: str) -> list[tuple[str, str, str]]:
    # Params built into a local first (`params = Model(...)`, then sent) count as built here.
    locals_built: dict[str, str] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, built = node.targets[0], _called(node.value)
            if isinstance(target, ast.Name) and built is not None:
                locals_built[target.id] = built
    found: list[tuple[str, str, str]] = []
    for node in ast.walk(function):
        if not isinstance(node, ast.Call) or len(node.args) != 2:
            continue
        method, params = node.args
        if _called(node) not in SENDERS or not isinstance(method, ast.Constant):
            continue
        if not isinstance(method.value, str):
            continue
        model = _called(params)
        if model is None and isinstance(params, ast.Name):
            model = locals_built.get(params.id)
        # A module's own function that builds the params stands for the model it returns;
        # what another object's method returns is left to the run-time check.
        model = returns.get(model, model) if model is not None else None
        if model is not None and model[:1].isupper():
            found.append((f"{where}:{node.lineno}", method.value, model))
    return found


def _built_notifications() -> list[tuple[str, str, str]]:
    """(where, method, params model name) for each sending call whose method is written in
    place and whose params are built in place or in a local of the same function."""
    found: list[tuple[str, str, str]] = []
    for path in sorted(SOURCES.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        returns = {
            node.name: ast.unparse(node.returns)
            for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.returns is not None
        }
        where = str(path.relative_to(SOURCES.parent))
        for function in ast.walk(tree):
            if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                found += _built_in(function, returns, where)
    # Nested functions are walked twice, from their own def and from the one around them.
    return sorted(set(found))


BUILT = _built_notifications()


def test_the_scan_sees_the_notifications_of_every_part_of_the_api() -> None:
    methods = {method for _, method, _ in BUILT}
    # A scan that matched nothing would pass the test below vacuously.
    assert len(BUILT) >= 40
    assert {"item/started", "item/agentMessage/delta", "turn/completed", "warning"} <= methods
    assert {"account/updated", "thread/status/changed", "serverRequest/resolved"} <= methods


@pytest.mark.parametrize(("where", "method", "model"), BUILT, ids=[w for w, _, _ in BUILT])
def test_each_notification_is_built_as_its_registered_model(
    where: str, method: str, model: str
) -> None:
    registered = notification_model(method)
    assert registered is not None, f"{where}: {method} is no v2 notification"
    assert model == registered.__name__, f"{where}: {method} built as {model}"


def test_a_fake_port_refuses_a_notification_sent_as_another_model() -> None:
    wrong: BaseModel = WarningNotification(message="hi")
    with pytest.raises(AssertionError, match="turn/started sent as WarningNotification"):
        sent_params("turn/started", wrong)
