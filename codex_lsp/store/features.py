"""The `[features]` flags this engine reads, with what a client shows about each.

A flag is set in config.toml (`[features] name = true`); `experimentalFeature/enablement/set`
writes it there too, so the choice outlives the server.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

Stage = Literal["beta", "underDevelopment", "stable", "deprecated", "removed"]


@dataclass(frozen=True)
class Feature:
    name: str
    stage: Stage
    default_enabled: bool
    display_name: str
    description: str


FEATURES: tuple[Feature, ...] = (
    Feature(
        "skills",
        "stable",
        True,
        "Skills",
        "Offer the skills found in the skills folders to the model.",
    ),
    Feature(
        "request_user_input",
        "stable",
        True,
        "Questions to the user",
        "Let the model ask the user short questions in the middle of a turn.",
    ),
    Feature(
        "view_image",
        "stable",
        True,
        "View images",
        "Let the model look at image files on disk (`view_image`).",
    ),
    Feature(
        "goals",
        "stable",
        True,
        "Goals",
        "Offer the model the goal tools: a thread's objective, its status and token budget.",
    ),
    Feature(
        "subagent_tools",
        "beta",
        False,
        "Subagents",
        "Let the model spawn subagents that work on a task in threads of their own.",
    ),
    Feature(
        "multi_agent_v2",
        "stable",
        False,
        "Agent teams",
        "Offer the model the `collaboration` tools: agents named by task path that spawn, "
        "message and wait for one another.",
    ),
    Feature(
        "record_model_streams",
        "underDevelopment",
        False,
        "Record model streams",
        "Save each thread's requests to the model and the streamed answers, secrets removed, "
        "next to its rollout, so `codex-lsp replay` can run the thread again offline.",
    ),
    Feature(
        "web_search_request",
        "beta",
        False,
        "Web search",
        "Offer the model the provider's web search tool.",
    ),
)

BY_NAME: dict[str, Feature] = {feature.name: feature for feature in FEATURES}


def enabled(feature: Feature, flags: Mapping[str, bool]) -> bool:
    return bool(flags.get(feature.name, feature.default_enabled))


def unknown_features(flags: Iterable[str]) -> list[str]:
    return sorted(name for name in flags if name not in BY_NAME)
