"""How a params validation failure reads on the wire: -32602 naming the field as the client
spelled it, so the message alone says what to fix."""

from __future__ import annotations

from pydantic import ValidationError


def validation_message(err: ValidationError) -> str:
    """`Invalid params: <field>: <problem>` for the first problem, camelCase path as sent."""
    first = err.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "root")
    return f"Invalid params: {where or 'params'}: {first.get('msg')}"
