"""Backoff and server-requested delays, shared by the transport retries here and the
turn-level stream retries in the engine (§2.5 of the engine notes)."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime

BASE_DELAY_S = 0.2

# The wording OpenAI uses in rate-limit messages: "Please try again in 1.5s" / "in 20ms".
_TRY_AGAIN = re.compile(r"(?i)try again in\s*(\d+(?:\.\d+)?)\s*(s|ms|seconds?)")


def backoff_delay(attempt: int) -> float:
    """Seconds to wait before retry number `attempt` (1-based): 200 ms doubling, +-10% jitter.

    The jitter keeps many clients that failed together from retrying in lockstep.
    """
    exponent = max(attempt, 1) - 1
    return BASE_DELAY_S * (2.0**exponent) * random.uniform(0.9, 1.1)


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """The `Retry-After` header as seconds: either delta-seconds or an HTTP date."""
    value = _header(headers, "retry-after")
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - time.time()
    if seconds != seconds:  # NaN
        return None
    return max(seconds, 0.0)


def parse_try_again(message: str | None) -> float | None:
    """Seconds from "try again in 1.5s" / "try again in 250ms" in a server message."""
    if not message:
        return None
    match = _TRY_AGAIN.search(message)
    if match is None:
        return None
    value = float(match.group(1))
    return value / 1000.0 if match.group(2).lower() == "ms" else value


def _header(headers: Mapping[str, str], name: str) -> str | None:
    # httpx.Headers is case-insensitive already; plain dicts from callers may not be.
    value = headers.get(name)
    if value is not None:
        return value
    for key, val in headers.items():
        if key.lower() == name:
            return val
    return None
