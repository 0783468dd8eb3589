"""The general reader's tokenizer: a TREC file split into columns with one C-level call, every line
checked with numpy on byte offsets (widths, identifier lengths, numbers, duplicates), and only when
a check fails a slower scan for the first offending line, so every error names its line.

``trec_files`` reads every file the fast path (``trec_scan``) does not take through these.
"""

from __future__ import annotations

import re

import numpy as np

from .trec_sources import TrecFormatError

# The bytes that bytes.split() treats as whitespace: space, \t, \n, \v, \f, \r.
_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[[0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D]] = True


#: The longest identifier of each kind, in characters (the app's database columns are as wide).
LIMITS = {"topic": 64, "document number": 200, "run tag": 100, "stratum": 64}
#: Relevance grades are 32-bit integers.
GRADE_RANGE = (-(2**31), 2**31 - 1)
#: The longest score or relevance, in characters (leading zeros and digits past a double's
#: precision included): numbers are held in arrays as wide as the longest.
NUMBER_LIMIT = 64


def check_utf8(label: str, columns: Columns, lines: np.ndarray, named: tuple) -> None:
    """Identifiers other than document numbers must be UTF-8 text (a file read with
    ``docno_bytes`` is not checked whole); else the error naming the first bad line."""
    for column, kind in named:
        values, first = np.unique(columns[column], return_index=True)
        for value, row in zip(values.tolist(), first.tolist()):
            try:
                value.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise TrecFormatError(label, int(lines[row]), f"{kind} is not UTF-8 text (byte 0x{value[exc.start]:02x})") from None


class Columns:
    """The tokens of a checked file, ``width`` to a row, located by their byte offsets in the
    file; a column becomes an array when asked for.

    No token becomes a Python object: a column's values are copied out of the file in blocks of
    rows into one array as wide as its longest value (which the readers check against
    :data:`LIMITS` first). Building arrays only for the columns a reader uses (not the ignored
    ``iter`` and ``rank``) is a third of the reading time saved.
    """

    def __init__(self, data: bytes, starts: np.ndarray, ends: np.ndarray, width: int) -> None:
        self.data, self.starts, self.ends, self.width = data, starts, ends, width

    def __len__(self) -> int:
        return self.width

    def lengths(self, i: int) -> np.ndarray:
        """The byte length of column ``i``'s value on each row."""
        return self.ends[i :: self.width] - self.starts[i :: self.width]

    def token(self, i: int, row: int) -> bytes:
        """Column ``i``'s value on ``row``."""
        k = row * self.width + i % self.width
        return self.data[int(self.starts[k]) : int(self.ends[k])]

    def __getitem__(self, i: int) -> np.ndarray:
        i %= self.width
        starts, lengths = self.starts[i :: self.width], self.lengths(i)
        longest = max(1, int(lengths.max(initial=0)))
        out = np.zeros((starts.size, longest), dtype=np.uint8)
        buf = np.frombuffer(self.data, dtype=np.uint8)
        step = max(1, 2**20 // longest)  # rows a block: its index arrays stay near 8 MB
        offsets = np.arange(longest)
        for a in range(0, starts.size, step):
            inside = offsets < lengths[a : a + step, None]
            out[a : a + step][inside] = buf[(starts[a : a + step, None] + offsets)[inside]]
        return out.view(f"S{longest}").ravel()


def split_columns(data: bytes, label: str, *, allowed: tuple[int, ...], what: str) -> tuple[Columns, np.ndarray]:
    """Split ``data`` into equal-width columns of byte strings, checking every line's width.

    Returns the columns and the 1-based line number of each row.
    """
    buf = np.frombuffer(data, dtype=np.uint8)
    starts, ends, newlines = _tokens(data, buf)
    token_line = np.searchsorted(newlines, starts, side="left").astype(starts.dtype)  # 0-based line of each token
    del newlines
    first_on_line = np.concatenate(([True], token_line[1:] != token_line[:-1]))
    comment_lines = token_line[first_on_line & (buf[starts] == 0x23)]  # '#'
    del first_on_line
    if comment_lines.size:
        keep = ~np.isin(token_line, comment_lines)
        token_line, starts, ends = token_line[keep], starts[keep], ends[keep]
    if token_line.size == 0:
        raise TrecFormatError(label, None, f"the file has no {what} lines")
    counts = np.bincount(token_line)
    data_lines = np.flatnonzero(counts)
    width = int(counts[data_lines[0]])
    if width not in allowed:
        raise TrecFormatError(label, int(data_lines[0]) + 1, _width_problem(width, allowed, what))
    wrong = data_lines[counts[data_lines] != width]
    if wrong.size:
        line = int(wrong[0])
        raise TrecFormatError(label, line + 1, _width_problem(int(counts[line]), (width,), what))
    return Columns(data, starts, ends, width), data_lines.astype(np.int64) + 1


def _tokens(data: bytes, buf: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(starts, ends, newlines): the byte offsets where each white-space separated token starts
    and ends, and of each ``\n``. Found :data:`TOKEN_BLOCK` bytes at a time (blocks end at a line
    end, which no token crosses), so the temporary arrays are a block's, not the file's."""
    offset = np.int32 if len(data) < 2**31 - 1 else np.int64
    starts, ends, newlines = [], [], []
    begin = 0
    while begin < len(data):
        stop = data.find(b"\n", min(begin + TOKEN_BLOCK, len(data)) - 1)
        stop = len(data) if stop < 0 else stop + 1
        space = _WHITESPACE[buf[begin:stop]]
        starts.append((np.flatnonzero(~space & np.concatenate(([True], space[:-1]))) + begin).astype(offset))
        ends.append((np.flatnonzero(~space & np.concatenate((space[1:], [True]))) + begin + 1).astype(offset))
        newlines.append(np.flatnonzero(buf[begin:stop] == 0x0A) + begin)
        begin = stop
    return np.concatenate(starts), np.concatenate(ends), np.concatenate(newlines)


#: Bytes of a file the general reader splits into tokens at a time (:func:`_tokens`).
TOKEN_BLOCK = 16 * 2**20


def _width_problem(found: int, allowed: tuple[int, ...], what: str) -> str:
    formats = {
        4: "4 columns (topic iter docno rel)",
        5: "5 columns (topic iter docno stratum rel)",
        6: "6 columns (topic Q0 docno rank score tag)",
    }
    expected = " or ".join(formats[w] for w in allowed)
    return f"expected {expected} in a {what} file, found {found}"


def column_text(column: np.ndarray, data: bytes) -> np.ndarray:
    if data.isascii():
        return column.astype(np.str_)
    return np.array([value.decode("utf-8") for value in column.tolist()], dtype=np.str_)


#: The number grammar (module docstring): a finite decimal, and an integer.
_DECIMAL = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INTEGER = re.compile(rb"[+-]?[0-9]+")
#: Bytes that can appear in a number of either grammar.
_NUMERIC = np.zeros(256, dtype=bool)
_NUMERIC[np.frombuffer(b"0123456789+-.eE\x00", dtype=np.uint8)] = True  # NUL: the padding of a column's shorter values


def parse_numbers(column: np.ndarray, lines: np.ndarray, label: str, dtype, what: str, *,
             leading_integer: bool = False) -> np.ndarray:
    """A column of numbers in the grammar of the module docstring: scores as finite float64,
    relevance as int64 within :data:`GRADE_RANGE`; else the error naming the first bad line.
    ``leading_integer``: an integer token is read up to its first non-digit, as ``strtol``.

    numpy reads number strings as Python does. Of strings made only of ``0-9 + - . e E``,
    Python reads none that the grammar refuses; so only a column with another byte (an
    underscore, ``inf``, another script's digits) or one numpy could not read is matched
    against the grammar, token by token.
    """
    decimal = dtype is np.float64
    values = None
    if _NUMERIC[np.frombuffer(column.tobytes(), dtype=np.uint8)].all():
        try:
            values = column.astype(dtype)
        except (ValueError, OverflowError):
            values = None
    if values is None:
        grammar = _DECIMAL if decimal else _INTEGER
        raws = [_leading_integer(raw) for raw in column.tolist()] if leading_integer else column.tolist()
        for i, raw in enumerate(raws):
            if not grammar.fullmatch(raw):
                raise TrecFormatError(label, int(lines[i]), f"{what} {raw.decode(errors='replace')!r} is not "
                                                            f"{_number_problem(raw, decimal)}")
        parse = float if decimal else int
        parsed = [parse(raw) for raw in raws]  # in the grammar: numpy failed on an integer past 64 bits
        if not decimal:
            big = [i for i, v in enumerate(parsed) if not GRADE_RANGE[0] <= v <= GRADE_RANGE[1]]
            if big:
                raise TrecFormatError(label, int(lines[big[0]]), f"{what} {raws[big[0]].decode()} is out of the range "
                                                                 f"{GRADE_RANGE[0]:,} to {GRADE_RANGE[1]:,}")
        values = np.array(parsed, dtype=dtype)
    if decimal:
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise TrecFormatError(label, int(lines[bad[0]]), f"{what} {column[bad[0]].decode()!r} is not a finite number")
    else:
        bad = np.flatnonzero((values < GRADE_RANGE[0]) | (values > GRADE_RANGE[1]))
        if bad.size:
            raise TrecFormatError(label, int(lines[bad[0]]), f"{what} {column[bad[0]].decode()} is out of the range "
                                                             f"{GRADE_RANGE[0]:,} to {GRADE_RANGE[1]:,}")
    return values


def _leading_integer(raw: bytes) -> bytes:
    """The integer a relevance starts with, as trec_eval's ``strtol`` reads it (``1.5`` → ``1``);
    the whole token when it starts with none (the grammar then refuses it)."""
    match = _INTEGER.match(raw)
    return match.group() if match else raw


def _number_problem(raw: bytes, decimal: bool) -> str:
    """What a number outside the grammar is not: finite, written plainly, or a number at all."""
    text = raw.decode("utf-8", "replace")
    try:
        value = float(text) if decimal else int(text)
    except ValueError:
        return "a number" if decimal else "an integer"
    if decimal and not np.isfinite(value):
        return "a finite number"
    return f"written as a plain {'decimal' if decimal else 'integer'} (ASCII digits, sign{', point and exponent' if decimal else ''}; no '_')"


def check_lengths(label: str, columns: Columns, column: int, lines: np.ndarray, kind: str) -> None:
    """Refuse the first value of ``column`` longer than ``LIMITS[kind]`` characters
    (:data:`NUMBER_LIMIT` for a score or relevance), naming its line."""
    limit = LIMITS.get(kind, NUMBER_LIMIT)
    for row in np.flatnonzero(columns.lengths(column) > limit).tolist():  # bytes over: characters decide (UTF-8)
        characters = len(columns.token(column, row).decode("utf-8", "replace"))
        if characters > limit:
            raise TrecFormatError(label, int(lines[row]), f"{kind} is {characters:,} characters long; at most {limit} are allowed")


def reject_duplicates(topic: np.ndarray, docno: np.ndarray, lines: np.ndarray, label: str, message: str) -> None:
    """Raise on the earliest line whose (topic, docno) pair appeared on an earlier line."""
    _, topic_code = np.unique(topic, return_inverse=True)
    docs, doc_code = np.unique(docno, return_inverse=True)
    key = topic_code.astype(np.int64) * len(docs) + doc_code
    order = np.argsort(key, kind="stable")  # equal pairs stay in file order
    repeated = np.flatnonzero(key[order][1:] == key[order][:-1])
    if repeated.size:
        pick = np.argmin(lines[order[repeated + 1]])
        i, first = order[repeated[pick] + 1], order[repeated[pick]]
        problem = message.format(topic=topic[i].decode(), docno=docno[i].decode())
        raise TrecFormatError(label, int(lines[i]), f"{problem} (first on line {lines[first]})")
