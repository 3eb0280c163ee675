"""Every error kind, for every wire format, through a real loopback server."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from devtools.simulator import Fault, Simulator
from fake_keys import fake_key

from resume_auditor.providers.base import ChatRequest, ErrorKind, Provider, ProviderError
from resume_auditor.providers.capabilities import CapabilityCache
from resume_auditor.providers.errors import parse_duration, transport_error
from resume_auditor.providers.registry import make_provider

KEY = fake_key("errors")
WIRES = ("openai", "anthropic", "gemini", "openrouter", "azure", "openai-compatible")
REQUEST = ChatRequest("sim-model", "system", "Resume 1: a Resume 2: bb Job description: c")


@pytest.fixture
def sim() -> Iterator[Simulator]:
    with Simulator(api_key=KEY) as s:
        yield s


def _provider(pid: str, base_url: str, key: str = KEY, timeout_s: float = 10.0) -> Provider:
    return make_provider(
        pid, base_url=base_url, api_key=key, timeout_s=timeout_s, capabilities=CapabilityCache()
    )


def _error(provider: Provider, request: ChatRequest = REQUEST) -> ProviderError:
    async def go() -> ProviderError:
        try:
            await provider.chat(request)
        except ProviderError as exc:
            return exc
        finally:
            await provider.aclose()
        raise AssertionError("the request did not fail")

    return asyncio.run(go())


@pytest.mark.parametrize("pid", WIRES)
def test_a_wrong_key_is_an_auth_error_that_never_shows_the_key(pid: str, sim: Simulator) -> None:
    wrong = fake_key("wrong")
    err = _error(_provider(pid, sim.url_for(pid), key=wrong))
    assert err.kind is ErrorKind.AUTH and err.fatal and not err.retryable
    assert "rejected the API key" in err.message
    assert wrong not in err.message and wrong[-4:] + "." not in err.message


@pytest.mark.parametrize("pid", WIRES)
def test_out_of_credits_is_quota_and_never_retried(pid: str, sim: Simulator) -> None:
    sim.inject(Fault(kind="quota"))
    err = _error(_provider(pid, sim.url_for(pid)))
    assert err.kind is ErrorKind.QUOTA, err.message
    assert not err.retryable and err.fatal
    assert "out of credits or quota" in err.message


def test_openai_429_insufficient_quota_is_not_a_rate_limit(sim: Simulator) -> None:
    sim.inject(Fault(kind="quota"))
    err = _error(_provider("openai", sim.url_for("openai")))
    assert err.status == 429 and err.kind is ErrorKind.QUOTA


def test_openrouter_402_is_out_of_credits(sim: Simulator) -> None:
    sim.inject(Fault(kind="quota"))
    err = _error(_provider("openrouter", sim.url_for("openrouter")))
    assert err.status == 402 and err.kind is ErrorKind.QUOTA


@pytest.mark.parametrize(
    ("pid", "wait", "expected"),
    [
        ("openai", 2.5, 2.5),  # retry-after header
        ("openrouter", 2.5, 2.5),
        ("openai-compatible", 7.0, 7.0),
        ("azure", 1.25, 1.25),  # retry-after-ms
        ("anthropic", 2.2, 3.0),  # retry-after in whole seconds
        ("gemini", 12.5, 12.5),  # error.details[].retryDelay "12.5s"
    ],
)
def test_rate_limits_carry_the_servers_wait(
    pid: str, wait: float, expected: float, sim: Simulator
) -> None:
    sim.inject(Fault(kind="rate_limit", retry_after_s=wait))
    err = _error(_provider(pid, sim.url_for(pid)))
    assert err.kind is ErrorKind.RATE_LIMIT and err.retryable and not err.fatal
    assert err.retry_after_s == pytest.approx(expected)


def test_gemini_daily_quota_looks_like_a_rate_limit_but_is_quota(sim: Simulator) -> None:
    sim.inject(Fault(kind="quota"))
    err = _error(_provider("gemini", sim.url_for("gemini")))
    assert err.status == 429 and err.kind is ErrorKind.QUOTA


@pytest.mark.parametrize(("pid", "status"), [("anthropic", 529), ("openai", 503), ("gemini", 503)])
def test_overloaded_is_retryable(pid: str, status: int, sim: Simulator) -> None:
    sim.inject(Fault(kind="overloaded"))
    err = _error(_provider(pid, sim.url_for(pid)))
    assert (err.kind, err.status) == (ErrorKind.OVERLOADED, status)
    assert err.retryable


@pytest.mark.parametrize("pid", WIRES)
def test_a_500_is_a_server_error_worth_retrying(pid: str, sim: Simulator) -> None:
    sim.inject(Fault(500))
    err = _error(_provider(pid, sim.url_for(pid)))
    assert err.kind is ErrorKind.SERVER and err.retryable


@pytest.mark.parametrize("pid", WIRES)
def test_an_unknown_model_is_not_found(pid: str, sim: Simulator) -> None:
    sim.inject(Fault(kind="not_found"))
    err = _error(_provider(pid, sim.url_for(pid)))
    assert err.kind is ErrorKind.NOT_FOUND and err.fatal
    assert "Check the model id" in err.message


@pytest.mark.parametrize("pid", WIRES)
def test_a_prompt_too_long_is_a_context_error(pid: str, sim: Simulator) -> None:
    sim.inject(Fault(kind="context"))
    err = _error(_provider(pid, sim.url_for(pid)))
    assert err.kind is ErrorKind.CONTEXT and not err.retryable
    assert "longer than" in err.message


@pytest.mark.parametrize("pid", WIRES)
def test_a_refusal_is_reported_and_its_paid_answer_kept(pid: str, sim: Simulator) -> None:
    sim.inject(Fault(kind="refuse"))
    err = _error(_provider(pid, sim.url_for(pid)))
    assert err.kind is ErrorKind.REFUSED and not err.retryable
    assert err.raw is not None  # the body, for the record


def test_a_content_filter_rejection_is_refused(sim: Simulator) -> None:
    sim.inject(Fault(kind="filter"))
    err = _error(_provider("azure", sim.url_for("azure")))
    assert err.kind is ErrorKind.REFUSED and err.status == 400


def test_openrouter_errors_inside_a_200_are_errors(sim: Simulator) -> None:
    sim.inject(Fault(kind="upstream"))
    err = _error(_provider("openrouter", sim.url_for("openrouter")))
    assert err.kind is ErrorKind.SERVER and err.retryable


@pytest.mark.parametrize("pid", WIRES)
def test_a_server_that_hangs_is_a_timeout(pid: str, sim: Simulator) -> None:
    sim.inject(Fault(kind="hang", delay_s=5.0))
    err = _error(_provider(pid, sim.url_for(pid), timeout_s=0.3))
    assert err.kind is ErrorKind.TIMEOUT and err.retryable


@pytest.mark.parametrize("pid", WIRES)
def test_malformed_and_truncated_bodies(pid: str, sim: Simulator) -> None:
    sim.inject(Fault(kind="malformed"))
    err = _error(_provider(pid, sim.url_for(pid)))
    assert err.kind is ErrorKind.MALFORMED and err.retryable
    sim.inject(Fault(kind="truncate"))
    err = _error(_provider(pid, sim.url_for(pid)))
    assert err.kind is ErrorKind.MALFORMED and "cut off" in err.message


@pytest.mark.parametrize("pid", WIRES)
def test_a_dropped_connection_is_retryable(pid: str, sim: Simulator) -> None:
    sim.inject(Fault(kind="drop"))
    err = _error(_provider(pid, sim.url_for(pid)))
    assert err.kind is ErrorKind.CONNECTION and err.retryable


@pytest.mark.parametrize("pid", WIRES)
def test_a_slow_answer_still_arrives(pid: str, sim: Simulator) -> None:
    sim.inject(Fault(kind="slow", delay_s=0.3))
    provider = _provider(pid, sim.url_for(pid))

    async def go() -> str:
        try:
            return (await provider.chat(REQUEST)).text
        finally:
            await provider.aclose()

    assert asyncio.run(go())


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("pid", WIRES)
def test_connection_refused_says_is_the_server_running(pid: str) -> None:
    base = f"http://127.0.0.1:{_closed_port()}"
    err = _error(_provider(pid, base + ("/v1" if pid in ("openai", "openai-compatible") else "")))
    assert err.kind is ErrorKind.CONNECTION and err.retryable
    assert "Is the server running" in err.message


def test_an_unknown_host_asks_whether_the_computer_is_online() -> None:
    exc = httpx.ConnectError("[Errno -2] Name or service not known")
    err = transport_error(exc, "OpenAI", "https://api.openai.invalid/v1/chat/completions")
    assert err.kind is ErrorKind.CONNECTION
    assert "Is this computer online" in err.message and "api.openai.invalid" in err.message
    exc = httpx.ConnectError("[Errno 101] Network is unreachable")
    assert "offline" in transport_error(exc, "OpenAI", "https://x/y").message


def test_an_address_without_a_scheme_is_a_plain_input_error() -> None:
    # refused when the provider is made, before any request could be queued or sent
    with pytest.raises(ProviderError) as caught:
        _provider("openai-compatible", "localhost:11434/v1")
    err = caught.value
    assert err.kind is ErrorKind.BAD_REQUEST
    assert "http://" in err.message and "base URL" in err.message


def test_https_to_a_plain_http_server_is_a_tls_error(sim: Simulator) -> None:
    base = sim.base_url.replace("http://", "https://")
    err = _error(_provider("openai-compatible", base))
    assert err.kind is ErrorKind.TLS and err.fatal and not err.retryable
    assert "secure connection" in err.message


def _self_signed(tmp_path: Path) -> ssl.SSLContext:
    pytest.importorskip("cryptography", reason="cryptography makes the test certificate")
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    return context


@pytest.mark.parametrize("pid", ["openai-compatible", "anthropic", "gemini"])
def test_an_untrusted_certificate_is_a_tls_error(pid: str, tmp_path: Path) -> None:
    with Simulator(ssl_context=_self_signed(tmp_path)) as sim:
        assert sim.root_url.startswith("https://")
        err = _error(_provider(pid, sim.url_for(pid)))
    assert err.kind is ErrorKind.TLS
    assert "certificate" in err.message.lower()


def test_a_key_echoed_in_any_error_body_is_redacted(sim: Simulator) -> None:
    google = fake_key(prefix="AIza")
    body = f'{{"error": {{"message": "bad request from key {KEY} ({google})"}}}}'
    sim.inject(Fault(400, body))
    err = _error(_provider("openai", sim.url_for("openai")))
    assert KEY not in err.message and google not in err.message
    assert "[redacted]" in err.message


def test_durations_in_retry_hints() -> None:
    assert parse_duration("6m0s") == 360.0
    assert parse_duration("20ms") == pytest.approx(0.02)
    assert parse_duration("1.5s") == 1.5
    assert parse_duration("2") == 2.0
    assert parse_duration("soon") is None
