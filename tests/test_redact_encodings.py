"""Redaction finds the key we hold in every form a server may echo it, and only there."""

from __future__ import annotations

import base64
import json
from urllib.parse import quote

import pytest
from devtools.simulator import ECHO_ENCODINGS, echo_key
from fake_keys import fake_key

from resume_auditor.domain.study import url_credentials
from resume_auditor.providers.redact import MASK, redact, redact_json

KEY = "sk-" + fake_key("redact").replace("-", "")[:30] + "-x/y"


def _core(key: str) -> str:
    return key[3:-4]


@pytest.mark.parametrize("how", ECHO_ENCODINGS)
def test_every_echo_form_is_masked(how: str) -> None:
    text = f"upstream said: {echo_key(KEY, how)} (end)"
    out = redact(text, KEY)
    assert MASK in out
    assert out.startswith("upstream said: ") and out.endswith(" (end)")


@pytest.mark.parametrize(
    "shown",
    [
        json.dumps({"k": KEY}).replace("/", "\\/"),
        KEY.replace("-", "\\u002D"),
        quote(KEY, safe=""),
        KEY.replace("-", "&#45;"),
        base64.b64encode(f"x:{KEY}:y".encode()).decode(),
        base64.b64encode(f"xy{KEY}".encode()).decode(),
        "\n".join(base64.b64encode(KEY.encode()).decode()[i : i + 10] for i in range(0, 60, 10)),
        KEY[:9] + "\\n" + KEY[9:],
    ],
)
def test_escaped_encoded_and_wrapped_keys_are_masked(shown: str) -> None:
    out = redact(shown, KEY)
    assert _core(KEY) not in out
    for chunk in (base64.b64encode(KEY.encode()).decode()[4:20],):
        assert chunk not in out.replace("\n", "")


def test_ordinary_words_are_left_alone_in_answers() -> None:
    answer = "A task-oriented analyst; basic understanding of SQL. <answer>first</answer>"
    assert redact(answer, KEY, shapes=False) == answer
    assert redact_json({"a": [answer, 1]}, KEY, shapes=False) == {"a": [answer, 1]}


def test_url_credentials_are_split_off() -> None:
    clean, found = url_credentials("https://user:pa%40ss@host:8/v1?api-key=K1&api-version=2")
    assert clean == "https://host:8/v1?api-version=2" and found == ["pa@ss", "K1"]
    assert url_credentials("https://K2@host/v1") == ("https://host/v1", ["K2"])
    for name in ("key", "token", "access_token", "sig", "code", "x-api-key", "secret"):
        assert url_credentials(f"http://h/v1?{name}=S")[1] == ["S"]
    assert url_credentials("http://localhost:11434/v1") == ("http://localhost:11434/v1", [])


def test_nested_upper_cased_and_partial_echoes_are_masked() -> None:
    from resume_auditor.providers.redact import PARTIAL_MIN

    once = quote(KEY, safe="")
    for shown in (
        quote(once.replace("-", "%2D"), safe=""),  # URL-encoded twice
        KEY.upper(),
        KEY.replace("-", "&amp;#45;"),  # HTML-escaped twice
        "..." + KEY[-PARTIAL_MIN:],  # the key's tail
        KEY[5 : 5 + PARTIAL_MIN + 7],  # a piece from its middle
    ):
        out = redact(f"seen: {shown} (end)", KEY, shapes=False)
        assert out.startswith("seen: ") and out.endswith(" (end)"), out
        assert MASK in out
        plain = out.lower()
        assert not any(
            KEY[i : i + PARTIAL_MIN].lower() in plain for i in range(len(KEY) - PARTIAL_MIN)
        )
    # a piece shorter than the promise is a vendor's hint ("sk-...wxyz"), left alone
    short = KEY[-(PARTIAL_MIN - 1) :]
    assert redact(f"key ending {short}", KEY, shapes=False) == f"key ending {short}"


def test_credential_shaped_path_segments_query_values_and_fragments() -> None:
    from resume_auditor.domain.study import credential_shaped, path_credentials

    key = KEY[:-4]  # a key fit for an address (no slash)
    assert credential_shaped(key) and credential_shaped("AIza" + "x1Y2" * 8)
    assert credential_shaped("aZ3kR9pQ2mX7vB4nT8wL6yC1")  # random, no vendor prefix
    for name in (
        "v1",
        "openai",
        "Meta-Llama-3.1-70B-Instruct",
        "0123456789abcdef0123",  # a short hexadecimal id
        "507f1f77bcf86cd799439011",  # a 24-character object id
        "6f1c2b9e-8d3a-4f5e-9b7c-1a2b3c4d5e6f",  # a UUID: names a deployment or account
        "my-gpt4-deployment",
        "textembeddingada002",
        "aaaaaaaa11111111aaaaaaaa11111111",  # not spread out like a random key
        "gpt-4o-mini-2024-07-18",
    ):
        assert not credential_shaped(name), name
    assert path_credentials(f"http://h/{key}/v1") == [key]
    for path in ("/v1", "/api/v1", "/openai/deployments/my-gpt4", "/openai/v1"):
        assert path_credentials(f"https://h{path}") == [], path
    assert (
        path_credentials("https://gateway.ai.cloudflare.com/v1/0123456789abcdef0123/g/openai") == []
    )
    assert url_credentials(f"http://h/v1#{key}") == ("http://h/v1", [key])
    assert url_credentials(f"http://h/v1#token={key}") == ("http://h/v1", [key])
    assert url_credentials(f"http://h/v1?x={key}&api-version=2") == (
        "http://h/v1?api-version=2",
        [key],
    )
    assert url_credentials("http://h/v1#section") == ("http://h/v1#section", [])


@pytest.mark.parametrize("seed", range(20))
def test_keys_without_a_vendor_prefix_are_caught_in_any_place_of_the_address(seed: int) -> None:
    """Azure's 32 hexadecimal digits, Together's 64, base36 and base62 keys: credential-
    shaped wherever they sit, unless the segment before names an id (`/accounts/<id>`)."""
    import random
    import string

    from resume_auditor.domain.study import credential_shaped, path_credentials
    from resume_auditor.providers.redact import redact

    rng = random.Random(seed)
    keys = [
        "".join(rng.choice("0123456789abcdef") for _ in range(32)),
        "".join(rng.choice("0123456789ABCDEF") for _ in range(64)),
        "".join(rng.choice(string.ascii_lowercase + string.digits) for _ in range(32)),
        "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(40)),
    ]
    for key in keys:
        assert credential_shaped(key), key
        assert path_credentials(f"https://r.openai.azure.com/{key}/openai/v1") == [key]
        assert path_credentials(f"https://h/openai/deployments/x/{key}") == [key]
        assert url_credentials(f"https://h/openai/v1?x={key}")[1] == [key]
        assert url_credentials(f"https://h/openai/v1#{key}")[1] == [key]
        # the redactor masks it in a message, even when it does not know the key
        message = f"Access denied due to invalid subscription key {key}. Make sure"
        assert key.lower() not in redact(message).lower()
    hex_id = keys[0]
    # ids that the address names as ids stay: Cloudflare Workers AI, AI Gateway
    assert path_credentials(f"https://api.cloudflare.com/client/v4/accounts/{hex_id}/ai/v1") == []
    assert path_credentials(f"https://gateway.ai.cloudflare.com/v1/{hex_id}/g/openai") == []
    assert url_credentials(f"https://h/v1?project_id={hex_id}")[1] == []
    # ... but a random mixed-case key is a key whatever names it
    assert path_credentials(f"https://h/accounts/{keys[3]}/v1") == [keys[3]]
