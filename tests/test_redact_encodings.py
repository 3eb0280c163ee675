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
