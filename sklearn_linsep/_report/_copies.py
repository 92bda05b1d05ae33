"""Temporary copies of what the passes cannot read in place, and the bytes of a
compressed file (gzip, bzip2, xz, zip) as the passes read them.

A file that is not a regular file (a pipe, ``/dev/stdin``, a FIFO, ``<(...)``) is
read once, into a temporary file, and the passes read that copy: a pipe read twice
would give its second pass nothing, or the header to a data row. An xz or zip file
(pyarrow has no codec for them) is decompressed into a temporary file the same way.
Both copies stop at ``max_bytes`` with a message, and are removed when the reading
ends, at exit, and on SIGTERM or SIGHUP.
"""

import bz2
import gzip
import io
import lzma
import os
import select
import signal
import stat
import tempfile
import threading
import zipfile

from ._errors import TableError

MAX_DECOMPRESSED = 8 << 30  # bytes of a temporary copy, at most (--max-decompressed)
_COPY_CHUNK = 1 << 22
# A read from a pipe waits at most this long (seconds) before the main thread
# looks at the signals again.
_PIPE_WAKE = 0.25
# Compressed CSV by its first bytes (or its suffix).
_MAGIC = {
    b"\x1f\x8b": "gzip",
    b"BZh": "bz2",
    b"\xfd7zXZ\x00": "xz",
    b"PK\x03\x04": "zip",
}
_SUFFIXES = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zip": "zip"}
# What reading a file, or decompressing it, may raise.
READ_ERRORS = (OSError, EOFError, zipfile.BadZipFile, lzma.LZMAError)


def byte_size(count):
    """``8 GiB``, ``512 MiB``, ``300 B``: a size as the cap is written."""
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift:
            return f"{count / (1 << shift):g} {unit}"
    return f"{count} B"


class TemporaryFiles:
    """The copies alive now, removed by :meth:`remove`, at exit, or on SIGTERM and
    SIGHUP (whose handlers are ours only while a copy exists; the previous ones
    run after the removal)."""

    paths = set()
    _previous = {}
    _SIGNALS = tuple(
        getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
    )

    @classmethod
    def create(cls):
        """``(handle, path)`` of a new copy. The handlers come first and the path is
        recorded before the file exists: a signal at any moment removes what exists
        (a SIGTERM between the file and its handlers left it, once another thread
        held the GIL there: the report's imports)."""
        import atexit

        if not cls.paths:
            atexit.register(cls.remove_all)
            cls._install()
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        while True:
            name = f"linsep-{os.urandom(8).hex()}.csv"
            path = os.path.join(tempfile.gettempdir(), name)
            cls.paths.add(path)
            try:
                return os.open(path, flags, 0o600), path
            except FileExistsError:  # another file's name, by a chance in 2**64
                cls.paths.discard(path)
            except BaseException:
                cls.remove(path)
                raise

    @classmethod
    def remove(cls, path):
        cls.paths.discard(path)
        try:
            os.remove(path)
        except FileNotFoundError:
            pass
        if not cls.paths:
            cls._restore()

    @classmethod
    def remove_all(cls):
        for path in list(cls.paths):
            cls.remove(path)

    @classmethod
    def _install(cls):
        if threading.current_thread() is not threading.main_thread():
            return  # signal handlers are the main thread's; atexit still removes
        for number in cls._SIGNALS:
            if signal.getsignal(number) == signal.SIG_IGN:
                continue  # ignored (nohup): the process outlives it, and so do copies
            cls._previous[number] = signal.signal(number, cls._on_signal)

    @classmethod
    def _restore(cls):
        for number, handler in cls._previous.items():
            signal.signal(number, handler)
        cls._previous.clear()

    @classmethod
    def _on_signal(cls, number, frame):
        previous = cls._previous.get(number, signal.SIG_DFL)
        cls.remove_all()
        # Restored here too: a signal inside create(), before its path is recorded
        # (tempfile's first probe of TMPDIR), found none to remove, and re-raised
        # itself to this handler until the recursion limit (exit 1, not the signal).
        cls._restore()
        if callable(previous):
            previous(number, frame)
            return
        if previous == signal.SIG_DFL:
            os.kill(os.getpid(), number)  # die of the signal, as without us


def compression(path):
    """``None``, ``"gzip"``, ``"bz2"``, ``"xz"`` or ``"zip"``, by the first bytes,
    else by the suffix."""
    with open(path, "rb") as handle:
        head = handle.read(8)
    for magic, kind in _MAGIC.items():
        if head.startswith(magic):
            return kind
    return _SUFFIXES.get(os.path.splitext(str(path))[1].lower())


def binary_stream(path, kind):
    """The file's bytes, decompressed (a zip archive: its one CSV member)."""
    if kind is None:
        return open(path, "rb")
    if kind == "gzip":
        return gzip.open(path, "rb")
    if kind == "bz2":
        return bz2.open(path, "rb")
    if kind == "xz":
        return lzma.open(path, "rb")
    return _zip_member(zipfile.ZipFile(path), path)


def _zip_member(archive, path):
    """The one file of a zip archive, open for reading."""
    members = [info for info in archive.infolist() if not info.is_dir()]
    if len(members) != 1:
        raise TableError(
            f"{path} is a zip archive of {len(members)} files; the report reads one "
            "CSV: unzip it and give the file."
        )
    return archive.open(members[0])


def capped_copy(stream, max_bytes, too_large):
    """A temporary file holding ``stream``'s bytes, or ``TableError(too_large)``
    (and no file) past ``max_bytes``."""
    handle, copy = TemporaryFiles.create()
    try:
        with stream, os.fdopen(handle, "wb") as target:
            written = 0
            for chunk in _chunks(stream):
                written += len(chunk)
                if written > max_bytes:
                    raise TableError(too_large)
                _write(target, chunk)
    except BaseException:
        TemporaryFiles.remove(copy)
        raise
    return copy


def _chunks(stream):
    """``stream``'s bytes, a chunk at a time, up to its end.

    From a pipe, each read first waits at most ``_PIPE_WAKE`` for data. A
    signal can be delivered to any thread; its Python handler runs in the main
    thread only, and a read blocked there does not wake for it. The report
    then outlived a SIGHUP for as long as the writer kept the pipe open."""
    descriptor = _pipe_descriptor(stream)
    if descriptor is None:
        while chunk := stream.read(_COPY_CHUNK):
            yield chunk
        return
    while True:
        ready, _, _ = select.select([descriptor], [], [], _PIPE_WAKE)
        if not ready:
            continue  # the handlers of pending signals run here
        chunk = stream.read1(_COPY_CHUNK)
        if not chunk:
            return
        yield chunk


def _pipe_descriptor(stream):
    """The file descriptor of a buffered stream over a pipe or FIFO, else None."""
    if not isinstance(stream, io.BufferedReader):
        return None
    try:
        descriptor = stream.fileno()
        return descriptor if stat.S_ISFIFO(os.fstat(descriptor).st_mode) else None
    except (OSError, ValueError):
        return None


class WriteError(Exception):
    """The temporary file could not take the bytes (a full disk): not the input's
    fault, and said so."""


def _write(target, chunk):
    try:
        target.write(chunk)
    except OSError as error:
        raise WriteError(error.strerror) from None
