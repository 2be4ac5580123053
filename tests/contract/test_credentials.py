"""Secrets as one explicit value, and URLs recorded without their credentials
(``agentic/contract/credentials.py``).

A URL with no credentials is recorded exactly as written (committed reports keep their bytes); a
URL with credentials loses them but keeps a short hash of itself, so endpoints that differ only in
their credentials still differ; recording twice changes nothing. A ``Secrets`` value finds its
exact strings however they were echoed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentic.contract.credentials import (
    MIN_SECRET_CHARS,
    SECRET,
    Secrets,
    recorded_url,
    url_secrets,
)

ROOT = Path(__file__).resolve().parents[2]

PLAIN_URLS = [
    "http://127.0.0.1:8080/v1",
    "https://api.example.test/v1/",
    "http://localhost:11434/v1?api-version=2024-10-01",
    "http://[::1]:8080/v1#section",
    "http://@127.0.0.1:8080/v1",
]
CREDENTIALED = [
    ("http://alice:pw-0123456789@127.0.0.1:8080/v1", "pw-0123456789"),
    ("https://tok-abcdefghij@api.example.test/v1", "tok-abcdefghij"),
    ("https://api.example.test/v1?api-key=ak-0123456789", "ak-0123456789"),
    ("https://api.example.test/v1?key=k-0123456789&page=2", "k-0123456789"),
    ("https://api.example.test/v1?access_token=t-0123456789", "t-0123456789"),
    ("https://x.blob.example.test/v1?sv=2024&sig=s1g%2B0123456789", "s1g%2B0123456789"),
    ("https://api.example.test/v1?X-Amz-Signature=deadbeef0123", "deadbeef0123"),
    ("https://api.example.test/v1?client_secret=c-0123456789", "c-0123456789"),
    ("https://api.example.test/v1?password=hunter2hunter2", "hunter2hunter2"),
    ("https://api.example.test/v1#token=frag-0123456789", "frag-0123456789"),
]


@pytest.mark.parametrize("url", PLAIN_URLS)
def test_a_url_without_credentials_is_recorded_as_written(url: str) -> None:
    assert recorded_url(url) == url


def test_the_committed_endpoint_baseline_url_is_recorded_as_written() -> None:
    report = ROOT / "baselines" / "optional" / "openai-smollm2" / "report.json"
    base_url = json.loads(report.read_text(encoding="utf-8"))["environment"]["agentEndpoint"]
    assert recorded_url(base_url["baseUrl"]) == base_url["baseUrl"]


@pytest.mark.parametrize(("url", "secret"), CREDENTIALED)
def test_a_recorded_url_holds_none_of_its_credentials(url: str, secret: str) -> None:
    assert secret not in recorded_url(url)
    assert SECRET in recorded_url(url)


def test_userinfo_becomes_one_placeholder_and_the_host_stays() -> None:
    recorded = recorded_url("http://alice:pw-0123456789@127.0.0.1:8080/v1")
    assert recorded.startswith(f"http://{SECRET}@127.0.0.1:8080/v1#sha256=")


def test_query_parameters_that_are_not_secret_are_kept() -> None:
    recorded = recorded_url("https://api.example.test/v1?api-version=2&key=k-0123456789&page=2")
    assert recorded.startswith(f"https://api.example.test/v1?api-version=2&key={SECRET}&page=2#")


def test_urls_differing_only_in_their_credentials_are_recorded_differently() -> None:
    first = recorded_url("http://alice:pw-0123456789@127.0.0.1:8080/v1")
    second = recorded_url("http://alice:pw-9876543210@127.0.0.1:8080/v1")
    assert first != second


@pytest.mark.parametrize(("url", "secret"), CREDENTIALED)
def test_recording_a_recorded_url_changes_nothing(url: str, secret: str) -> None:
    assert recorded_url(recorded_url(url)) == recorded_url(url)


@pytest.mark.parametrize(("url", "secret"), CREDENTIALED)
def test_the_credentials_of_a_url_are_its_secrets(url: str, secret: str) -> None:
    assert secret in url_secrets(url).values


def test_a_percent_encoded_credential_is_a_secret_in_both_spellings() -> None:
    assert {"p%40ss-0123456789", "p@ss-0123456789"} <= url_secrets(
        "http://u:p%40ss-0123456789@h/v1"
    ).values


def test_a_secret_is_scrubbed_wherever_it_stands() -> None:
    secrets = Secrets.of(["Zq8xv7Lw0pN3mR5t"])
    assert secrets.scrub("key provided: Zq8xv7Lw0pN3mR5t.") == f"key provided: {SECRET}."


def test_a_secret_is_scrubbed_in_its_json_and_url_spellings() -> None:
    secrets = Secrets.of(['a/b"c\u00e9d0123'])
    echoed = json.dumps({"v": 'a/b"c\u00e9d0123'}) + " ?k=a%2Fb%22c%C3%A9d0123"
    assert "0123" not in secrets.scrub(echoed)


def test_a_value_too_short_to_search_for_is_left_out() -> None:
    assert Secrets.of(["x" * (MIN_SECRET_CHARS - 1), None]).values == frozenset()


def test_no_secrets_leave_a_text_as_it_is() -> None:
    assert Secrets().scrub("anything at all") == "anything at all"
