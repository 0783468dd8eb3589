"""A run's ir_metadata (https://www.ir-metadata.org): a YAML description of how the run was made,
along the PRIMAD components (platform, research goal, implementation, method, actor, data).

It comes either as the run file's header, YAML in comment lines between two markers, as
repro_eval writes it::

    # ir_metadata.start
    # tag: bm25
    # actor:
    #   team: Aurora
    # ir_metadata.end
    301 Q0 FT911-3032 1 12.5 bm25

or as a separate ``ir-metadata.yml`` (the plain YAML, with or without the two marker lines, as
TIRA's tirex-tracker writes it). The run readers skip the header: its lines start with ``#``,
which trec_eval v10 and evaluation.measures.trec_files treat as comments.

YAML is read with PyYAML's ``BaseLoader``: every value stays the string the team wrote (``1.10``
stays ``1.10``, ``no`` stays ``no``), which is also what JSON stores without loss. Anchors and
aliases are refused: an alias repeats a node without copying it, so a few lines could stand for
more data than any page or JSON could hold ("billion laughs").
"""

from __future__ import annotations

import yaml

from evaluation.measures.trec_sources import Source, TrecFormatError, read_source

#: The most bytes of YAML a run's metadata may have (header or file): descriptions are a few KB.
MAX_BYTES = 64 * 1024

START, END = "ir_metadata.start", "ir_metadata.end"


def header_metadata(label: str, data: bytes) -> dict | None:
    """The metadata in the ``# ir_metadata.start … # ir_metadata.end`` header of run file ``data``
    (decompressed), or None if the file has none. The header is among the comment lines before the
    first run line.

    Raises TrecFormatError naming ``label``, the line and the problem: a start without an end, a
    header over :data:`MAX_BYTES`, YAML that does not parse or is not a mapping.
    """
    start = None
    body: list[str] = []
    size = 0
    for number, raw in enumerate(_lines(data), start=1):
        line = raw.decode("utf-8", errors="replace").rstrip("\r")
        stripped = line.strip()
        if start is None:
            if not stripped:
                continue
            if not stripped.startswith("#"):
                return None  # the run lines begin: no header
            if stripped.lstrip("#").strip() == START:
                start = number
            continue
        if not stripped.startswith("#"):
            raise TrecFormatError(label, number, f"the ir_metadata header that starts on line {start} has no "
                                                 f"'# {END}' line before the run lines")
        text = stripped[1:]
        if text.strip() == END:
            return parse(label, "\n".join(body), first_line=start + 1)
        size += len(text) + 1
        if size > MAX_BYTES:
            raise TrecFormatError(label, number, f"the ir_metadata header is longer than {MAX_BYTES:,} bytes")
        body.append(text[1:] if text.startswith(" ") else text)
    if start is not None:
        raise TrecFormatError(label, start, f"the ir_metadata header has no '# {END}' line")
    return None


def _lines(data: bytes):
    """The lines of ``data`` one at a time: the header is read line by line from the top, and a run
    of millions of lines is never split whole."""
    start = 0
    while start <= len(data):
        end = data.find(b"\n", start)
        if end < 0:
            end = len(data)
        yield data[start:end]
        start = end + 1


def file_metadata(source: Source, name: str | None = None) -> dict:
    """The metadata of an uploaded ``ir-metadata.yml`` (the marker lines allowed). Raises
    TrecFormatError naming the file, the line and the problem."""
    label, data = read_source(source, name, MAX_BYTES)
    lines = data.decode("utf-8").splitlines()
    first = 1
    if lines and lines[0].strip() == START:
        lines, first = lines[1:], 2
    if lines and lines[-1].strip() == END:
        lines = lines[:-1]
    return parse(label, "\n".join(lines), first_line=first)


def parse(label: str, text: str, *, first_line: int = 1) -> dict:
    """The YAML mapping ``text`` (whose first line is line ``first_line`` of file ``label``), every
    scalar a string. Raises TrecFormatError for YAML that does not parse, an anchor or alias, or
    anything but a mapping at the top."""

    def error(mark, problem: str) -> TrecFormatError:
        return TrecFormatError(label, first_line + mark.line if mark is not None else first_line, f"ir_metadata: {problem}")

    try:
        for event in yaml.parse(text, Loader=yaml.BaseLoader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise error(event.start_mark, "anchors and aliases (& and *) are not accepted; write the values out")
        value = yaml.load(text, Loader=yaml.BaseLoader)
    except yaml.MarkedYAMLError as exc:
        raise error(exc.problem_mark, f"not valid YAML ({exc.problem})") from None
    except yaml.YAMLError as exc:
        raise TrecFormatError(label, first_line, f"ir_metadata: not valid YAML ({exc})") from None
    if not isinstance(value, dict):
        raise TrecFormatError(label, first_line, "ir_metadata: expected a mapping of fields "
                                                 "(platform:, method:, …), found " + ("nothing" if value in (None, "") else type(value).__name__))
    return value
