"""Models, config and account through `codex-lsp app-server`."""

from __future__ import annotations

import json
import stat

from codex_lsp.engine.models import CATALOGUE
from tests.support.appserver import app_server, make_home
from tests.support.scripted_builders import rate_limit_headers, text_response


def test_model_list_pages_the_catalogue_and_marks_the_configured_default(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, model="gpt-5.4")
    with app_server(home, ws) as client:
        visible = [info for info in CATALOGUE if not info.hidden]
        everything = client.result("model/list", {})
        assert [m["id"] for m in everything["data"]] == [info.slug for info in visible]
        assert [m["id"] for m in everything["data"] if m["isDefault"]] == ["gpt-5.4"]
        efforts = everything["data"][0]["supportedReasoningEfforts"]
        assert {e["reasoningEffort"] for e in efforts} == set(visible[0].efforts)
        page = client.result("model/list", {"limit": 2})
        rest = client.result("model/list", {"limit": 10, "cursor": page["nextCursor"]})
        assert [m["id"] for m in page["data"] + rest["data"]] == [info.slug for info in visible]
        assert rest["nextCursor"] is None
        # The scripted provider has no catalog (404): the bundled one stands in.
        hidden = client.result("model/list", {"includeHidden": True})
        assert len(hidden["data"]) == len(CATALOGUE)


def provider_model(slug: str, priority: int, **fields: object) -> dict[str, object]:
    """A `/models` entry in Codex's shape."""
    return {
        "slug": slug,
        "display_name": slug.title(),
        "description": f"{slug} from the provider.",
        "default_reasoning_level": "medium",
        "supported_reasoning_levels": [
            {"effort": "low", "description": "Quick"},
            {"effort": "medium", "description": "Balanced"},
        ],
        "shell_type": "shell_command",
        "visibility": "list",
        "supported_in_api": True,
        "priority": priority,
        **fields,
    }


def test_model_list_lists_the_providers_catalog_in_priority_order(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, model="local-big")
    scripted_model.set_models(
        {
            "models": [
                provider_model("local-small", 2, upgrade={"model": "local-big"}),
                provider_model("local-big", 1, service_tiers=[{"id": "fast", "name": "Fast"}]),
                provider_model("local-hidden", 3, visibility="hide"),
                provider_model("chatgpt-only", 4, supported_in_api=False),
                {"slug": "broken"},
            ]
        }
    )
    with app_server(home, ws) as client:
        listed = client.result("model/list", {})
        assert [m["id"] for m in listed["data"]] == ["local-big", "local-small"]
        assert listed["nextCursor"] is None  # always written, null on the last page
        big, small = listed["data"]
        assert big["isDefault"] and not small["isDefault"]
        assert big["serviceTiers"] == [{"id": "fast", "name": "Fast", "description": ""}]
        assert small["upgrade"] == "local-big" and small["upgradeInfo"]["model"] == "local-big"
        assert [e["reasoningEffort"] for e in big["supportedReasoningEfforts"]] == ["low", "medium"]
        every = client.result("model/list", {"includeHidden": True})
        assert [m["id"] for m in every["data"]][-1] == "local-hidden"
    asked = [r for r in scripted_model.http_log if r.method == "GET"]
    assert asked and asked[0].path.startswith("/v1/models?client_version=")


def test_config_read_reports_values_and_their_origin(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, approval_policy="untrusted")
    with app_server(home, ws, args=("-c", 'model_reasoning_effort="high"')) as client:
        read = client.result("config/read", {"includeLayers": True})
        config = read["config"]
        assert config["model"] == "gpt-5.4" and config["model_provider"] == "scripted"
        assert (
            config["approval_policy"] == "untrusted" and config["model_reasoning_effort"] == "high"
        )
        assert read["origins"]["model"]["name"] == {
            "type": "user",
            "file": str(home / "config.toml"),
            "profile": None,
        }
        assert read["origins"]["model_reasoning_effort"]["name"] == {"type": "sessionFlags"}
        assert read["origins"]["model_providers.scripted.base_url"]["name"]["type"] == "user"
        user, flags = read["layers"]
        assert user["config"]["model_providers"]["scripted"]["name"] == "Scripted"
        assert flags["name"] == {"type": "sessionFlags"}
        assert flags["config"] == {"model_reasoning_effort": "high"}
        # The whole effective config: keys left at their defaults too, the protocol's own
        # keys written as null when unset.
        assert config["project_doc_max_bytes"] == 32 * 1024 and "features" in config
        assert config["review_model"] is None and config["service_tier"] is None
        assert "base_instructions" not in config
        plain = client.result("config/read", {})
        assert plain["layers"] is None and plain["config"] == config


def test_api_key_login_logout_and_rate_limits(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(
        text_response(
            "hi", headers=rate_limit_headers(42.0, 60, 1_900_000_000, secondary_used_percent=7.0)
        )
    )
    with app_server(home, ws) as client:
        before = client.result("account/read", {})
        assert before.get("account") is None and before["requiresOpenaiAuth"] is False
        assert client.result(
            "account/login/start", {"type": "apiKey", "apiKey": "sk-test-123"}
        ) == {"type": "apiKey"}
        assert client.wait_method("account/login/completed")["params"]["success"] is True
        # As the reference server writes it: `planType` and `reason` are always there, null
        # when unknown.
        updated = client.wait_method("account/updated")["params"]
        assert updated == {"authMode": "apikey", "planType": None, "reason": None}
        assert client.result("account/read", {})["account"] == {"type": "apiKey"}
        auth = home / "auth.json"
        assert json.loads(auth.read_text())["OPENAI_API_KEY"] == "sk-test-123"
        assert stat.S_IMODE(auth.stat().st_mode) == 0o600

        thread = client.start_thread()
        client.run_turn(thread["id"], "hello")
        limits = client.result("account/rateLimits/read")["rateLimits"]
        assert limits["primary"] == {
            "usedPercent": 42,
            "windowDurationMins": 60,
            "resetsAt": 1_900_000_000,
        }
        assert limits["secondary"]["usedPercent"] == 7

        assert client.result("account/logout") == {}
        assert client.result("account/read", {}).get("account") is None
    assert not (home / "auth.json").exists()
