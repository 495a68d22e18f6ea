"""What the fake `ClientPort`s of in-process tests share with the real doors.

`sent_params` holds the API to the port's contract (each notification's params are the model
registered for its method) and gives the test the wire JSON a door would write.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from codex_lsp.protocol.common import dump
from codex_lsp.protocol.v2 import notification_model


def sent_params(method: str, params: BaseModel) -> dict[str, Any]:
    """The wire params of the notification `method`, after checking its model."""
    model = notification_model(method)
    assert model is not None, f"{method} is no v2 notification"
    assert type(params) is model, f"{method} sent as {type(params).__name__}, not {model.__name__}"
    return dump(params)
