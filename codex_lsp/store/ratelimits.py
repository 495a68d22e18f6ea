"""The latest rate-limit snapshot, read from the `x-codex-*` response headers.

The model client hands each response's headers (or a `token_count` event's `rate_limits`) to a
`RateLimitTracker`; `account/rateLimits/read` answers from its latest snapshot.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class RateLimitWindow:
    used_percent: float
    window_minutes: int | None = None
    resets_at: int | None = None  # unix seconds

    def to_core(self) -> dict[str, Any]:
        return {
            "used_percent": self.used_percent,
            "window_minutes": self.window_minutes,
            "resets_at": self.resets_at,
        }

    def to_v2(self) -> dict[str, Any]:
        return {
            "usedPercent": round(self.used_percent),
            "windowDurationMins": self.window_minutes,
            "resetsAt": self.resets_at,
        }


@dataclass(frozen=True, slots=True)
class RateLimitSnapshot:
    primary: RateLimitWindow | None = None
    secondary: RateLimitWindow | None = None
    credits: dict[str, Any] | None = None
    limit_id: str | None = "codex"
    plan_type: str | None = None

    def to_core(self) -> dict[str, Any]:
        """The `token_count.rate_limits` shape (snake_case)."""
        return {
            "limit_id": self.limit_id,
            "primary": self.primary.to_core() if self.primary else None,
            "secondary": self.secondary.to_core() if self.secondary else None,
            "credits": self.credits,
            "plan_type": self.plan_type,
        }

    def to_v2(self) -> dict[str, Any]:
        """The app-server v2 `RateLimitSnapshot` shape (camelCase)."""
        credits = None
        if self.credits is not None:
            credits = {
                "hasCredits": bool(self.credits.get("has_credits")),
                "unlimited": bool(self.credits.get("unlimited")),
                "balance": self.credits.get("balance"),
            }
        return {
            "limitId": self.limit_id,
            "limitName": None,
            "primary": self.primary.to_v2() if self.primary else None,
            "secondary": self.secondary.to_v2() if self.secondary else None,
            "credits": credits,
            "planType": self.plan_type,
        }

    @classmethod
    def from_core(cls, data: Mapping[str, Any]) -> RateLimitSnapshot:
        """Parse the snake_case shape (e.g. a `token_count` event's `rate_limits`)."""

        def window(raw: Any) -> RateLimitWindow | None:
            if not isinstance(raw, Mapping) or raw.get("used_percent") is None:
                return None
            return RateLimitWindow(
                float(raw["used_percent"]), raw.get("window_minutes"), raw.get("resets_at")
            )

        credits = data.get("credits")
        return cls(
            primary=window(data.get("primary")),
            secondary=window(data.get("secondary")),
            credits=dict(credits) if isinstance(credits, Mapping) else None,
            limit_id=data.get("limit_id", "codex"),
            plan_type=data.get("plan_type"),
        )


def _number(headers: Mapping[str, str], name: str) -> float | None:
    value = headers.get(name)
    if value is None:
        return None
    try:
        return float(value.strip())
    except ValueError:
        return None


def _window(headers: Mapping[str, str], which: str, now: float) -> RateLimitWindow | None:
    used = _number(headers, f"x-codex-{which}-used-percent")
    if used is None:
        return None
    minutes = _number(headers, f"x-codex-{which}-window-minutes")
    reset_at = _number(headers, f"x-codex-{which}-reset-at")
    if reset_at is None:
        # Older servers send a relative reset instead of an absolute one.
        after = _number(headers, f"x-codex-{which}-reset-after-seconds")
        reset_at = now + after if after is not None else None
    return RateLimitWindow(
        used,
        int(minutes) if minutes is not None else None,
        int(reset_at) if reset_at is not None else None,
    )


def _flag(value: str | None) -> bool | None:
    if value is None:
        return None
    return value.strip().lower() in ("true", "1")


def parse_rate_limit_headers(
    headers: Mapping[str, str], *, now: float | None = None
) -> RateLimitSnapshot | None:
    """A snapshot from response headers, or None when the response carries none."""
    lowered = {key.lower(): value for key, value in headers.items()}
    moment = time.time() if now is None else now
    primary = _window(lowered, "primary", moment)
    secondary = _window(lowered, "secondary", moment)
    has_credits = _flag(lowered.get("x-codex-credits-has-credits"))
    credits = None
    if has_credits is not None:
        credits = {
            "has_credits": has_credits,
            "unlimited": bool(_flag(lowered.get("x-codex-credits-unlimited"))),
            "balance": lowered.get("x-codex-credits-balance"),
        }
    if primary is None and secondary is None and credits is None:
        return None
    return RateLimitSnapshot(primary=primary, secondary=secondary, credits=credits)


class RateLimitTracker:
    """Keeps the latest snapshot; safe to update from the model client's thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._latest: RateLimitSnapshot | None = None

    def update(self, snapshot: RateLimitSnapshot | None) -> None:
        if snapshot is not None:
            with self._lock:
                self._latest = snapshot

    def update_from_headers(self, headers: Mapping[str, str]) -> RateLimitSnapshot | None:
        snapshot = parse_rate_limit_headers(headers)
        self.update(snapshot)
        return snapshot

    def latest(self) -> RateLimitSnapshot | None:
        with self._lock:
            return self._latest
