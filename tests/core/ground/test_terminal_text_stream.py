"""TerminalTextStream: text cleaned as it streams is the text cleaned whole, wherever the pieces are cut.

Generated texts mix plain text and unicode with every family of sequence (CSI, OSC, DCS, SOS, PM, APC, SS2/SS3,
two-byte escapes, their 8-bit C1 forms), BEL and ST terminators, sequences cut off, lone ESCs and CRs; each is cut
at every position and at random sets of positions, and the stream's output must equal `clean_terminal_text(whole)`.
"""

from __future__ import annotations

import random

import pytest

from gemini_tui.core.ground.terminal_text import TerminalTextStream, clean_terminal_text, has_terminal_controls

PIECES = [
    # CSI: colours, modes, mouse tracking, cursor moves; 8-bit CSI
    "\x1b[31m", "\x1b[0m", "\x1b[1;38;5;208m", "\x1b[?1000h", "\x1b[?1049h", "\x1b[2J", "\x1b[10;20H", "\x1b[ q",
    "\x9b31m", "\x9b2J",
    # OSC: titles, clipboard, hyperlinks, with BEL, ST and 8-bit terminators; 8-bit OSC
    "\x1b]0;PWNED-TITLE\x07", "\x1b]2;title\x1b\\", "\x1b]52;c;cHduZWQ=\x07", "\x1b]8;;http://x/\x1b\\link\x1b]8;;\x1b\\",
    "\x9d0;pwned\x9c", "\x1b]0;t\x9c",
    # DCS, SOS, PM, APC (7-bit and 8-bit)
    "\x1bP1$r0m\x1b\\", "\x90q#0\x9c", "\x1bXsos\x1b\\", "\x98sos\x9c", "\x1b^pm\x1b\\", "\x9epm\x9c",
    "\x1b_Gf=100;AAAA\x1b\\", "\x9fapc\x9c",
    # SS2/SS3, two-byte escapes, charset designations
    "\x1bNa", "\x1bOP", "\x8e", "\x8f", "\x1bc", "\x1b7", "\x1b(0", "\x1b(B", "\x1b=", "\x1b#8",
    # cut off, lone, and the characters that end or begin things
    "\x1b[12", "\x1b]0;half", "\x1bPhalf", "\x1b", "\x9b", "\x9d", "\x07", "\x1b\\", "\x9c", "\r", "\r\n", "\n",
    "\t", "\x00", "\x7f", "\x85",
    # plain text and unicode
    "hello", " ", "world ", "é", "日本語", "🙂", "[31m", "]0;", "1m", "WNED-TITLE", "\\",
]


def generated(rng: random.Random) -> str:
    if rng.random() < 0.15:  # raw bytes read as Latin-1: every C0 and C1 control, in any order
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 30))).decode("latin-1")
    return "".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 9)))


def streamed(pieces: list[str], **options: bool) -> str:
    stream = TerminalTextStream(**options)
    shown = "".join(stream.feed(piece) for piece in pieces)
    # nothing is held that the whole text, read at once, would not hold: what can be shown is shown now
    whole = "".join(pieces)
    assert stream.held == whole[TerminalTextStream._safe_end(whole):], pieces
    return shown + stream.flush()


def texts() -> list[str]:
    rng = random.Random(14)
    return [generated(rng) for _ in range(400)]


@pytest.mark.parametrize("options", [{}, {"keep_sgr": True, "keep_cr": True}], ids=["model text", "command output"])
def test_every_cut_of_generated_texts_cleans_as_the_whole(options: dict[str, bool]) -> None:
    checked = 0
    for text in texts():
        whole = clean_terminal_text(text, **options)
        for cut in range(len(text) + 1):
            assert streamed([text[:cut], text[cut:]], **options) == whole, (text, cut)
            checked += 1
        assert streamed(list(text), **options) == whole, text  # one character at a time
    assert checked > 8000


def test_random_multi_cuts_clean_as_the_whole() -> None:
    rng = random.Random(7)
    for text in texts():
        whole = clean_terminal_text(text)
        for _ in range(5):
            cuts = sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, rng.randrange(1, 6))))
            pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
            assert streamed(pieces) == whole, (text, cuts)


@pytest.mark.parametrize(("first", "second"), [
    ("say \x1b]0;P", "WNED-TITLE\x07 hi"), ("\x1b[3", "1mred"), ("\x9b3", "1mred"), ("\x1b[?10", "00hclick"),
    ("\x1b]8;;http://x/\x1b", "\\link\x1b]8;;\x1b\\"), ("\x1b", "[31mred"), ("line\r", "\nnext"),
])
def test_the_reported_splits_leave_no_fragment(first: str, second: str) -> None:
    stream = TerminalTextStream()
    shown = stream.feed(first)
    shown += stream.feed(second)
    shown += stream.flush()
    assert shown == clean_terminal_text(first + second)
    assert not has_terminal_controls(shown)
    for fragment in ("WNED-TITLE", "1m", "00h", "http", "␍"):
        assert fragment not in shown


def test_plain_text_passes_at_once_and_a_held_tail_is_flushed_not_lost() -> None:
    stream = TerminalTextStream()
    assert stream.feed("plain text, no escapes\n") == "plain text, no escapes\n" and stream.held == ""
    assert stream.feed("colour \x1b[31mred\x1b[") == "colour red"  # only the unfinished sequence waits
    assert stream.held == "\x1b["
    assert stream.flush() == "" and stream.held == ""  # a CSI cut off at the end is dropped, as when whole
    assert stream.feed("bell\x07 and a lone ESC \x1b") == "bell␇ and a lone ESC "
    assert stream.flush() == "␛"  # what was held is shown when the stream ends
    stream.feed("\x1b]0;never ends")
    stream.reset()  # a discarded answer takes its held text with it
    assert stream.flush() == ""


def test_long_open_sequences_fed_in_small_pieces() -> None:
    """A sequence that stays open over many pieces (a long title, a long parameter list) is held as it grows and
    resolved by whatever ends it: a terminator, a line's end, a byte that breaks it, or the end of the stream."""
    rng = random.Random(21)
    openers = [("\x1b]0;", "title "), ("\x9d", "t"), ("\x1bP", "q#0;"), ("\x9f", "apc"), ("\x1b[", "1;2"),
               ("\x9b", "38;5;"), ("\x1b[1", "  "), ("\x1b", "(")]
    endings = ["\x07", "\x1b\\", "\x9c", "\n", "m", "\x1b[31m", "B", "\x01", "é", "", "\x1b", "7", ";", " 7"]
    for _ in range(300):
        intro, body = rng.choice(openers)
        text = "before " + intro + body * rng.randrange(1, 200) + rng.choice(endings) + rng.choice(["", " after"])
        cuts = sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, rng.randrange(2, 40))))
        pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        assert streamed(pieces) == clean_terminal_text(text), (text, cuts)
