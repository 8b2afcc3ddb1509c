"""Who may open a page of `gemini-tui serve`: whoever opens one can run commands as the user, so a page is given
only to a request that comes the way the server was started for.

- bound to loopback (the default): the request must name a loopback host (a web page elsewhere that points its
  own name at 127.0.0.1, DNS rebinding, is refused);
- bound to anything else: the request must carry the token printed at start (`?token=` on the page, then in the
  WebSocket's path);
- always: the WebSocket must come from the page itself (its Origin is the server), never from another site the
  browser happens to have open."""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from dataclasses import dataclass, field
from urllib.parse import urlsplit

LOOPBACK_NAMES = frozenset({"localhost", "localhost.", "ip6-localhost", "ip6-loopback"})


def is_loopback(host: str) -> bool:
    """A host name or address (IPv6 with or without brackets) that only this machine can reach."""
    host = host.strip().lower().removeprefix("[").removesuffix("]")
    if host in LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def host_part(authority: str) -> str:
    """`127.0.0.1:8000` -> `127.0.0.1`, `[::1]:8000` -> `::1`, `example.org` -> `example.org`."""
    try:
        return urlsplit(f"//{authority}").hostname or ""
    except ValueError:
        return ""


@dataclass
class Access:
    """The rules for one server: `bind` is the --host it listens on."""

    bind: str
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))

    @property
    def loopback(self) -> bool:
        return is_loopback(self.bind)

    @property
    def needs_token(self) -> bool:
        return not self.loopback

    def page_token(self) -> str:
        """What goes into the page's URLs: the token when one is needed, else nothing."""
        return self.token if self.needs_token else ""

    def refusal(self, host_header: str | None, token: str | None) -> str | None:
        """Why a request for the page is refused, or None when it may have it."""
        if self.loopback and not is_loopback(host_part(host_header or "")):
            return "this server answers on loopback addresses only (open it as 127.0.0.1 or localhost)"
        if self.needs_token and not hmac.compare_digest((token or "").encode(), self.token.encode()):
            return ("this server needs the token printed when it started: open the URL it printed "
                    "(…/?token=…)")
        return None

    def socket_refusal(self, host_header: str | None, origin: str | None, token: str | None) -> str | None:
        """As `refusal`, and the WebSocket must come from a page this server served (same scheme-less origin)."""
        if (why := self.refusal(host_header, token)) is not None:
            return why
        if not origin:
            return "no Origin: only the page served here may connect"
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or parts.netloc.lower() != (host_header or "").lower():
            return f"the connection comes from another site ({origin})"
        return None
