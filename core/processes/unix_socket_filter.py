"""Processes room: the seccomp filter the sandbox hands bubblewrap (`--seccomp FD`), built with libseccomp.

It refuses `socket(AF_UNIX, ...)` (EACCES), so a sandboxed command can reach no Unix socket of the host by path
or by abstract name, wherever the socket file sits; `socketpair()` stays allowed (pipes between a command's own
processes). It also refuses io_uring, whose requests would open and connect sockets without the socket system
call. System calls of another architecture (32-bit programs on a 64-bit kernel) are killed: their socket calls go
through `socketcall`, whose arguments a filter cannot read. libseccomp (Debian's libseccomp2, which bubblewrap
itself depends on) is loaded through ctypes: no compiler, no Python binding to install. The program is the same
for every sandbox of a process: it is built once (finding the library starts `ldconfig`) and kept in one descriptor;
a failure is never kept, so the next sandbox tries again."""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import fcntl
import os
import socket

SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_EQ = 4  # enum scmp_compare


def _errno_action(code: int) -> int:
    return 0x00050000 | (code & 0x0000FFFF)  # SCMP_ACT_ERRNO(code)


class _ArgCmp(ctypes.Structure):
    """struct scmp_arg_cmp"""

    _fields_ = (("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64))


class FilterUnavailable(Exception):
    """libseccomp is missing or refused the filter: the sandbox cannot keep Unix sockets out, so it does not run."""


_built: list[bytes] = []  # the program, once built in this process
_held: dict[bytes, tuple[int, int, int]] = {}  # program -> its descriptor, with the descriptor's device and inode


def _library() -> ctypes.CDLL:
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name, use_errno=True)
    except OSError as exc:
        raise FilterUnavailable(f"libseccomp cannot be loaded ({exc}); install libseccomp2") from exc
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = (ctypes.c_uint32,)
    lib.seccomp_release.argtypes = (ctypes.c_void_p,)
    lib.seccomp_syscall_resolve_name.argtypes = (ctypes.c_char_p,)
    lib.seccomp_rule_add_array.argtypes = (ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.POINTER(_ArgCmp))
    lib.seccomp_export_bpf.argtypes = (ctypes.c_void_p, ctypes.c_int)
    return lib


def unix_socket_filter() -> bytes:
    """The compiled BPF program (what `bwrap --seccomp` reads), built on the first call. Raises
    FilterUnavailable (and builds again on the next call)."""
    if not _built:
        _built.append(_compile())
    return _built[0]


def _compile() -> bytes:
    lib = _library()
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        raise FilterUnavailable("libseccomp could not start a filter")
    try:
        socket_nr = lib.seccomp_syscall_resolve_name(b"socket")
        if socket_nr < 0:
            raise FilterUnavailable("libseccomp does not know the socket system call on this machine")
        unix = (_ArgCmp * 1)(_ArgCmp(0, SCMP_CMP_EQ, socket.AF_UNIX, 0))
        if lib.seccomp_rule_add_array(ctx, _errno_action(errno.EACCES), socket_nr, 1, unix) != 0:
            raise FilterUnavailable("libseccomp refused the rule for socket(AF_UNIX)")
        for name in (b"io_uring_setup", b"io_uring_enter", b"io_uring_register"):
            number = lib.seccomp_syscall_resolve_name(name)
            if number >= 0 and lib.seccomp_rule_add_array(ctx, _errno_action(errno.ENOSYS), number, 0, None) != 0:
                raise FilterUnavailable(f"libseccomp refused the rule for {name.decode()}")
        read_fd, write_fd = os.pipe()
        try:
            if lib.seccomp_export_bpf(ctx, write_fd) != 0:
                raise FilterUnavailable("libseccomp could not export the filter")
            os.close(write_fd)
            write_fd = -1
            chunks = []
            while chunk := os.read(read_fd, 65536):
                chunks.append(chunk)
        finally:
            os.close(read_fd)
            if write_fd >= 0:
                os.close(write_fd)
        program = b"".join(chunks)
        if not program or len(program) % 8:
            raise FilterUnavailable("libseccomp exported no filter")
        return program
    finally:
        lib.seccomp_release(ctx)


def filter_fd(program: bytes) -> int:
    """A file descriptor of this process holding `program` (close-on-exec): each command's bubblewrap opens it
    afresh through /proc, so it always reads the whole program from its start. One per program for the whole
    process (each sandbox built took one more and none was ever closed); made again if it was closed."""
    held = _held.get(program)
    if held is not None:
        fd, device, inode = held
        try:
            stat = os.fstat(fd)
        except OSError:
            stat = None
        if stat is not None and (stat.st_dev, stat.st_ino) == (device, inode):
            return fd
    fd = _memfd(program)
    stat = os.fstat(fd)
    _held[program] = (fd, stat.st_dev, stat.st_ino)
    return fd


def _memfd(program: bytes) -> int:
    """Sealed once written: every sandbox of the process reads this one descriptor, and another program of the
    user opening it through /proc (a hook, an MCP server) could otherwise rewrite the filter under all of them."""
    fd = os.memfd_create("gemini-tui-seccomp", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    view = memoryview(program)
    while view:
        view = view[os.write(fd, view):]
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS,
                fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE)
    return fd
