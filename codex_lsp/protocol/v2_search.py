"""Fuzzy file search on the v2 wire: the one-shot `fuzzyFileSearch` request, and the search
sessions (`fuzzyFileSearch/sessionStart`, `sessionUpdate`, `sessionStop`) whose results stream
as `fuzzyFileSearch/sessionUpdated` and end with `fuzzyFileSearch/sessionCompleted`.

Result fields are snake_case on the wire (`match_type`, `file_name`), as the reference sends them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel
from typing_extensions import TypeAliasType

from codex_lsp.protocol.v2_common import Opt, SnakeModel, V2Model

FuzzyFileSearchMatchType = TypeAliasType("FuzzyFileSearchMatchType", Literal["file", "directory"])


class FuzzyFileSearchResult(SnakeModel):
    root: str
    path: str
    match_type: FuzzyFileSearchMatchType
    file_name: str
    score: int
    indices: list[int] | None = None


class FuzzyFileSearchParams(V2Model):
    query: str
    roots: list[str]
    cancellation_token: Opt[str] = None


class FuzzyFileSearchResponse(V2Model):
    files: list[FuzzyFileSearchResult]


class FuzzyFileSearchSessionStartParams(V2Model):
    session_id: str
    roots: list[str]


class FuzzyFileSearchSessionStartResponse(V2Model):
    pass


class FuzzyFileSearchSessionUpdateParams(V2Model):
    session_id: str
    query: str


class FuzzyFileSearchSessionUpdateResponse(V2Model):
    pass


class FuzzyFileSearchSessionStopParams(V2Model):
    session_id: str


class FuzzyFileSearchSessionStopResponse(V2Model):
    pass


class FuzzyFileSearchSessionUpdatedNotification(V2Model):
    session_id: str
    query: str
    files: list[FuzzyFileSearchResult]


class FuzzyFileSearchSessionCompletedNotification(V2Model):
    session_id: str


REQUESTS: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "fuzzyFileSearch": (FuzzyFileSearchParams, FuzzyFileSearchResponse),
    "fuzzyFileSearch/sessionStart": (
        FuzzyFileSearchSessionStartParams,
        FuzzyFileSearchSessionStartResponse,
    ),
    "fuzzyFileSearch/sessionUpdate": (
        FuzzyFileSearchSessionUpdateParams,
        FuzzyFileSearchSessionUpdateResponse,
    ),
    "fuzzyFileSearch/sessionStop": (
        FuzzyFileSearchSessionStopParams,
        FuzzyFileSearchSessionStopResponse,
    ),
}

# Experimental in the reference server: absent from its stable schema.
EXPERIMENTAL = frozenset(
    {
        "fuzzyFileSearch/sessionStart",
        "fuzzyFileSearch/sessionUpdate",
        "fuzzyFileSearch/sessionStop",
    }
)

NOTIFICATIONS: dict[str, type[BaseModel]] = {
    "fuzzyFileSearch/sessionUpdated": FuzzyFileSearchSessionUpdatedNotification,
    "fuzzyFileSearch/sessionCompleted": FuzzyFileSearchSessionCompletedNotification,
}
