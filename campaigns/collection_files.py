"""Readers for topic files and document collections, and writers of topic files.

Topics: TREC ``<top>`` SGML as in the ad hoc tracks (``<num> Number:``, ``<title>``, ``<desc>
Description:``, ``<narr> Narrative:``), also with closing tags and other elements as in the
Microblog tracks, or language prefixes as in CLEF's (``<EN-title>``); XML ``<topic number="…">``
as in the later tracks; TSV ``id<TAB>title[<TAB>description[<TAB>narrative]]``; and JSONL
``{"id", "title", "description", "narrative"}``.

Documents: TREC ``<DOC><DOCNO>…</DOCNO>…</DOC>`` (or ``<DOC id="…">``), JSONL ``{"docno",
"title", "text" | "html"}`` (also Pyserini's ``{"id", "contents"}``) and TSV (MS MARCO's
``docno<TAB>text``), read as a stream so a large collection never sits in memory whole.

Problems raise :class:`TrecFormatError` with the file and line, like the run and qrels readers.
:func:`write_topics` writes TREC SGML or JSONL, which :func:`read_topics` reads back.
"""

from __future__ import annotations

import gzip
import html
import io
import json
import os
import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TextIO

from evaluation.measures.trec_files import LIMITS
from evaluation.measures.trec_sources import GZIP_MAGIC, Source, TrecFormatError, UTF8_BOM, checked_path, read_source
from campaigns.identifiers import identifier_problem


@dataclass(frozen=True)
class TopicRecord:
    identifier: str
    title: str
    description: str
    narrative: str
    line: int


@dataclass(frozen=True)
class DocumentRecord:
    docno: str
    title: str
    body: str
    is_html: bool
    line: int


#: The most a topic file holds, uncompressed: it is read whole (TREC's largest, the Million Query
#: track's 10,000 queries, are about 1 MB), so this bounds the memory a topic import takes.
TOPICS_MAX_BYTES = 32 * 2**20
#: The longest line of a topic file (a JSONL topic is one line).
TOPIC_LINE_MAX_BYTES = 2**20
#: The most lines of a topic file, counted before it is parsed (a TREC SGML topic takes about 15),
#: and the most topics it may hold: each topic stored is a row and a model object at once.
TOPIC_LINES_MAX = 250_000
TOPICS_MAX = 50_000
#: The longest line of a collection file, and the longest ``<DOC>`` … ``</DOC>`` document: a
#: collection is read a line at a time, so this bounds the memory a document import takes.
DOCUMENT_MAX_BYTES = 16 * 2**20


def read_topics(source: Source, *, name: str | None = None, max_bytes: int | None = None,
                progress: Callable[[int, int], None] | None = None) -> list[TopicRecord]:
    """Read a whole topic file; the format is recognised from its first characters.
    ``progress(bytes read, lines read)`` is called once the file is read (a topic file is small).
    At most :data:`TOPICS_MAX_BYTES` (uncompressed; less if ``max_bytes`` says so) and lines of
    at most :data:`TOPIC_LINE_MAX_BYTES` are read."""
    limit = TOPICS_MAX_BYTES if max_bytes is None else min(max_bytes, TOPICS_MAX_BYTES)
    label, data = read_source(source, name, limit)
    _refuse_long_line(label, data, TOPIC_LINE_MAX_BYTES)
    if data.count(b"\n") > TOPIC_LINES_MAX:
        raise TrecFormatError(label, TOPIC_LINES_MAX + 1, f"a topic file may hold at most {TOPIC_LINES_MAX:,} lines")
    if progress is not None:
        progress(len(data), data.count(b"\n"))
    text = data.decode("utf-8")
    start = text.lstrip()
    declaration = _DECLARATION.search(text)
    if declaration:  # entities defined in a DTD expand without bound ("billion laughs"); TREC's files have none
        raise TrecFormatError(label, _line_of(text, declaration.start()),
                              f"{declaration.group(0)} declarations are not read (define no DTD or entities)")
    if start.startswith("{"):
        topics = _jsonl_topics(text, label)
    elif _SGML_TOP.search(text):
        topics = _sgml_topics(text, label)
    elif re.search(r"<topic\b", text, re.IGNORECASE):
        topics = _xml_topics(text, label)
    elif start.startswith("<"):
        raise TrecFormatError(label, _line_of(text, text.index("<")), "markup without <top> or <topic> elements")
    else:
        topics = _tsv_topics(text, label)
    if len(topics) > TOPICS_MAX:
        raise TrecFormatError(label, topics[TOPICS_MAX].line, f"a topic file may hold at most {TOPICS_MAX:,} topics")
    seen: dict[str, int] = {}
    for topic in topics:
        if not topic.identifier:
            raise TrecFormatError(label, topic.line, "a topic has an empty identifier")
        problem = identifier_problem("topic", topic.identifier)
        if problem:
            raise TrecFormatError(label, topic.line, problem)
        if topic.identifier in seen:
            raise TrecFormatError(
                label, topic.line, f"topic {topic.identifier!r} appears twice (first on line {seen[topic.identifier]})"
            )
        seen[topic.identifier] = topic.line
    return topics


def _refuse_long_line(label: str, data: bytes, limit: int) -> None:
    start = number = 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        number += 1
        if end - start > limit:
            raise TrecFormatError(label, number, f"the line is longer than the limit of {limit:,} bytes")
        start = end + 1


_DECLARATION = re.compile(r"<!(DOCTYPE|ENTITY|ELEMENT|ATTLIST)\b", re.IGNORECASE)
#: An entity reference left after HTML's entities are decoded: one a DTD would have defined.
_UNDEFINED_ENTITY = re.compile(r"&[A-Za-z_][\w.-]*;")

TOPIC_FORMATS = ("trec", "jsonl")


def write_topics(out: TextIO, topics, fmt: str) -> None:
    """Write topics (objects with ``identifier``, ``title``, ``description``, ``narrative``).

    ``trec``: the ad hoc tracks' ``<top>`` SGML, each field on its own lines, which every TREC
    tool reads; it has no escapes, so a text containing ``<num>``, ``<title>``, ``<desc>``,
    ``<narr>`` or ``<top>`` does not read back the same, and white space reads back collapsed.
    ``jsonl``: one JSON object per line, ``{"id", "title", "description", "narrative"}``,
    lossless.
    """
    if fmt not in TOPIC_FORMATS:
        raise ValueError(f"topic format {fmt!r} is not one of {', '.join(TOPIC_FORMATS)}")
    for t in topics:
        if fmt == "jsonl":
            record = {"id": t.identifier, "title": t.title, "description": t.description, "narrative": t.narrative}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            out.write(f"<top>\n<num> Number: {t.identifier}\n<title> {t.title}\n\n<desc> Description:\n"
                      f"{t.description}\n\n<narr> Narrative:\n{t.narrative}\n</top>\n\n")


# A field starts at its tag, with CLEF's language prefix or without (``<EN-title>``), and ends at
# the next field or at its closing tag (``</title>``), which the Microblog and CLEF files have
# and the ad hoc tracks' files do not. Other elements on lines of their own (Microblog's
# ``<querytime>…</querytime>``) are left out; markup within a line (``<i>E. coli</i>``, a lone
# ``<risk>``) stays text.
_SGML_TOP = re.compile(r"<top(?:\s[^>]*)?>", re.IGNORECASE)  # CLEF's have attributes: <top lang="en">
_SGML_FRAME = re.compile(r"<\?xml[^>]*\?>|</?topics(?:\s[^>]*)?>|<!--.*?-->", re.IGNORECASE | re.DOTALL)  # around <top>s
_SPACE = re.compile(r"\s*")
_SGML_FIELD = re.compile(r"<(/?)(?:[a-z]{2}-)?(num|title|desc|narr)>", re.IGNORECASE)
_SGML_OTHER = re.compile(r"^[ \t]*<([a-z][\w-]*)>.*?</\1>[ \t]*$", re.IGNORECASE | re.DOTALL | re.MULTILINE)
_SGML_PREFIX = {"num": r"number:", "title": r"topic:", "desc": r"description:", "narr": r"narrative:"}


def _sgml_fields(block: str) -> dict[str, str]:
    """The fields of one ``<top>`` block, white space collapsed; the first of a repeated field."""
    block = _SGML_OTHER.sub(lambda m: " " if not _SGML_FIELD.fullmatch(f"<{m.group(1)}>") else m.group(0), block)
    fields: dict[str, str] = {}
    parts = _SGML_FIELD.split(block)
    for closing, tag, value in zip(parts[1::3], parts[2::3], parts[3::3]):
        tag = tag.lower()
        if closing or tag in fields:
            continue
        value = re.sub(rf"^\s*{_SGML_PREFIX[tag]}", "", value, flags=re.IGNORECASE)
        fields[tag] = " ".join(value.split())
    return fields


def _sgml_topics(text: str, label: str) -> list[TopicRecord]:
    topics = []
    position = 0
    for block in re.finditer(rf"{_SGML_TOP.pattern}(.*?)(</top>|{_SGML_TOP.pattern}|\Z)", text, re.IGNORECASE | re.DOTALL):
        line = _line_of(text, block.start())
        if block.group(2).lower() != "</top>":
            raise TrecFormatError(label, line, "<top> is not closed by </top>")
        _refuse_stray_text(text, position, block.start(), label)
        position = block.end()
        fields = _sgml_fields(block.group(1))
        if "num" not in fields:
            raise TrecFormatError(label, line, "topic without <num>")
        topics.append(
            TopicRecord(fields["num"], fields.get("title", ""), fields.get("desc", ""), fields.get("narr", ""), line)
        )
    _refuse_stray_text(text, position, len(text), label)
    return topics


def _refuse_stray_text(text: str, start: int, end: int, label: str) -> None:
    """Between ``<top>`` blocks only white space and the frame (XML declaration, ``<topics>``, comments)."""
    position = start
    while True:
        position = _SPACE.match(text, position, end).end()
        frame = _SGML_FRAME.match(text, position, end)
        if not frame:
            break
        position = frame.end()
    if position < end:
        raise TrecFormatError(label, _line_of(text, position), "text outside <top> … </top>")


_XML_FIELD = {
    "title": ("title", "query"),
    "description": ("description", "desc", "question"),
    "narrative": ("narrative", "narr", "summary"),
}
_XML_CHILD = re.compile(r"<([a-z][\w-]*)>(.*?)</\1>", re.IGNORECASE | re.DOTALL)  # attributes: not a field


def _xml_topics(text: str, label: str) -> list[TopicRecord]:
    """``<topic number="…">`` elements, their fields by :data:`_XML_FIELD`'s names, entities decoded.

    Other child elements without attributes (the Precision Medicine tracks' ``<disease>``,
    ``<gene>``, ``<demographic>``, ``<other>``; CDS 2016's ``<note>``) are added to the
    description as ``name: text``; their texts make the title of a topic with neither title nor
    description.
    Elements with attributes (the Web track's ``<subtopic number="…">``) are left out.
    """
    known = {tag for tags in _XML_FIELD.values() for tag in tags}
    topics = []
    for block in re.finditer(r"<topic\b([^>]*)>(.*?)</topic>", text, re.IGNORECASE | re.DOTALL):
        line = _line_of(text, block.start())
        number = re.search(r"""\b(?:number|id)\s*=\s*["']([^"']*)["']""", block.group(1))
        if not number:
            raise TrecFormatError(label, line, '<topic> without a number="…" attribute')
        children = [(tag.lower(), " ".join(html.unescape(value).split())) for tag, value in _XML_CHILD.findall(block.group(2))]
        values = {field: next((value for tag, value in children if tag in tags), "") for field, tags in _XML_FIELD.items()}
        others = [(tag, value) for tag, value in children if tag not in known and value]
        if others:
            if not values["title"] and not values["description"]:
                values["title"] = ", ".join(value for _, value in others)
            labelled = [f"{tag}: {value}" for tag, value in others]
            values["description"] = "; ".join([values["description"], *labelled] if values["description"] else labelled)
        for value in values.values():
            undefined = _UNDEFINED_ENTITY.search(value)
            if undefined:
                raise TrecFormatError(label, line, f"entity {undefined.group(0)} is not defined (only HTML's are)")
        topics.append(TopicRecord(html.unescape(number.group(1)).strip(), line=line, **values))
    if not topics:
        raise TrecFormatError(label, 1, "no complete <topic> … </topic> element")
    return topics


def _tsv_topics(text: str, label: str) -> list[TopicRecord]:
    """Tab-separated, as many columns on every line as on the first: ``id title`` (MS MARCO's
    queries), ``id title description`` or ``id title description narrative``."""
    topics, width = [], None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split("\t")
        width = width or len(fields)
        if width not in (2, 3, 4):
            raise TrecFormatError(label, number, "expected 2, 3 or 4 tab-separated columns "
                                                 f"(id, title[, description[, narrative]]), found {width}")
        if len(fields) != width:
            raise TrecFormatError(label, number, f"expected {width} tab-separated columns like the first line, "
                                                 f"found {len(fields)}")
        identifier, title, description, narrative = [f.strip() for f in fields] + [""] * (4 - width)
        topics.append(TopicRecord(identifier, title, description, narrative, number))
    return topics


_JSON_TOPIC = {  # each field under the first of its keys present: TREC's own, then ir_datasets' and others'
    "identifier": ("id", "number", "topic_id", "query_id", "qid"),
    "title": ("title", "query", "text"),
    "description": ("description", "desc", "question"),
    "narrative": ("narrative", "narr"),
}


def _jsonl_topics(text: str, label: str) -> list[TopicRecord]:
    """One JSON object a line, each field under the first of :data:`_JSON_TOPIC`'s keys present."""
    topics = []
    for number, obj in _json_lines(text.splitlines(), label):
        values = {field: next((obj[key] for key in keys if obj.get(key) is not None), None)
                  for field, keys in _JSON_TOPIC.items()}
        if values["identifier"] is None:
            raise TrecFormatError(label, number, 'a topic object needs an "id" (or "topic_id", "query_id", "qid")')
        for field, value in values.items():
            allowed = (str, int) if field == "identifier" else (str,)
            if value is not None and (isinstance(value, bool) or not isinstance(value, allowed)):
                kind = "a string or a whole number" if field == "identifier" else "a string"
                raise TrecFormatError(label, number, f'the topic\'s {field} must be {kind}, not {_json_type(value)}')
        texts = {field: str(value) if value is not None else "" for field, value in values.items()}
        topics.append(TopicRecord(line=number, **{**texts, "identifier": texts["identifier"].strip()}))
    return topics


def iter_documents(
    source: Source, *, name: str | None = None, max_bytes: int | None = None, recoded: list[int] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[DocumentRecord]:
    """Yield the documents of a collection file, checking each as it comes.

    The format is recognised from the first line that is not blank: ``{`` JSONL, ``<`` TREC
    SGML, anything else TSV. The file is read line by line. A problem raises
    :class:`TrecFormatError` when reached, so callers write inside one transaction and let the
    error roll it back.

    Lines must be UTF-8, unless ``recoded`` is a list: then a line that is not is read as
    Windows-1252 (which the older TREC collections' Latin-1 text is, as far as it goes) and
    its number is appended to the list.

    ``progress`` is called after every line as ``progress(bytes read, lines read)`` (bytes of the
    content: uncompressed, for a gzip file). A path is read a line at a time, so memory stays
    bounded whatever the file's size; other sources are read whole first.
    """
    label, lines = _open_lines(source, name, max_bytes, recoded, progress)
    first = next(((n, line) for n, line in lines if line.strip()), None)
    if first is None:
        raise TrecFormatError(label, None, "the file is empty")
    start = first[1].lstrip()
    if start.startswith("{"):
        documents = _jsonl_documents(_chain(first, lines), label)
    elif start.startswith("<"):
        documents = _sgml_documents(_chain(first, lines), label)
    else:
        documents = _tsv_documents(_chain(first, lines), label)
    limit = LIMITS["document number"]
    for document in documents:
        if len(document.docno) > limit:
            raise TrecFormatError(label, document.line, f"document number {document.docno[:40]!r}… is "
                                                        f"{len(document.docno):,} characters long; at most {limit} are allowed")
        yield document


_DOC_OPEN = re.compile(r"<DOC(\s[^>]*)?>", re.IGNORECASE)  # <DOC>, or AQUAINT-2's <DOC id="…" type="story">
_DOC_ID = re.compile(r"""\bid\s*=\s*["']([^"'\s]+)["']""", re.IGNORECASE)


_DOC_CLOSE = re.compile(r"</DOC>", re.IGNORECASE)
_DOCNO = re.compile(r"<DOCNO>\s*(\S+)\s*</DOCNO>", re.IGNORECASE)


def _sgml_documents(lines, label: str) -> Iterator[DocumentRecord]:
    """``<DOC>`` … ``</DOC>``, the document number in ``<DOCNO>`` or the ``<DOC id="…">`` attribute.

    A document may sit on one line (``<DOC><DOCNO>d1</DOCNO>…</DOC>``) or many; ``<DOC>`` opens
    a document at the start of a line or right after ``</DOC>``.
    """
    start = None
    body: list[str] = []
    docno = attribute = None
    size = 0
    for number, line in lines:
        rest = line
        while rest:
            if start is None:
                stripped = rest.strip()
                if not stripped:
                    break
                opening = _DOC_OPEN.match(stripped)
                if not opening:
                    raise TrecFormatError(label, number, f"expected <DOC>, found {stripped[:40]!r}")
                start, body, docno = number, [], None
                found = _DOC_ID.search(opening.group(1) or "")
                attribute = found.group(1) if found else None
                rest = stripped[opening.end() :].lstrip()
                if not rest:
                    break
            elif _DOC_OPEN.match(rest.lstrip()):
                raise TrecFormatError(label, start, "<DOC> is not closed by </DOC>")
            closing = _DOC_CLOSE.search(rest)
            segment = rest[: closing.start()] if closing else rest
            found = _DOCNO.search(segment)
            if found:
                if docno is not None:
                    raise TrecFormatError(label, number, "a second <DOCNO> in one document")
                docno = found.group(1)
                segment = segment[: found.start()] + segment[found.end() :]
                segment = segment if segment.strip() else ""
            body.append(segment)
            size = size + len(segment) if len(body) > 1 else len(segment)
            if size > DOCUMENT_MAX_BYTES:
                raise TrecFormatError(label, start, f"the document is longer than the limit of {DOCUMENT_MAX_BYTES:,} characters")
            if not closing:
                break
            if docno is None and attribute is None:
                raise TrecFormatError(label, start, "document without <DOCNO>")
            text = "".join(body).strip()
            yield DocumentRecord(docno or attribute, _sgml_title(text), text, True, start)
            start, rest = None, rest[closing.end() :]
    if start is not None:
        raise TrecFormatError(label, start, "<DOC> is not closed by </DOC>")


def _sgml_title(text: str) -> str:
    found = re.search(r"<(HEADLINE|TITLE|HEAD|HL)>(.*?)</\1>", text, re.IGNORECASE | re.DOTALL)
    if not found:
        return ""
    return " ".join(re.sub(r"<[^>]*>", " ", found.group(2)).split())[:500]


_JSON_DOCNO = ("docno", "doc_id", "docid", "id")  # TREC, ir_datasets, Pyserini
_JSON_BODY = ("html", "text", "contents", "body")  # "html" is HTML, the others plain text


def _jsonl_documents(lines, label: str) -> Iterator[DocumentRecord]:
    """One JSON object a line: the document number under the first of :data:`_JSON_DOCNO`
    present, the body under exactly one of :data:`_JSON_BODY`, an optional ``"title"``.
    Pyserini's ``{"id", "contents"}`` and ir_datasets' ``{"doc_id", "text"}`` read as they are."""
    for number, obj in _json_lines((line for _, line in lines), label, numbers=True):
        key = next((key for key in _JSON_DOCNO if key in obj), "docno")
        docno = obj.get(key)
        if isinstance(docno, int) and not isinstance(docno, bool):
            docno = str(docno)
        if not isinstance(docno, str) or not docno.strip() or re.search(r"\s", docno):
            raise TrecFormatError(label, number, f'"{key}" {docno!r} is missing, empty or contains white space')
        found = [key for key in _JSON_BODY if key in obj]
        if len(found) != 1:
            named = ", ".join(f'"{key}"' for key in _JSON_BODY)
            raise TrecFormatError(label, number, f"a document needs exactly one of {named}; found {len(found)}")
        body = obj[found[0]]
        if not isinstance(body, str):
            raise TrecFormatError(label, number, f'"{found[0]}" must be a string')
        title = obj.get("title")
        if title is not None and not isinstance(title, str):
            raise TrecFormatError(label, number, f'"title" must be a string, not {_json_type(title)}')
        yield DocumentRecord(docno, title or "", body, found[0] == "html", number)


_TSV_COLUMNS = {2: ("docno", "text"), 3: ("docno", "title", "text"), 4: ("docno", "url", "title", "text")}


def _tsv_documents(lines, label: str) -> Iterator[DocumentRecord]:
    """Tab-separated plain text, as many columns on every line as on the first: ``docno text``
    (MS MARCO passages), ``docno title text``, or ``docno url title text`` (MS MARCO
    documents; the URL becomes the first line of the body)."""
    width = None
    for number, line in lines:
        line = line.rstrip("\r\n")
        if not line.strip():
            continue
        columns = line.split("\t")
        width = width or len(columns)
        if width not in _TSV_COLUMNS:
            raise TrecFormatError(
                label, number, f"expected 2, 3 or 4 tab-separated columns (docno, [url,] [title,] text), found {width}"
            )
        if len(columns) != width:
            raise TrecFormatError(label, number, f"expected {width} tab-separated columns like the first line, found {len(columns)}")
        row = dict(zip(_TSV_COLUMNS[width], columns))
        docno = row["docno"].strip()
        if not docno or re.search(r"\s", docno):
            raise TrecFormatError(label, number, f"document number {row['docno']!r} is empty or contains white space")
        body = f"{row['url']}\n\n{row['text']}" if "url" in row else row["text"]
        yield DocumentRecord(docno, row.get("title", "").strip(), body, False, number)


def _json_type(value) -> str:
    """JSON's name for the type of a decoded value, for error messages."""
    names = {bool: "true or false", int: "a number", float: "a number", list: "a list", dict: "an object", str: "a string"}
    return names.get(type(value), type(value).__name__)


def _json_lines(lines, label: str, numbers: bool = False):
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TrecFormatError(label, number, f"invalid JSON: {exc.msg}") from None
        except RecursionError:
            raise TrecFormatError(label, number, "JSON nested too deeply") from None
        if not isinstance(obj, dict):
            raise TrecFormatError(label, number, "expected a JSON object")
        yield number, obj


def _open_lines(source: Source, name: str | None, max_bytes: int | None, recoded: list[int] | None = None,
                progress: Callable[[int, int], None] | None = None):
    """A label and an iterator of (line number, decoded line), read as a stream whatever the source
    (a path, bytes, an open file; gzip or not): memory holds a line at a time, never the file.

    With ``recoded`` a list, bytes that are not UTF-8 are allowed (see :func:`iter_documents`)."""
    if isinstance(source, (str, os.PathLike)):
        label, path = checked_path(source, name, max_bytes)
        return label, _decoded(_bounded_lines(path.open("rb"), label, max_bytes, owned=True), label, recoded, progress)
    if isinstance(source, (bytes, bytearray, memoryview)):
        label, stream = name or "<data>", io.BytesIO(source)
    else:
        label, stream = name or str(getattr(source, "name", None) or "<upload>"), source
    return label, _decoded(_bounded_lines(stream, label, max_bytes), label, recoded, progress)


def _bounded_lines(stream, label: str, max_bytes: int | None, *, owned: bool = False):
    """The lines of a binary stream, gunzipped as they are read if it is gzip: each at most
    :data:`DOCUMENT_MAX_BYTES`, at most ``max_bytes`` in all; a longer line is refused unread."""
    magic = stream.read(len(GZIP_MAGIC))
    stream.seek(-len(magic), io.SEEK_CUR)
    reader = gzip.GzipFile(fileobj=stream, mode="rb") if magic == GZIP_MAGIC else stream
    size = number = 0
    try:
        while True:
            try:
                line = reader.readline(DOCUMENT_MAX_BYTES + 1)
            except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError; EOFError: cut short
                raise TrecFormatError(label, number + 1, f"damaged gzip data ({exc})") from None
            if not line:
                return
            number, size = number + 1, size + len(line)
            if len(line.rstrip(b"\r\n")) > DOCUMENT_MAX_BYTES:
                raise TrecFormatError(label, number, f"the line is longer than the limit of {DOCUMENT_MAX_BYTES:,} bytes")
            if max_bytes is not None and size > max_bytes:
                raise TrecFormatError(label, number, f"the file is larger than the limit of {max_bytes:,} bytes uncompressed")
            yield line
    finally:
        if owned:
            stream.close()


def _decoded(raw_lines, label: str, recoded: list[int] | None = None,
             progress: Callable[[int, int], None] | None = None):
    read = 0
    for number, raw in enumerate(raw_lines, start=1):
        if progress is not None:
            read += len(raw)
            progress(read, number)
        if number == 1:
            raw = raw.removeprefix(UTF8_BOM)
        if b"\x00" in raw:
            raise TrecFormatError(label, number, "binary data (a NUL byte); expected a text file")
        try:
            yield number, raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            if recoded is None:
                raise TrecFormatError(label, number, f"invalid UTF-8 (byte 0x{raw[exc.start]:02x})") from None
            recoded.append(number)
            yield number, raw.decode("cp1252", errors="replace")  # its 5 unassigned bytes: U+FFFD


def _chain(first, rest):
    yield first
    yield from rest


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1
