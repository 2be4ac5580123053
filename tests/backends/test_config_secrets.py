"""A backend config marks its secret env values with ``secret_env``: a closed list of env names
whose literal values redaction removes by value. The marking is checked like every other key and
is not part of the config's identity."""

from __future__ import annotations

from typing import Any

from tests.support.backends import config_rejection, parse_config, stdio_config

TOKEN = "srv-tok-0123456789"


def with_env(env: dict[str, str], secret_env: list[str]) -> dict[str, Any]:
    return {**stdio_config(), "env": env, "secret_env": secret_env}


def test_the_marked_env_values_are_the_config_s_secrets() -> None:
    config = parse_config(with_env({"API_TOKEN": TOKEN, "MODE": "fast-and-loose"}, ["API_TOKEN"]))
    assert config.secrets().values == {TOKEN}


def test_the_credentials_of_an_http_url_are_secrets_too() -> None:
    document = {
        **stdio_config(),
        "transport": "http",
        "url": "http://user:pw-0123456789@127.0.0.1:9/mcp",
        "command": None,
    }
    document = {k: v for k, v in document.items() if v is not None}
    assert "pw-0123456789" in parse_config(document).secrets().values


def test_secret_env_must_name_an_env_key() -> None:
    message = config_rejection(with_env({"MODE": "x"}, ["API_TOKEN"]))
    assert "secret_env names API_TOKEN, which env does not set" in message


def test_secret_env_may_not_list_a_name_twice() -> None:
    assert "lists API_TOKEN twice" in config_rejection(
        with_env({"API_TOKEN": TOKEN}, ["API_TOKEN", "API_TOKEN"])
    )


def test_a_secret_env_value_must_be_a_literal() -> None:
    message = config_rejection(with_env({"API_TOKEN": "{config_dir}/token-file"}, ["API_TOKEN"]))
    assert "must be a literal" in message


def test_a_secret_env_value_too_short_to_find_by_value_is_refused() -> None:
    assert "too short" in config_rejection(with_env({"API_TOKEN": "abc"}, ["API_TOKEN"]))


def test_a_secret_env_name_must_be_an_env_name() -> None:
    assert "secret_env.0" in config_rejection(with_env({"API_TOKEN": TOKEN}, ["not a name"]))


def test_marking_a_value_secret_leaves_the_config_s_identity_as_it_was() -> None:
    marked = parse_config(with_env({"API_TOKEN": TOKEN}, ["API_TOKEN"]))
    unmarked = parse_config(with_env({"API_TOKEN": TOKEN}, []))
    assert marked.model_dump(mode="json") == unmarked.model_dump(mode="json")
