"""Model providers through `codex-lsp app-server`: listed as a settings page shows them, their
capabilities, and custom gateways created and edited in config.toml, ready for a thread."""

from __future__ import annotations

import tomllib

from codex_lsp.api.port import INVALID_PARAMS, INVALID_REQUEST
from tests.support.appserver import app_server, make_home
from tests.support.scripted_builders import text_response

GATEWAYS = """
[model_providers.gw]
name = "Gateway"
base_url = "https://gw.example.com/v1?token=abc"
env_key = "GW_KEY"

[model_providers.plain]
name = "Plain"
base_url = "https://plain.example.com/v1"
env_key = "PLAIN_KEY"

[model_providers.chatty]
name = "Chatty"
base_url = "http://127.0.0.1:9/v1"
wire_api = "chat"
"""


def _summaries(result):
    return {entry["id"]: entry for entry in result["data"]}


def test_the_list_shows_openai_the_users_providers_and_hides_secret_endpoints(
    scripted_model, tmp_path
):
    home, ws = make_home(tmp_path, scripted_model.base_url, extra=GATEWAYS)
    with app_server(home, ws) as client:
        listed = client.result("modelProvider/list", {})
        capabilities = client.result("modelProvider/capabilities/read", {})

    providers = _summaries(listed)
    # Built-in Ollama is not shown: the user's config does not use it.
    assert sorted(providers) == ["chatty", "gw", "openai", "plain", "scripted"]
    assert listed["defaultProviderId"] == "scripted" and listed["canChangeDefault"] is True
    assert providers["openai"] == {
        "id": "openai",
        "name": "OpenAI",
        "canEdit": False,
        "baseUrl": None,
        "settings": {"type": "openai"},
    }
    gateway = providers["gw"]
    # The token in its query string never leaves the server; its auth is not the form's.
    assert gateway["baseUrl"] is None
    assert gateway["settings"]["auth"] == {"mode": "externallyConfigured", "envKey": "GW_KEY"}
    plain = providers["plain"]
    assert plain["baseUrl"] == "https://plain.example.com/v1" and plain["canEdit"] is True
    assert plain["settings"] == {
        "type": "customGateway",
        "auth": {"mode": "environmentVariable", "envKey": "PLAIN_KEY"},
    }
    assert providers["scripted"]["settings"]["auth"] == {"mode": "none"}
    assert capabilities == {"webSearch": True, "imageGeneration": False}


def test_capabilities_follow_the_default_providers_wire(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, extra=GATEWAYS)
    config = home / "config.toml"
    config.write_text(
        config.read_text().replace('model_provider = "scripted"', 'model_provider = "chatty"')
    )
    with app_server(home, ws) as client:
        assert client.result("modelProvider/capabilities/read")["webSearch"] is False


def test_a_created_gateway_is_written_and_a_thread_can_use_it(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, extra=GATEWAYS)
    config = home / "config.toml"
    scripted_model.enqueue(text_response("Through the new gateway."))
    with app_server(home, ws, env={"MY_GATEWAY_KEY": "gw-key-1234"}) as client:
        created = client.result(
            "modelProvider/config/write",
            {
                "settings": {
                    "type": "customGateway",
                    "name": "My Gateway",
                    "baseUrl": scripted_model.base_url,
                    "envKey": "MY_GATEWAY_KEY",
                }
            },
        )["provider"]
        again = client.result(
            "modelProvider/config/write",
            {"settings": {"type": "customGateway", "name": "My Gateway"}},
        )["provider"]
        thread = client.start_thread(modelProvider=created["id"])
        _, done = client.run_turn(thread["id"], "hello")
        listed = _summaries(client.result("modelProvider/list"))

    assert created == {
        "id": "my-gateway",
        "name": "My Gateway",
        "canEdit": True,
        "baseUrl": scripted_model.base_url,
        "settings": {
            "type": "customGateway",
            "auth": {"mode": "environmentVariable", "envKey": "MY_GATEWAY_KEY"},
        },
    }
    assert again["id"] == "my-gateway-2" and again["settings"]["auth"] == {"mode": "none"}
    table = tomllib.loads(config.read_text())["model_providers"]["my-gateway"]
    assert table == {
        "name": "My Gateway",
        "wire_api": "responses",
        "base_url": scripted_model.base_url,
        "env_key": "MY_GATEWAY_KEY",
    }
    assert thread["modelProvider"] == "my-gateway"
    assert done["params"]["turn"]["status"] == "completed"
    assert scripted_model.requests[0].headers["authorization"] == "Bearer gw-key-1234"
    assert {"my-gateway", "my-gateway-2"} <= set(listed)


def test_a_patch_keeps_omitted_fields_and_clears_nulls(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, extra=GATEWAYS)
    config = home / "config.toml"
    before = config.read_text()
    with app_server(home, ws) as client:
        patched = client.result(
            "modelProvider/config/write",
            {"settings": {"type": "customGateway", "providerId": "plain", "envKey": None}},
        )["provider"]
        renamed = client.result(
            "modelProvider/config/write",
            {"settings": {"type": "customGateway", "providerId": "plain", "name": "Renamed"}},
        )["provider"]

    table = tomllib.loads(config.read_text())["model_providers"]["plain"]
    assert table == {"name": "Renamed", "base_url": "https://plain.example.com/v1"}
    assert patched["settings"]["auth"] == {"mode": "none"}
    assert renamed["name"] == "Renamed" and renamed["baseUrl"] == "https://plain.example.com/v1"
    # Everything else in the file is as the user wrote it.
    assert (
        config.read_text().split("[model_providers.plain]")[0]
        == (before.split("[model_providers.plain]")[0])
    )


def test_bad_writes_are_refused_and_change_nothing(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, extra=GATEWAYS)
    config = home / "config.toml"
    before = config.read_text()
    validation = {"config_write_error_code": "configValidationError"}
    with app_server(home, ws) as client:
        nameless = client.call(
            "modelProvider/config/write",
            {"settings": {"type": "customGateway", "baseUrl": "https://x.example"}},
        )["error"]
        built_in = client.call(
            "modelProvider/config/write",
            {"settings": {"type": "customGateway", "providerId": "openai", "name": "x"}},
        )["error"]
        unknown = client.call(
            "modelProvider/config/write",
            {"settings": {"type": "customGateway", "providerId": "nope", "name": "x"}},
        )["error"]
        bedrock = client.call(
            "modelProvider/config/write",
            {"settings": {"type": "bedrock", "providerId": "amazon-bedrock", "region": "eu"}},
        )["error"]
        stray = client.call(
            "modelProvider/config/write",
            {"settings": {"type": "customGateway", "name": "x", "colour": "red"}},
        )["error"]
        assert client.process.poll() is None

    assert nameless == {
        "code": INVALID_REQUEST,
        "message": "Enter a provider name.",
        "data": validation,
    }
    assert built_in["data"] == validation and "built-in" in built_in["message"]
    assert unknown["data"] == {"config_write_error_code": "configPathNotFound"}
    assert "nope" in unknown["message"]
    assert bedrock["code"] == INVALID_REQUEST and "amazon-bedrock" in bedrock["message"]
    assert stray["code"] == INVALID_PARAMS and "colour" in stray["message"]
    assert config.read_text() == before
