"""A change inside a long wrapped line is brought into view, whatever the line, the place of the change and the
terminal: generated lines (ASCII, tabs, wide characters; 300 to 17,000 cells) at generated widths and heights,
unified and side by side: on opening, with ] and [, after v and w, and after a resize."""

from __future__ import annotations

import random
import string

from textual.pilot import Pilot

from gemini_tui.app.diff.view import DiffView
from tests.app.test_diff_review_reading import Harness, plain

SIZES = [(60, 15), (80, 24), (100, 30), (121, 40), (151, 45), (200, 24)]


def shown(view: DiffView) -> tuple[str, str]:
    """The code on screen, its wrapped rows joined, per side: (unified, "") or (old half, new half). Cut by cells
    (a wide character takes two), each half as wide as the other."""
    gutter, width = view._gutter_width(), view.view_width
    strips = [view.render_line(y) for y in range(view.size.height)]
    if not view.showing_split:
        return "".join(strip.crop(gutter, width).text for strip in strips), ""
    half = width // 2
    return ("".join(strip.crop(gutter, half).text for strip in strips),
            "".join(strip.crop(half + gutter, 2 * half).text for strip in strips))


def generated_line(rng: random.Random, case: int) -> tuple[str, str, str, str]:
    """A long line and its edited version: a marker of its own on each side, somewhere along it."""
    length = rng.choice((300, 2000, 6000, 17000))
    alphabet = string.ascii_lowercase + ' ,:"{}' + ("\t界" if case % 3 == 0 else "")
    line = "".join(rng.choices(alphabet, k=length))
    at = rng.choice((0, rng.randint(0, length), length))
    old_mark, new_mark = f"OLD{case:02d}X", f"NEW{case:02d}Y"
    return line[:at] + old_mark + line[at:], line[:at] + new_mark + line[at:], old_mark, new_mark


async def test_generated_long_line_changes_are_brought_into_view_on_each_side() -> None:
    rng = random.Random(22)
    for case in range(5):
        await walk(case, rng)


async def walk(case: int, rng: random.Random) -> None:
    """One generated line through open, a resize to each of two sizes, and ] [ v w at each."""
    old, new, old_mark, new_mark = generated_line(rng, case)
    context = "".join(f"c{i}\n" for i in range(rng.choice((0, 1, 5))))
    sizes = rng.sample(SIZES, 2)
    app = Harness(plain(f"{context}{old}\ntail\n", f"{context}{new}\ntail\n"))
    async with app.run_test(size=sizes[0]) as pilot:
        await pilot.pause()
        view = app.screen.query_one(DiffView)

        async def check(keys: tuple[str, ...], old_seen: bool | None, new_seen: bool | None,
                        size: tuple[int, int]) -> None:
            """After `keys`: each marker asked for is on screen (None: when side by side shows both halves)."""
            for key in keys:
                await pilot.press(key)
            await settle(pilot)
            text = "".join(shown(view))
            where = (case, size, keys, len(old), view.showing_split, view.wrap)
            assert old_mark in text or not (view.showing_split if old_seen is None else old_seen), where
            assert new_mark in text or not (view.showing_split if new_seen is None else new_seen), where
            assert old_mark in text or new_mark in text, where

        await check((), True, None, sizes[0])  # opened at the removed text (both halves side by side)
        for size in sizes:
            await pilot.resize_terminal(*size)
            await check((), None, None, size)  # laid out anew: the change still in view
            await check(("left_square_bracket",), True, None, size)
            await check(("right_square_bracket",), None, True, size)
            # the other layout shows the same change: from the added line to both halves, from both halves to
            # the removed line (the first of the pair); where side by side does not fit, as it was
            await check(("v",), None, None, size)
            await check(("right_square_bracket",), None, True, size)
            await check(("v",), None, None, size)
            await check(("w", "w"), True, None, size)  # not wrapped and back: still in view


async def settle(pilot: Pilot[None]) -> None:
    await pilot.pause()
    await pilot.pause()  # a layout may post Relaid: its scroll lands on the next pass
