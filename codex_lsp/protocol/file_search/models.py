"""Fuzzy file search on the v2 wire: the one-shot `fuzzyFileSearch` request, and the search
sessions (`fuzzyFileSearch/sessionStart`, `sessionUpdate`, `sessionStop`) whose results stream
as `fuzzyFileSearch/sessionUpdated` and end with `fuzzyFileSearch/sessionCompleted`.

Result fields are snake_case on the wire (`match_type`, `file_name`), as the reference sends them.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypeAliasType

from codex_lsp.protocol.common import Opt, SnakeModel, V2Model
from codex_lsp.protocol.methods import MethodTable

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


METHODS = MethodTable()
FUZZY_FILE_SEARCH = METHODS.request(
    "fuzzyFileSearch", FuzzyFileSearchParams, FuzzyFileSearchResponse
)
FUZZY_FILE_SEARCH_SESSION_START = METHODS.request(
    "fuzzyFileSearch/sessionStart",
    FuzzyFileSearchSessionStartParams,
    FuzzyFileSearchSessionStartResponse,
    experimental=True,
)
FUZZY_FILE_SEARCH_SESSION_UPDATE = METHODS.request(
    "fuzzyFileSearch/sessionUpdate",
    FuzzyFileSearchSessionUpdateParams,
    FuzzyFileSearchSessionUpdateResponse,
    experimental=True,
)
FUZZY_FILE_SEARCH_SESSION_STOP = METHODS.request(
    "fuzzyFileSearch/sessionStop",
    FuzzyFileSearchSessionStopParams,
    FuzzyFileSearchSessionStopResponse,
    experimental=True,
)
METHODS.notification("fuzzyFileSearch/sessionUpdated", FuzzyFileSearchSessionUpdatedNotification)
METHODS.notification(
    "fuzzyFileSearch/sessionCompleted", FuzzyFileSearchSessionCompletedNotification
)
