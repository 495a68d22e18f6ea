"""The model-visible conversation: Responses-API items in order, with response bookmarks.

Items are plain dicts in Responses-API JSON (typed as `ResponseItem`); they go to the model
as they are, minus `id`s.
"""

from __future__ import annotations

from typing import Any

from codex_lsp.protocol.core.response_items import ResponseItem, response_item
from codex_lsp.store.history import message_text, user_message_item as user_message

CALL_TYPES = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
}
OUTPUT_TYPES = {output: call for call, output in CALL_TYPES.items()}

ABORTED_OUTPUT = "aborted"


__all__ = ["ConversationHistory", "message_text", "user_message"]


class ConversationHistory:
    """Ordered items plus, for each completed response, how long the history was after it."""

    def __init__(
        self,
        items: list[ResponseItem] | None = None,
        bookmarks: dict[str, int] | None = None,
    ) -> None:
        self._items: list[ResponseItem] = list(items or [])
        self._bookmarks: dict[str, int] = dict(bookmarks or {})

    def __len__(self) -> int:
        return len(self._items)

    @property
    def items(self) -> list[ResponseItem]:
        return self._items

    def append(self, item: ResponseItem) -> None:
        self._items.append(item)

    def extend(self, items: list[ResponseItem]) -> None:
        self._items.extend(items)

    def replace(self, items: list[ResponseItem]) -> None:
        self._items = list(items)
        self._bookmarks.clear()

    def mark_response(self, response_id: str) -> None:
        self._bookmarks[response_id] = len(self._items)

    def last_bookmark(self) -> str | None:
        """The newest response id the history can still be rewound to."""
        return next(reversed(self._bookmarks), None)

    def has_bookmark(self, response_id: str) -> bool:
        return response_id in self._bookmarks

    def rewind_to(self, response_id: str) -> None:
        """Drop everything recorded after `response_id` completed."""
        length = self._bookmarks[response_id]
        del self._items[length:]
        self._bookmarks = {rid: n for rid, n in self._bookmarks.items() if n <= length}

    def for_prompt(self) -> list[ResponseItem]:
        """Items as the next request sends them: no ids, every call paired with an output.

        A call left without output (an interrupted turn) gets an `aborted` output so the API
        accepts the history; an output whose call is gone (after compaction) is dropped.
        """
        call_ids = {item.get("call_id") for item in self._items if item.get("type") in CALL_TYPES}
        answered = {item.get("call_id") for item in self._items if item.get("type") in OUTPUT_TYPES}
        prompt: list[ResponseItem] = []
        for item in self._items:
            kind = item.get("type")
            # A context output (the goal's objective) answers no call: it has no `call_id`.
            if kind in OUTPUT_TYPES and "call_id" in item and item.get("call_id") not in call_ids:
                continue
            prompt.append(response_item({k: v for k, v in item.items() if k != "id"}))
            if kind in CALL_TYPES and item.get("call_id") not in answered:
                aborted: dict[str, Any] = {
                    "type": CALL_TYPES[kind],
                    "call_id": item.get("call_id"),
                    "output": ABORTED_OUTPUT,
                }
                prompt.append(response_item(aborted))
        return prompt

    def approx_tokens(self) -> int:
        """A rough size of the history (4 bytes per token), for when the model gives no usage."""
        total = 0
        for item in self._items:
            for value in item.values():
                if isinstance(value, str):
                    total += len(value)
                elif isinstance(value, list):
                    total += sum(len(str(part)) for part in value)
        return total // 4
