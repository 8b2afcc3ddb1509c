"""Ground room: the small rules of the messages every room writes: a count with its noun, and sentences joined
with exactly one full stop between them (a quoted error that ends in a full stop gave "information.. Run")."""

from __future__ import annotations

ENDINGS = (".", "!", "?", "…", ":")


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`1 session`, `2 sessions`, `0 sessions`."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def there_are(n: int, noun: str, plural: str | None = None) -> str:
    """`there is 1 session`, `there are 3 sessions`, `there are no sessions`."""
    if n == 0:
        return f"there are no {plural or noun + 's'}"
    return f"there {'is' if n == 1 else 'are'} {counted(n, noun, plural)}"


def sentence(text: str) -> str:
    """`text` ending in exactly one stop: a full stop added when it has none."""
    text = text.strip()
    while text.endswith("..") and not text.endswith("..."):
        text = text[:-1]
    return text if not text or text.endswith(ENDINGS) else text + "."


def sentences(*parts: str) -> str:
    """The parts as sentences, one space apart; empty parts are left out."""
    return " ".join(sentence(part) for part in parts if part.strip())
