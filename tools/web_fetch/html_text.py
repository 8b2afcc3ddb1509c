"""HTML turned into readable Markdown-ish text (stdlib html.parser): headings, links and lists kept, chrome dropped."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import urljoin

# Content of these elements is never text a reader wants.
_DROP = frozenset({"script", "style", "nav", "noscript", "template", "svg", "iframe", "head", "form", "button",
                   "select", "object", "canvas"})
_BLOCK = frozenset({"p", "div", "section", "article", "main", "header", "footer", "aside", "blockquote", "table",
                    "tr", "figure", "figcaption", "dl", "dt", "dd", "address", "details", "summary", "hr"})
_VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source", "track",
                   "wbr"})
_SPACES = re.compile(r"[ \t\r\n\f\v]+")


@dataclass(frozen=True)
class ReadableText:
    title: str
    text: str


class _Reader(HTMLParser):
    def __init__(self, base_url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base_url = base_url
        self.out: list[str] = []
        self.title = ""
        self._in_title = False
        self._drop: str | None = None  # the dropped element we are inside, and how deeply it nests
        self._drop_depth = 0
        self._stack: list[str] = []
        self._lists: list[list[int | str]] = []  # per open list: [kind, counter]
        self._link: tuple[str, int] | None = None  # href, index in out where its text starts
        self._pre = 0

    # ----- helpers -----------------------------------------------------------------------------------------
    def _newlines(self, count: int) -> None:
        if not self.out:
            return
        tail = "".join(self.out[-4:]).rstrip(" ")
        have = len(tail) - len(tail.rstrip("\n"))
        if have < count:
            self.out.append("\n" * (count - have))

    def _write(self, text: str) -> None:
        if self._pre:
            self.out.append(text)
            return
        text = _SPACES.sub(" ", text)
        if not text.strip():
            if self.out and not self.out[-1].endswith((" ", "\n")):
                self.out.append(" ")
            return
        if self.out and self.out[-1].endswith("\n"):
            text = text.lstrip()
        self.out.append(text)

    # ----- parser callbacks ------------------------------------------------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        if self._drop is not None or tag in _DROP:
            # count only the dropped element's own name, so unclosed tags inside it cannot swallow the page
            if self._drop is None:
                self._drop = tag
            if tag == self._drop:
                self._drop_depth += 1
            return
        if tag not in _VOID:
            self._stack.append(tag)
        attributes = dict(attrs)
        if re.fullmatch(r"h[1-6]", tag):
            self._newlines(2)
            self.out.append("#" * int(tag[1]) + " ")
        elif tag in ("ul", "ol"):
            self._newlines(1 if self._lists else 2)
            self._lists.append([tag, 0])
        elif tag == "li":
            self._newlines(1)
            depth = max(len(self._lists) - 1, 0)
            marker = "-"
            if self._lists and self._lists[-1][0] == "ol":
                self._lists[-1][1] = int(self._lists[-1][1]) + 1
                marker = f"{self._lists[-1][1]}."
            self.out.append("  " * depth + marker + " ")
        elif tag == "pre":
            self._newlines(2)
            self.out.append("```\n")
            self._pre += 1
        elif tag == "br":
            self.out.append("\n")
        elif tag in _BLOCK:
            self._newlines(2 if tag in ("p", "blockquote", "table", "hr") else 1)
        elif tag == "a" and attributes.get("href"):
            self._link = (urljoin(self.base_url, attributes["href"] or ""), len(self.out))
        elif tag == "img" and attributes.get("alt"):
            self._write(f"[image: {attributes['alt']}]")
        elif tag in ("td", "th") and self.out and not self.out[-1].endswith("\n"):
            self.out.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if self._drop is not None:
            if tag == self._drop:
                self._drop_depth -= 1
                if self._drop_depth == 0:
                    self._drop = None
            return
        if tag in self._stack:  # tolerate unclosed tags: pop to the matching one
            while self._stack and self._stack.pop() != tag:
                pass
        if re.fullmatch(r"h[1-6]", tag) or tag in ("p", "blockquote"):
            self._newlines(2)
        elif tag in ("ul", "ol") and self._lists:
            self._lists.pop()
            self._newlines(1 if self._lists else 2)
        elif tag == "pre" and self._pre:
            self._pre -= 1
            if self.out and not self.out[-1].endswith("\n"):
                self.out.append("\n")
            self.out.append("```")
            self._newlines(2)
        elif tag == "a" and self._link is not None:
            href, start = self._link
            self._link = None
            label = "".join(self.out[start:]).strip()
            del self.out[start:]
            if href.startswith(("javascript:", "#")) or not label:
                self._write(label)
            elif label == href:
                self._write(f"<{href}>")
            else:
                self._write(f"[{label}]({href})")
        elif tag in _BLOCK or tag == "li":
            self._newlines(1)

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if self._drop is not None:
            return
        self._write(data)


def html_to_text(html: str, base_url: str = "") -> ReadableText:
    reader = _Reader(base_url)
    reader.feed(html)
    reader.close()
    text = "".join(reader.out)
    lines = [line.rstrip() for line in text.split("\n")]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    return ReadableText(_SPACES.sub(" ", reader.title).strip(), text)
