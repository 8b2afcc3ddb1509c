"""No traceback reaches the terminal: a stream whose reader goes away is closed, not left running for the
loop's shutdown to report; whatever asyncio would print goes to the debug log instead."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.session.abortable import until_aborted
from tests.app.app_driver import main_screen, make_app, type_and_send, wait_for
from tests.fakes.scripted_model import ScriptedModel, text


async def test_a_cancelled_reader_closes_the_stream_it_was_waiting_on() -> None:
    errors: list[dict[str, object]] = []
    asyncio.get_running_loop().set_exception_handler(lambda _loop, context: errors.append(context))
    closed: list[bool] = []

    async def slow() -> AsyncIterator[int]:
        try:
            yield 1
            await asyncio.sleep(30)
            yield 2
        finally:
            closed.append(True)

    stream = slow()

    async def read() -> None:
        async for _ in until_aborted(stream, AbortSignal()):
            pass

    for delay in (0.0, 0.01, 0.05):  # before the first item, and while waiting for the second
        stream = slow()
        closed.clear()
        reader = asyncio.create_task(read())
        await asyncio.sleep(delay)
        reader.cancel()
        await asyncio.gather(reader, return_exceptions=True)
        assert not stream.ag_running and stream.ag_frame is None and closed == [True], delay
    assert errors == []


async def test_quitting_after_esc_cancelled_a_stream_reports_nothing(root: Path, tmp_path: Path) -> None:
    gate = asyncio.Event()  # never set: the stream hangs until cancelled
    model = ScriptedModel().add(text("Starting slowly "), text("and never finishing"), wait=gate)
    app = make_app(root, tmp_path, model)
    errors: list[dict[str, object]] = []
    async with app.run_test(size=(100, 30)) as pilot:
        loop = asyncio.get_running_loop()
        handler = loop.get_exception_handler()
        assert handler is not None  # the app's own: it logs instead of printing
        loop.set_exception_handler(lambda _loop, context: (errors.append(context), handler(_loop, context)))
        screen = main_screen(pilot)
        await type_and_send(pilot, "take your time")
        await wait_for(pilot, lambda: "Starting slowly" in str(screen.chat.query(".answer").last().text
                                                                 if screen.chat.query(".answer") else ""))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy)
        await type_and_send(pilot, "again")  # another hanging stream, then quit in the middle of it
        await pilot.pause(0.1)
        await pilot.press("ctrl+q")
    await asyncio.sleep(0.1)
    assert errors == []
