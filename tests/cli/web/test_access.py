"""Who gets a page of `gemini-tui serve`: loopback binds answer loopback names only; any other bind needs the
token; a WebSocket must come from the page the server served. Checked over generated hosts and requests."""

from __future__ import annotations

import itertools

import pytest

from gemini_tui.cli.web.access import Access, host_part, is_loopback

LOOPBACK = ["127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost", "LOCALHOST", "app.localhost"]
ELSEWHERE = ["0.0.0.0", "::", "192.0.2.2", "10.0.0.1", "fd00::2", "example.org", "localhost.example.org",
             "127.0.0.1.nip.io", ""]


@pytest.mark.parametrize("host", LOOPBACK)
def test_loopback_hosts(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize("host", ELSEWHERE)
def test_hosts_others_can_reach(host: str) -> None:
    assert not is_loopback(host)


@pytest.mark.parametrize(("authority", "host"), [("127.0.0.1:8000", "127.0.0.1"), ("[::1]:80", "::1"),
                                                 ("example.org", "example.org"), ("", "")])
def test_host_part(authority: str, host: str) -> None:
    assert host_part(authority) == host


def _authorities(host: str) -> list[str]:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return [shown, f"{shown}:8000"]


@pytest.mark.parametrize("bind", ["127.0.0.1", "::1", "localhost"])
def test_a_loopback_bind_answers_loopback_names_without_a_token(bind: str) -> None:
    access = Access(bind)
    assert not access.needs_token and access.page_token() == ""
    for host in LOOPBACK:
        for authority in _authorities(host):
            assert access.refusal(authority, None) is None, authority
    for host in ELSEWHERE:  # a rebinding name pointed at 127.0.0.1, or a proxy's: refused
        for authority in _authorities(host):
            assert access.refusal(authority, None) is not None, authority


@pytest.mark.parametrize("bind", ["0.0.0.0", "::", "192.0.2.2", "fd00::2", "example.org"])
def test_any_other_bind_needs_the_token(bind: str) -> None:
    access = Access(bind)
    assert access.needs_token and access.page_token() == access.token and len(access.token) >= 32
    for host, token in itertools.product([*LOOPBACK, *ELSEWHERE], [None, "", "wrong", access.token[:-1],
                                                                   access.token + "x", access.token.upper()]):
        assert access.refusal(f"{host}:8000", token) is not None
    for host in [*LOOPBACK, *ELSEWHERE]:
        assert access.refusal(f"{host}:8000", access.token) is None


def test_every_server_has_its_own_token() -> None:
    assert len({Access("0.0.0.0").token for _ in range(50)}) == 50


@pytest.mark.parametrize("bind", ["127.0.0.1", "0.0.0.0"])
def test_the_socket_must_come_from_the_served_page(bind: str) -> None:
    access = Access(bind)
    token = access.page_token()
    host = "127.0.0.1:8000"
    assert access.socket_refusal(host, f"http://{host}", token) is None
    assert access.socket_refusal(host, f"https://{host}", token) is None
    for origin in [None, "", "null", "http://evil.example", f"http://{host}.evil.example", "http://127.0.0.1:8001",
                   "http://localhost:8000", f"file://{host}", f"ws://{host}"]:
        assert access.socket_refusal(host, origin, token) is not None, origin
    if token:
        assert access.socket_refusal(host, f"http://{host}", "wrong") is not None
