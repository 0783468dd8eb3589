"""The bytes of a TREC file, checked: from a path, bytes or a binary file, gzip-compressed or not,
within a size limit, as UTF-8 text or as bytes; and :class:`TrecFormatError`, the error every
reader raises, naming the file, the line and the problem."""

from __future__ import annotations

import os
import zlib
from pathlib import Path
from typing import BinaryIO, Union

Source = Union[str, os.PathLike, bytes, BinaryIO]


class TrecFormatError(ValueError):
    """A TREC file that cannot be read; ``str()`` is ``"<file>, line <n>: <problem>"``."""

    def __init__(self, path: str, line: int | None, problem: str) -> None:
        self.path = path
        self.line = line
        self.problem = problem
        where = f"{path}, line {line}" if line is not None else path
        super().__init__(f"{where}: {problem}")

    def __reduce__(self):  # pickled as its parts (a forked reader sends it to its parent)
        return type(self), (self.path, self.line, self.problem)


def read_source(source: Source, name: str | None, max_bytes: int | None) -> tuple[str, bytes]:
    """Read a whole file (path, bytes or binary file; gzip-compressed or not) as checked UTF-8 text: (label, bytes)."""
    label, data = read_bytes(source, name, max_bytes)
    return label, checked_text(label, data)


def read_source_bytes(source: Source, name: str | None, max_bytes: int | None) -> tuple[str, bytes]:
    """:func:`read_source` without the UTF-8 check: a text file in any encoding, byte order mark dropped."""
    label, data = read_bytes(source, name, max_bytes)
    return label, checked_binary(label, data)


def checked_binary(label: str, data: bytes) -> bytes:
    nul = data.find(b"\x00")
    if nul >= 0:
        raise TrecFormatError(label, data.count(b"\n", 0, nul) + 1, "binary data (a NUL byte); expected a text file")
    return data


def checked_text(label: str, data: bytes) -> bytes:
    """``data`` if it is UTF-8 text without a NUL byte, else the error naming the line."""
    checked_binary(label, data)
    if data.isascii():
        return data
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TrecFormatError(
            label, data.count(b"\n", 0, exc.start) + 1, f"invalid UTF-8 (byte 0x{data[exc.start]:02x})"
        ) from None
    return data


def read_bytes(source: Source, name: str | None, max_bytes: int | None,
                max_lines: int | None = None) -> tuple[str, bytes]:
    """The bytes of a file, gunzipped, byte order mark dropped; an empty file or one of more
    than ``max_lines`` lines refused. Not yet checked for NUL bytes or UTF-8: the compiled
    scanner takes printable ASCII only, and the checks run before the general reader reads
    what it leaves."""
    if isinstance(source, (str, os.PathLike)):
        label, path = checked_path(source, name, max_bytes)
        data = path.read_bytes()
    elif isinstance(source, (bytes, bytearray, memoryview)):
        label = name or "<data>"
        data = bytes(source)
        check_size(label, len(data), max_bytes)
    else:
        label = name or str(getattr(source, "name", None) or "<upload>")
        if max_bytes is not None:  # a file over the limit is refused before a byte of it is read
            check_size(label, _stored_size(source), max_bytes)
        data = source.read() if max_bytes is None else source.read(max_bytes + 1)
        if isinstance(data, str):
            data = data.encode()
        check_size(label, len(data), max_bytes)
    if data.startswith(GZIP_MAGIC):
        data = gunzip(label, data, max_bytes, max_lines)
    elif max_lines is not None:
        check_lines(label, data.count(b"\n"), max_lines)
    data = data.removeprefix(UTF8_BOM)
    if not data or data.isspace():
        raise TrecFormatError(label, None, "the file is empty")
    return label, data


def _stored_size(source: BinaryIO) -> int:
    """The size of a file object as stored (an upload's ``size``, an open file's), or 0 if unknown."""
    size = getattr(source, "size", None)
    if isinstance(size, int):
        return size
    try:
        return os.fstat(source.fileno()).st_size
    except (AttributeError, OSError, ValueError):
        return 0


#: The first two bytes of every gzip file (RFC 1952).
GZIP_MAGIC = b"\x1f\x8b"

#: The byte order mark that Windows editors and spreadsheets put at the start of UTF-8 files.
#: Readers drop it; kept, it would become part of the first topic's name.
UTF8_BOM = b"\xef\xbb\xbf"


def gunzip(label: str, data: bytes, max_bytes: int | None, max_lines: int | None = None) -> bytes:
    """The content of gzip data, every member in turn as ``gzip -d`` reads them, at most
    ``max_bytes`` and ``max_lines`` lines.

    Raises TrecFormatError for damaged or cut-short data and for content over a limit.
    Decompressed a chunk at a time into one growing buffer, lines counted as it grows: a small
    file that would expand without end costs the limit and a chunk at most, never a copy of
    the whole.
    """
    out, rest, lines = bytearray(), data, 0
    while rest.strip(b"\x00"):  # some writers pad the last member with zeros
        member = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        try:
            while True:
                chunk = member.decompress(rest, GUNZIP_CHUNK)
                out += chunk
                rest = member.unconsumed_tail
                if max_lines is not None:
                    lines += chunk.count(b"\n")
                    check_lines(label, lines, max_lines)
                if max_bytes is not None and len(out) > max_bytes:
                    raise TrecFormatError(label, None, f"the file is larger than the limit of {max_bytes:,} bytes uncompressed")
                if member.eof or not rest:
                    break
        except zlib.error as exc:
            raise TrecFormatError(label, None, f"damaged gzip data ({exc})") from None
        if not member.eof:
            raise TrecFormatError(label, None, "the gzip data ends early (was the file cut short?)")
        rest = member.unused_data
    return bytes(out)


#: How much gzip content is decompressed at a time (:func:`gunzip`).
GUNZIP_CHUNK = 16 * 1024 * 1024


def checked_path(source: str | os.PathLike, name: str | None, max_bytes: int | None) -> tuple[str, Path]:
    """(label, path) of a readable file within the size limit, else TrecFormatError."""
    path = Path(source)
    label = name or str(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise TrecFormatError(label, None, f"cannot read the file: {exc.strerror}") from None
    check_size(label, size, max_bytes)
    return label, path


def check_size(label: str, size: int, max_bytes: int | None) -> None:
    if max_bytes is not None and size > max_bytes:
        raise TrecFormatError(label, None, f"the file is larger than the limit of {max_bytes:,} bytes")


def check_lines(label: str, newlines: int, max_lines: int) -> None:
    """Refuse a file with more than ``max_lines`` line ends (a last line without one is
    allowed: it cannot make the file longer than the limit by more than that line)."""
    if newlines > max_lines:
        raise TrecFormatError(label, max_lines + 1, f"the file has more than {max_lines:,} lines, the most an import "
                                                    "reads; split it")
