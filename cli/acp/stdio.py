"""ACP room: the protocol's streams on the process's stdin and stdout, whatever they are (pipes, files, /dev/null)."""

from __future__ import annotations

import asyncio
import os
import stat
import sys
import threading

STDIO_LIMIT = 50 * 1024 * 1024  # images travel base64 in one line
_copies: list[threading.Thread] = []  # threads moving bytes between a file and a pipe, joined at the end


def _watchable(fd: int) -> bool:
    """asyncio can watch a pipe or a socket; a file, /dev/null or a terminal it refuses or never wakes for."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _copy(source: int, target: int) -> None:
    try:
        while chunk := os.read(source, 1 << 16):
            view = memoryview(chunk)
            while view:
                view = view[os.write(target, view):]
    except OSError:
        pass  # the other end went away: nothing more can be moved
    finally:
        os.close(source)
        os.close(target)


def _through_pipe(fd: int, *, reading: bool) -> int:
    """`fd` itself when it is watchable, else the matching end of a pipe a thread keeps joined to it."""
    if _watchable(fd):
        return fd
    read_end, write_end = os.pipe()
    source, target, ours = (fd, write_end, read_end) if reading else (read_end, fd, write_end)
    thread = threading.Thread(target=_copy, args=(source, target), name="acp-stdio", daemon=True)
    thread.start()
    _copies.append(thread)
    return ours


async def private_stdio() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """The protocol's streams, on copies of fd 0 and 1; fd 0 then reads /dev/null and fd 1 goes to stderr (so
    nothing else the process prints can break the protocol)."""
    loop = asyncio.get_running_loop()
    sys.stdout.flush()
    protocol_in = _through_pipe(os.dup(0), reading=True)
    protocol_out = _through_pipe(os.dup(1), reading=False)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    reader = asyncio.StreamReader(limit=STDIO_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(protocol_in, "rb", 0))
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                        os.fdopen(protocol_out, "wb", 0))
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return reader, writer


def flush_copies(timeout_s: float = 5.0) -> None:
    """Waits for what the agent wrote to reach a file standing for stdout (its pipe is closed by then)."""
    for thread in _copies:
        thread.join(timeout_s)
    _copies.clear()
