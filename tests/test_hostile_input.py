"""A corpus of hostile and careless files through every way in: the import commands, the
organizer's import page and the participant's upload page, on SQLite and PostgreSQL.

Every file is refused with a message that names the file (and the line, where one is to
blame) and says what is wrong; no page answers 500, no command prints a traceback, and nothing
is stored. The classes: the foundation's bad input (columns, numbers, duplicates, tags that
change, unknown topics, empty, binary, invalid UTF-8, too large, damaged gzip), identifiers
past their limits, run tags outside TREC's rule, topics with control characters, numbers outside the grammar or 32 bits, JSON
of the wrong types, and XML with a DTD or undefined entities.
"""

from __future__ import annotations

import gzip
import html
import io
from dataclasses import dataclass

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from campaigns.run_imports import RunSource, import_runs
from campaigns.models import RankedList, Run, Team, UploadAttempt
from campaigns.imports import import_documents, import_topics
from campaigns.models import Document, Topic
from judging.models import Judgment, JudgmentChange, PoolEntry

pytestmark = pytest.mark.django_db

#: The import size limit in these tests (the settings' IMPORT_MAX_BYTES is overridden).
LIMIT = 64 * 1024


@dataclass(frozen=True)
class Hostile:
    kind: str  # runs, qrels, topics or documents
    name: str  # the file's name, which every message must carry
    content: bytes
    line: int | None  # the line the message must name, None for a problem of the whole file
    says: str  # a phrase the message must hold
    create: bool = False  # import with "create unknown topics"

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}"


def gz(data: bytes) -> bytes:
    return gzip.compress(data)


RUN = b"1 Q0 d1 1 2.5 r1\n"
LINES = b"1 Q0 d1 1 2.5 r1\n1 Q0 d2 2 1.5 r1\n"
RUNS = [
    ("empty", b"", None, "the file is empty"),
    ("blank", b"  \n\t\n", None, "the file is empty"),
    ("comments-only", b"# nothing here\n", None, "no run lines"),
    ("bom-only", b"\xef\xbb\xbf", None, "the file is empty"),
    ("five-columns", RUN + b"1 Q0 d2 2 r1\n", 2, "expected 6 columns"),
    ("seven-columns", b"1 Q0 d1 1 2.5 r1 x\n", 1, "expected 6 columns"),
    ("word-score", RUN + b"1 Q0 d2 2 high r1\n", 2, "score 'high' is not a number"),
    ("inf-score", b"1 Q0 d1 1 inf r1\n", 1, "not a finite number"),
    ("nan-score", b"1 Q0 d1 1 nan r1\n", 1, "not a finite number"),
    ("overflow-score", b"1 Q0 d1 1 1e400 r1\n", 1, "not a finite number"),
    ("underscore-score", RUN + b"1 Q0 d2 2 1_000 r1\n", 2, "plain decimal"),
    ("hex-score", b"1 Q0 d1 1 0x1p3 r1\n", 1, "is not a number"),
    ("arabic-score", "1 Q0 d1 1 \u0661\u0662 r1\n".encode(), 1, "plain decimal"),
    ("fullwidth-score", "1 Q0 d1 1 \uff11 r1\n".encode(), 1, "plain decimal"),
    ("exponent-only", b"1 Q0 d1 1 1e r1\n", 1, "is not a number"),
    ("long-score", b"1 Q0 d1 1 0." + b"1" * 63 + b" r1\n", 1, "score is 65 characters long"),
    ("duplicate", LINES + b"1 Q0 d1 3 0.5 r1\n", 3, "appears twice"),
    ("tag-changes", RUN + b"1 Q0 d2 2 1 r2\n", 2, "differs"),
    ("latin1", RUN + b"1 Q0 d\xe9 2 1 r1\n", 2, "invalid UTF-8"),
    ("binary", RUN + b"\x89PNG\x00\x00\n", 2, "binary data"),
    ("docno-201", RUN + b"1 Q0 " + b"d" * 201 + b" 2 1 r1\n", 2, "document number is 201 characters long"),
    ("docno-10k", RUN + b"1 Q0 " + b"d" * 10_000 + b" 2 1 r1\n", 2, "document number is 10,000 characters long"),
    ("docno-unicode", RUN + b"1 Q0 " + "\u00e9".encode() * 201 + b" 2 1 r1\n", 2, "201 characters long"),
    ("topic-65", b"1" * 65 + b" Q0 d1 1 1 r1\n", 1, "topic is 65 characters long"),
    ("tag-101", b"1 Q0 d1 1 1 " + b"t" * 101 + b"\n", 1, "run tag is 101 characters long"),
    ("tag-slash", b"1 Q0 d1 1 1 evil/tag\n", 1, "may hold only letters"),
    ("tag-dotdot", b"1 Q0 d1 1 1 ..\n", 1, "may hold only letters"),
    ("tag-dot-first", b"1 Q0 d1 1 1 .hidden\n", 1, "may hold only letters"),
    ("tag-percent", b"1 Q0 d1 1 1 a%2Fb\n", 1, "may hold only letters"),
    ("tag-accent", "1 Q0 d1 1 1 r\u00e9sum\u00e9\n".encode(), 1, "may hold only letters"),
    ("tag-quote", b"1 Q0 d1 1 1 a'b\"c\n", 1, "may hold only letters"),
    ("tag-script", b"1 Q0 d1 1 1 <script>alert(1)</script>\n", 1, "may hold only letters"),
    ("unknown-topic", b"999 Q0 d1 1 1 r1\n", 1, "topic '999' is not in campaign"),
    ("gzip-damaged", b"\x1f\x8b\x08\x00garbage-not-deflate", None, "damaged gzip data"),
    ("gzip-cut", gz(LINES * 200)[:-40], None, "ends early"),
    ("gzip-bomb", gz(RUN * (LIMIT // len(RUN) + 100)), None, "larger than the limit"),
    ("too-large", RUN * (LIMIT // len(RUN) + 1), None, "larger than the limit"),
    ("crlf-bad", b"1 Q0 d1 1 2.5 r1\r\n1 Q0 d2 2 x r1\r\n", 2, "score 'x' is not a number"),
    ("tag-taken", b"1 Q0 d1 1 2.5 base\n", 1, "run tag 'base'"),
]
QRELS_OK = b"1 0 d1 1\n"
QRELS = [
    ("empty", b"", None, "the file is empty"),
    ("three-columns", b"1 0 d1\n", 1, "expected 4 columns"),
    ("six-columns", b"1 0 d1 s 1 x\n", 1, "expected 4 columns"),
    ("width-changes", b"1 0 d1 s1 1\n1 0 d2 1\n", 2, "expected 5 columns"),
    ("word-grade", QRELS_OK + b"1 0 d2 yes\n", 2, "relevance 'yes' is not an integer"),
    ("float-grade", QRELS_OK + b"1 0 d2 1.5\n", 2, "relevance '1.5' is not an integer"),
    ("underscore-grade", QRELS_OK + b"1 0 d2 1_0\n", 2, "plain integer"),
    ("grade-2-31", QRELS_OK + b"1 0 d2 2147483648\n", 2, "out of the range"),
    ("grade-2-32-plus-1", b"1 0 d1 4294967297\n", 1, "out of the range"),
    ("grade-20-digits", QRELS_OK + b"1 0 d2 99999999999999999999\n", 2, "out of the range"),
    ("grade-65-chars", b"1 0 d1 " + b"0" * 65 + b"\n", 1, "relevance is 65 characters long"),
    ("grade-off-scale", QRELS_OK + b"1 0 d2 7\n", 2, "grade 7 is not on the campaign's scale"),
    ("sign-only", b"1 0 d1 +\n", 1, "is not an integer"),
    ("duplicate", QRELS_OK + b"1 0 d1 0\n", 2, "judges document 'd1' twice"),
    ("stratum-65", b"1 0 d1 " + b"s" * 65 + b" 1\n", 1, "stratum is 65 characters long"),
    ("docno-201", QRELS_OK + b"1 0 " + b"d" * 201 + b" 1\n", 2, "document number is 201 characters long"),
    ("topic-65", b"1" * 65 + b" 0 d1 1\n", 1, "topic is 65 characters long"),
    ("latin1", QRELS_OK + b"1 0 d\xe9 1\n", 2, "invalid UTF-8"),
    ("binary", QRELS_OK + b"\x00\x01\x02\n", 2, "binary data"),
    ("gzip-damaged", b"\x1f\x8b\x08\x00not-deflate", None, "damaged gzip data"),
    ("unknown-topic", b"999 0 d1 1\n", 1, "topic '999' is not in campaign"),
]
QRELS_CREATE = [  # topics created from the file: printable, no white space
    ("create-control", b"1 0 d1 1\na\x01b 0 d1 1\n", 2, "must be printable text without white space"),
    ("create-zero-width", b"1 0 d1 1\n" + "a\u200bb".encode() + b" 0 d1 1\n", 2, "must be printable text"),
    ("create-escape", b"\x1b[31m 0 d1 1\n", 1, "must be printable text"),
]
DEEP = b"[" * 20_000 + b"]" * 20_000  # past Python's recursion limit, within LIMIT
TOPICS_FILES = [
    ("empty", b"", None, "the file is empty"),
    ("jsonl-title-list", b'{"id": "7", "title": ["a", "b"]}\n', 1, "title must be a string, not a list"),
    ("jsonl-title-object", b'{"id": "7", "title": {"a": 1}}\n', 1, "title must be a string, not an object"),
    ("jsonl-narrative-number", b'{"id": "7", "title": "t", "narrative": 3}\n', 1, "narrative must be a string"),
    ("jsonl-description-bool", b'{"id": "7", "title": "t", "description": true}\n', 1, "description must be a string"),
    ("jsonl-id-bool", b'{"id": true, "title": "t"}\n', 1, "identifier must be a string or a whole number"),
    ("jsonl-id-float", b'{"id": 7.5, "title": "t"}\n', 1, "identifier must be a string or a whole number"),
    ("jsonl-id-list", b'{"id": [7], "title": "t"}\n', 1, "identifier must be a string or a whole number"),
    ("jsonl-invalid", b'{"id": "7", "title": "t"}\n{"id": "8", \n', 2, "invalid JSON"),
    ("jsonl-array", b'{"id": "7", "title": "t"}\n["id", "8"]\n', 2, "expected a JSON object"),
    ("jsonl-no-id", b'{"title": "t"}\n', 1, 'needs an "id"'),
    ("jsonl-deep", b'{"id": "7", "title": ' + DEEP + b"}\n", 1, "JSON"),
    ("jsonl-id-space", b'{"id": "a b", "title": "t"}\n', 1, "must be printable text without white space"),
    ("jsonl-id-control", b'{"id": "a\\u0007b", "title": "t"}\n', 1, "must be printable text without white space"),
    ("jsonl-id-65", b'{"id": "' + b"1" * 65 + b'", "title": "t"}\n', 1, "65 characters long"),
    ("jsonl-id-empty", b'{"id": " ", "title": "t"}\n', 1, "empty identifier"),
    ("jsonl-duplicate", b'{"id": "7", "title": "t"}\n{"id": "7", "title": "u"}\n', 2, "appears twice"),
    ("xml-billion-laughs", b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n <!ENTITY lol2 "&lol;&lol;">\n]>\n'
                           b'<topics><topic number="1"><title>&lol2;</title></topic></topics>\n', 2, "<!DOCTYPE declarations are not read"),
    ("xml-entity-only", b'<!ENTITY x "y">\n<topics><topic number="1"><title>t</title></topic></topics>\n', 1, "<!ENTITY"),
    ("xml-undefined-entity", b'<topics>\n<topic number="1"><title>&lol9;</title></topic>\n</topics>\n', 2, "entity &lol9; is not defined"),
    ("xml-no-number", b'<topics>\n<topic><title>t</title></topic>\n</topics>\n', 2, 'without a number="'),
    ("xml-id-nbsp", '<topics>\n<topic number="a\u00a0b"><title>t</title></topic>\n</topics>\n'.encode(), 2,
     "must be printable text without white space"),
    ("tsv-id-65", b"1" * 65 + b"\tt\n", 1, "65 characters long"),
    ("tsv-width-changes", b"1\tt\n2\tt\tdesc\n", 2, "expected 2 tab-separated columns"),
    ("tsv-five-columns", b"1\ta\tb\tc\td\n", 1, "expected 2, 3 or 4 tab-separated columns"),
    ("markup", b"<html><body>no topics</body></html>\n", 1, "markup without"),
    ("latin1", b"1\tcaf\xe9\n", 1, "invalid UTF-8"),
    ("binary", b"1\tt\n\x00\x00\n", 2, "binary data"),
]
DOCUMENTS = [
    ("empty", b"", None, "the file is empty"),
    ("jsonl-docno-201", b'{"docno": "' + b"d" * 201 + b'", "text": "x"}\n', 1, "201 characters long"),
    ("jsonl-title-list", b'{"docno": "d9", "title": ["a"], "text": "x"}\n', 1, '"title" must be a string, not a list'),
    ("jsonl-no-docno", b'{"text": "x"}\n', 1, "is missing, empty or contains white space"),
    ("jsonl-docno-space", b'{"docno": "d 9", "text": "x"}\n', 1, "contains white space"),
    ("jsonl-body-number", b'{"docno": "d9", "text": 5}\n', 1, '"text" must be a string'),
    ("jsonl-two-bodies", b'{"docno": "d9", "text": "x", "html": "<p>x</p>"}\n', 1, "exactly one of"),
    ("jsonl-invalid", b'{"docno": "d9", "text": "x"}\n{"docno": \n', 2, "invalid JSON"),
    ("jsonl-deep", b'{"docno": "d9", "text": ' + DEEP + b"}\n", 1, "JSON"),
    ("sgml-docno-201", b"<DOC>\n<DOCNO> " + b"d" * 201 + b" </DOCNO>\ntext\n</DOC>\n", 1, "201 characters long"),
    ("tsv-docno-201", b"d" * 201 + b"\ttext\n", 1, "201 characters long"),
    ("binary", b"d9\ttext\n\x00\x00\n", 2, "binary data"),
]


def corpus() -> list[Hostile]:
    files = [Hostile("runs", f"run-{n}.txt", c, line, says) for n, c, line, says in RUNS]
    files += [Hostile("qrels", n if len(n) > 100 else f"qrels-{n}.txt", c, line, says) for n, c, line, says in QRELS]
    files += [Hostile("qrels", f"qrels-{n}.txt", c, line, says, create=True) for n, c, line, says in QRELS_CREATE]
    files += [Hostile("topics", f"topics-{n}.txt", c, line, says) for n, c, line, says in TOPICS_FILES]
    files += [Hostile("documents", f"docs-{n}.txt", c, line, says) for n, c, line, says in DOCUMENTS]
    return files


CORPUS = corpus()


def test_the_corpus_holds_over_a_hundred_files_of_every_kind():
    assert len(CORPUS) >= 100
    assert {f.kind for f in CORPUS} == {"runs", "qrels", "topics", "documents"}


@pytest.fixture
def setting_up(campaign, participant, settings):
    """Topics 1-3, documents d1-d5, a run tagged ``base``, and the participant's team."""
    settings.IMPORT_MAX_BYTES = settings.RUN_UPLOAD_MAX_BYTES = LIMIT
    settings.RUN_UPLOADS_PER_HOUR = 10_000
    import_topics(campaign, b"1\tone\n2\ttwo\n3\tthree\n", name="topics.tsv")
    import_documents(campaign, b"".join(b"d%d\ttext %d\n" % (i, i) for i in range(1, 6)), name="docs.tsv")
    import_runs(campaign, [RunSource(b"1 Q0 d1 1 1 base\n", name="base.txt")], team_name="Other team")
    Team.objects.create(campaign=campaign, name="Pia's team").members.add(participant)
    return campaign


def stored() -> dict[str, int]:
    return {model.__name__: model.objects.count()
            for model in (Topic, Document, Judgment, JudgmentChange, PoolEntry, Run, RankedList, Team)}


def assert_refused(message: str, hostile: Hostile) -> None:
    assert "Traceback" not in message
    name = hostile.name if len(hostile.name) < 100 else hostile.name[:40]
    assert name in message, message
    if hostile.line is not None:
        assert f"line {hostile.line}:" in message, message
    assert hostile.says in message, message


COMMANDS = {"runs": "import_runs", "qrels": "import_qrels", "topics": "import_topics", "documents": "import_documents"}


def test_every_hostile_file_is_refused_by_the_import_commands_naming_file_and_line(setting_up, subtests, tmp_path):
    before = stored()
    for hostile in CORPUS:
        with subtests.test(msg=str(hostile)):
            path = tmp_path / hostile.name
            path.write_bytes(hostile.content)
            with pytest.raises(CommandError) as refused:
                call_command(COMMANDS[hostile.kind], "--campaign", setting_up.slug, str(path),
                             *(["--create-topics"] if hostile.create else []))
            assert_refused(str(refused.value).replace(str(tmp_path) + "/", ""), hostile)
            assert stored() == before


def upload(hostile: Hostile):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(hostile.name, hostile.content, content_type="application/octet-stream")


def test_every_hostile_file_is_refused_by_the_organizers_import_page_naming_file_and_line(setting_up, subtests, client,
                                                                                          organizer):
    client.force_login(organizer)
    before = stored()
    for hostile in CORPUS:
        with subtests.test(msg=str(hostile)):
            data = {"file": upload(hostile), "unknown_topics": "create" if hostile.create else "reject"}
            response = client.post(reverse("campaign_import_kind", args=[setting_up.slug, hostile.kind]), data)
            assert response.status_code == 400
            assert_refused(html.unescape(response.content.decode()), hostile)
            assert stored() == before


def test_every_hostile_run_is_refused_by_the_participants_upload_page_naming_file_and_line(setting_up, subtests, client,
                                                                                            participant):
    client.force_login(participant)
    before = stored()
    for hostile in [f for f in CORPUS if f.kind == "runs"]:
        with subtests.test(msg=str(hostile)):
            response = client.post(reverse("team_runs", args=[setting_up.slug]), {"file": upload(hostile), "priority": 1})
            assert response.status_code == 400
            page = html.unescape(response.content.decode())
            assert_refused(page, hostile)
            assert stored() == before
            if hostile.name == "run-tag-taken.txt":  # another team's tag, before the release: not named as taken
                assert "not available in this campaign" in page and "already taken" not in page


@pytest.mark.parametrize("kind, ending, content", [
    ("qrels", ".txt", b"1 0 d1 1\n"), ("runs", ".txt", b"1 Q0 d1 1 1 long\n"), ("topics", ".tsv", b"4\tfour\n"),
    ("documents", ".tsv", b"d9\tnine\n")])
def test_a_file_named_with_215_characters_is_imported_and_a_name_too_long_to_store_is_shortened(
        setting_up, client, organizer, kind, ending, content, tmp_path):
    from campaigns.identifiers import shortened

    name = "n" * (215 - len(ending)) + ending  # legal on every file system (255 bytes)
    client.force_login(organizer)
    response = client.post(reverse("campaign_import_kind", args=[setting_up.slug, kind]),
                           {"file": upload(Hostile(kind, name, content, None, ""))}, follow=True)
    assert response.status_code == 200, html.unescape(response.content.decode())[-2000:]
    if kind == "qrels":
        source = Judgment.objects.get(document__docno="d1", assessor=None).source
        assert source == shortened("qrels:" + name, 200) and len(source) == 200 and source.endswith("n" * 36 + ".txt")
        (tmp_path / name).write_bytes(b"2 0 d2 1\n")  # the command says so
        out = io.StringIO()
        call_command("import_qrels", "--campaign", setting_up.slug, str(tmp_path / name), stdout=out, stderr=out)
        assert "longer than the 194 characters the judgments record; they name their source 'qrels:nnn" in out.getvalue()
    if kind == "runs":
        assert Run.objects.get(tag="long").source_name == name


def test_shortened_keeps_the_start_and_the_ending_of_a_name():
    from campaigns.identifiers import shortened

    assert shortened("qrels-2026.txt", 20) == "qrels-2026.txt"
    assert shortened("a" * 100 + "-final.txt", 30) == "a" * 15 + "…" + "a" * 4 + "-final.txt"
    assert len(shortened("x" * 300, 255)) == 255


def test_refused_uploads_count_against_the_teams_hourly_limit(setting_up, client, participant, settings):
    settings.RUN_UPLOADS_PER_HOUR = 3
    client.force_login(participant)
    bad = Hostile("runs", "run-bad.txt", b"1 Q0 d1 1 x r1\n", 1, "score 'x'")
    for _ in range(3):
        assert client.post(reverse("team_runs", args=[setting_up.slug]), {"file": upload(bad), "priority": 1}).status_code == 400
    good = Hostile("runs", "run-good.txt", b"1 Q0 d1 1 1 good\n", None, "")
    response = client.post(reverse("team_runs", args=[setting_up.slug]), {"file": upload(good), "priority": 1})
    assert response.status_code == 400
    assert "3 uploads in the last hour, the limit" in html.unescape(response.content.decode())
    assert not Run.objects.filter(tag="good").exists()
    assert UploadAttempt.objects.filter(accepted=False).count() == 3  # the fourth was not even read


# --------------------------------------------------------------------------------------------
# Topic and document files in bounded memory

READ_IN_A_CHILD = r"""
import re, sys
from campaigns.collection_files import iter_documents, read_topics
from evaluation.measures.trec_sources import TrecFormatError
kind, path = sys.argv[1], sys.argv[2]
try:
    with open(path, "rb") as upload:  # as the upload page's job and the commands hand it over
        read_topics(upload, name="bomb.gz") if kind == "topics" else list(iter_documents(upload, name="bomb.gz"))
    print("read")
except TrecFormatError as exc:
    print(exc)
print(re.search(r"VmHWM:\s+(\d+) kB", open("/proc/self/status").read()).group(1))
"""


@pytest.mark.parametrize("kind, start", [("topics", b"1\t"), ("documents", b"d1\t")])
def test_a_gzip_bomb_of_one_300_mb_line_is_refused_in_under_512_mib(tmp_path, kind, start):
    """Today's figures before the readers were bounded: 1.3 GiB (topics) and 1.4 GiB (documents)."""
    import subprocess
    import sys
    from pathlib import Path

    path = tmp_path / "bomb.gz"
    with gzip.open(path, "wb", compresslevel=1) as out:  # written a MB at a time: this process stays small
        out.write(start)
        for _ in range(300):
            out.write(b"x" * 10**6)
        out.write(b"\n")
    assert path.stat().st_size < 2 * 2**20
    result = subprocess.run([sys.executable, "-c", READ_IN_A_CHILD, kind, str(path)], capture_output=True, text=True,
                            cwd=Path(__file__).resolve().parents[1], check=True)
    said, peak_kib = result.stdout.strip().splitlines()
    assert said == {"topics": "bomb.gz: the file is larger than the limit of 33,554,432 bytes uncompressed",  # read whole
                    "documents": "bomb.gz, line 1: the line is longer than the limit of 16,777,216 bytes"}[kind]
    # KiB: VmHWM, the child's own peak since it started (ru_maxrss would count this process's memory, copied
    # at the fork before the child's exec; RUSAGE_CHILDREN this process's other children).
    assert int(peak_kib) < 512 * 1024
