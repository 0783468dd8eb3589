"""Imports and exports through the management commands: real TREC data, round trips, bad input."""

import gzip
import io
import os
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from campaigns.run_imports import RunSource, import_runs
from evaluation.measures.trec_files import read_qrels, read_run
from campaigns.models import RankedList, Run, Team
from campaigns.models import Campaign, Document, Topic
from judging.models import Judgment, JudgmentChange, PoolEntry
from tests.conftest import make_campaign, shared_rows

CDS = Path(__file__).resolve().parents[1] / "data" / "reference" / "trec_cds_2015"
RUNS = sorted(str(p) for p in (CDS / "runs").iterdir())

pytestmark = pytest.mark.django_db


def run_command(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def stored() -> dict:
    """Everything an import may write, counted."""
    models = [Topic, Document, Judgment, JudgmentChange, PoolEntry, Run, RankedList, Team]
    return {model.__name__: model.objects.count() for model in models}


def write(tmp_path, name: str, content: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(content)
    return str(path)


@pytest.fixture(scope="class")
def cds_imported(django_db_setup, django_db_blocker):
    """The CDS 2015 campaign with its sampled qrels and the six TUW runs imported by the commands,
    once for the tests of a class (``shared_rows``: each test's writes are still rolled back)."""
    with shared_rows(django_db_blocker):
        make_campaign()
        run_command("import_qrels", "--campaign", "cds15", str(CDS / "qrels-sampleval-2015.txt"), "--create-topics")
        run_command("import_runs", "--campaign", "cds15", "--tag-from-filename", *RUNS)
        yield


@pytest.fixture
def cds(cds_imported, db):
    return Campaign.objects.get(slug="cds15")


@pytest.fixture
def small(campaign, tmp_path):
    """A campaign with two topics, one run and a few judgments: something to keep intact."""
    run_command("import_topics", "--campaign", "cds15", write(tmp_path, "t.tsv", b"1\tone\n2\ttwo\n"))
    run_command("import_runs", "--campaign", "cds15", write(tmp_path, "old.run", b"1 Q0 d1 1 2 old\n2 Q0 d2 1 2 old\n"))
    run_command("import_qrels", "--campaign", "cds15", write(tmp_path, "old.qrels", b"1 0 d1 1\n2 0 d2 0\n"))
    return campaign


def rows(qrels) -> set:
    stratum = qrels.stratum if qrels.sampled else [None] * len(qrels)
    return set(zip(qrels.topic.tolist(), qrels.docno.tolist(), list(stratum), qrels.rel.tolist()))


def test_create_campaign_defaults_to_a_binary_scale_and_depth_1000(db):
    run_command("create_campaign", "robust04", "--name", "Robust 2004")
    campaign = Campaign.objects.get(slug="robust04")
    assert campaign.grades == [0, 1] and campaign.depth == 1000 and campaign.relevant_from == 1


def test_create_campaign_reads_the_assessors_guidelines_from_a_file(db, tmp_path):
    path = write(tmp_path, "guide.txt", "Relevant: the document answers the topic.\n\nUnsure? Press L.\n".encode())
    run_command("create_campaign", "g", "--guidelines", path)
    assert Campaign.objects.get(slug="g").guidelines == "Relevant: the document answers the topic.\n\nUnsure? Press L."
    bad = write(tmp_path, "bad.txt", b"\xff\xfe")
    with pytest.raises(CommandError, match=f"--guidelines {bad}: 'utf-8' codec can't decode byte 0xff"):
        run_command("create_campaign", "h", "--guidelines", bad)
    with pytest.raises(CommandError, match="--guidelines /nonexistent.txt: .*No such file"):
        run_command("create_campaign", "h", "--guidelines", "/nonexistent.txt")
    assert not Campaign.objects.filter(slug="h").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--scale", "0:No,0:Yes"], "--scale: grades [0, 0] must be distinct and in increasing order"),
        (["--scale", "0:No,x:Yes"], "--scale: grade 'x' in scale entry 'x:Yes' is not an integer"),
        (["--scale", "0:No,1:Yes", "--relevant-from", "3"], "--relevant-from: 3 is not a grade of the scale [0, 1]"),
        (["--relevant-from", "0"], "--relevant-from: the lowest grade cannot count as relevant"),
        (["--depth", "0"], "--depth: Ensure this value is greater than or equal to 1."),
    ],
)
def test_create_campaign_refuses_a_bad_scale_or_depth(db, args, message):
    with pytest.raises(CommandError, match=re.escape(message)):
        run_command("create_campaign", "x", *args)
    assert not Campaign.objects.exists()


def test_create_campaign_refuses_a_slug_in_use_or_not_a_slug(db):
    run_command("create_campaign", "robust04")
    with pytest.raises(CommandError, match="SLUG: Campaign with this Slug already exists"):
        run_command("create_campaign", "robust04", "--name", "Again")
    with pytest.raises(CommandError, match="SLUG: Enter a valid “slug”"):
        run_command("create_campaign", "robust 04")
    assert list(Campaign.objects.values_list("slug", "name")) == [("robust04", "robust04")]


class TestCDS2015:
    """The whole CDS 2015 import, shared by these tests (it takes seconds)."""

    def test_cds_2015_sampled_qrels_and_runs_import_and_export_the_same_rows(self, cds, tmp_path):
        assert Topic.objects.filter(campaign=cds).count() == 30
        assert PoolEntry.objects.count() == 95487
        assert Judgment.objects.count() == 95487 - 57680  # rows with rel >= 0
        assert Run.objects.filter(campaign=cds).count() == 6
        assert RankedList.objects.count() == 6 * 30
        out = tmp_path / "sampled.txt"
        run_command("export_qrels", "--campaign", "cds15", "--sampled", "-o", str(out))
        assert rows(read_qrels(out)) == rows(read_qrels(CDS / "qrels-sampleval-2015.txt"))
        # Inclusion probability = judged rows / rows of the topic's stratum, as sample_eval.pl infers it.
        entries = PoolEntry.objects.filter(topic__identifier="1", stratum="2")
        judged = entries.filter(sampled=True).count()
        assert 0 < judged < entries.count()
        probabilities = {e.inclusion_probability for e in entries}
        assert len(probabilities) == 1 and probabilities.pop() == pytest.approx(judged / entries.count())
        assert set(PoolEntry.objects.filter(stratum="1").values_list("inclusion_probability", flat=True)) == {1.0}
        # Each run got a team named after its tag.
        assert set(Team.objects.values_list("name", flat=True)) == {f"TUW{i}" for i in range(1, 7)}


    def test_four_column_export_of_judged_rows_equals_nists_trec_eval_qrels(self, cds, tmp_path):
        # SOURCES.md: the trec_eval qrels are exactly the sampled rows with rel >= 0, stratum dropped.
        out = tmp_path / "qrels.txt"
        run_command("export_qrels", "--campaign", "cds15", "--judged-only", "-o", str(out))
        assert rows(read_qrels(out)) == rows(read_qrels(CDS / "qrels-treceval-2015.txt"))


    def test_a_run_downloads_back_as_the_same_ranked_lines(self, cds, tmp_path):
        out = tmp_path / "TUW1.txt"
        run_command("export_run", "--campaign", "cds15", "TUW1", "-o", str(out))
        original, exported = read_run(RUNS[0]), read_run(out)
        assert exported.tag == "TUW1"
        assert set(zip(exported.topic, exported.docno, exported.score)) == set(
            zip(original.topic, original.docno, original.score)
        )


def test_stored_ranked_lists_follow_the_tie_rule(campaign, tmp_path):
    run_command("import_topics", "--campaign", "cds15", write(tmp_path, "t.tsv", b"1\tfirst\n"))
    path = write(tmp_path, "r", b"1 Q0 a 1 5 r\n1 Q0 c 2 5 r\n1 Q0 b 3 5 r\n1 Q0 z 4 9 r\n")
    run_command("import_runs", "--campaign", "cds15", path)
    docno = dict(Document.objects.values_list("pk", "docno"))
    assert [docno[i] for i in RankedList.objects.get().document_ids().tolist()] == ["z", "c", "b", "a"]


def test_files_sharing_a_run_tag_are_refused_unless_named_after_their_files(campaign):
    run_command("import_qrels", "--campaign", "cds15", str(CDS / "qrels-treceval-2015.txt"), "--create-topics")
    before = stored()
    with pytest.raises(CommandError, match=r"TUW2, line 1: run tag 'TUWien' is already taken in this campaign"):
        run_command("import_runs", "--campaign", "cds15", *RUNS[:2])
    assert stored() == before


def test_reimporting_changed_qrels_updates_grades_and_keeps_history(campaign, tmp_path):
    first = write(tmp_path, "q.txt", b"1 0 a 1\n1 0 b 0\n")
    run_command("import_qrels", "--campaign", "cds15", first, "--create-topics")
    second = write(tmp_path, "q.txt", b"1 0 a 2\n1 0 b 0\n")
    assert run_command("import_qrels", "--campaign", "cds15", second) == "0 judgments created, 1 updated, 1 unchanged\n"
    judgment = Judgment.objects.get(document__docno="a")
    assert judgment.grade == 2
    assert list(judgment.history.values_list("old_grade", "new_grade")) == [(None, 1), (1, 2)]


def test_topics_import_in_every_supported_format(campaign, tmp_path):
    sgml = b"""<top>
<num> Number: 301
<title> International Organized Crime
<desc> Description:
Identify organizations that participate in international criminal activity.
<narr> Narrative:
A relevant document must as a minimum identify the organization.
</top>
"""
    xml = b'<topics><topic number="31_1" type="diagnosis"><description>A 58-year-old woman</description>' \
          b"<summary>Fever and cough</summary></topic></topics>"
    jsonl = b'{"id": "7", "title": "t", "description": "d", "narrative": "n"}\n'
    for name, content in (("t.sgml", sgml), ("t.xml", xml), ("t.jsonl", jsonl), ("t.tsv", b"12\tsolar\n")):
        run_command("import_topics", "--campaign", "cds15", write(tmp_path, name, content))
    topic = Topic.objects.get(identifier="301")
    assert topic.title == "International Organized Crime"
    assert topic.description == "Identify organizations that participate in international criminal activity."
    assert topic.narrative == "A relevant document must as a minimum identify the organization."
    assert Topic.objects.get(identifier="31_1").narrative == "Fever and cough"
    assert Topic.objects.get(identifier="7").narrative == "n"
    assert Topic.objects.get(identifier="12").title == "solar"


def test_documents_import_from_trec_sgml_and_jsonl(campaign, tmp_path):
    sgml = b"<DOC>\n<DOCNO> FT911-1 </DOCNO>\n<HEADLINE>Solar panels</HEADLINE>\n<TEXT>Glass and silver.</TEXT>\n</DOC>\n"
    jsonl = b'{"docno": "web-1", "title": "A page", "html": "<p>Hello</p>"}\n{"docno": "web-2", "text": "plain"}\n'
    run_command("import_documents", "--campaign", "cds15", write(tmp_path, "d.sgml", sgml), write(tmp_path, "d.jsonl", jsonl))
    doc = Document.objects.get(docno="FT911-1")
    assert doc.title == "Solar panels" and "<TEXT>Glass and silver.</TEXT>" in doc.body
    assert Document.objects.get(docno="web-1").is_html and not Document.objects.get(docno="web-2").is_html


def test_a_latin1_collection_imports_as_windows_1252_with_a_warning_naming_the_first_line(campaign, tmp_path):
    from campaigns.imports import import_documents

    content = "<DOC>\n<DOCNO> LA010189-0001 </DOCNO>\n<TEXT>Jos\u00e9 Mart\u00ed\u2019s</TEXT>\n</DOC>\n".encode("cp1252")
    path = write(tmp_path, "la.sgml.gz", gzip.compress(content))
    out, err = io.StringIO(), io.StringIO()
    call_command("import_documents", "--campaign", "cds15", path, stdout=out, stderr=err)
    assert Document.objects.get(docno="LA010189-0001").body == "<TEXT>Jos\u00e9 Mart\u00ed\u2019s</TEXT>"
    assert err.getvalue() == (f"warning: {path}: 1 line(s) are not UTF-8 (the first is line 3) and were read as "
                              "Windows-1252, the Latin-1 of the older TREC collections\n")
    report = import_documents(campaign, content, name="upload.sgml")  # an upload: the same, from bytes
    assert (report.updated, len(report.warnings)) == (1, 1)


def test_a_bad_collection_file_after_a_good_one_stores_neither(small, tmp_path):
    before = stored()
    good = write(tmp_path, "good.jsonl", b'{"docno": "new-1", "text": "x"}\n')
    bad = write(tmp_path, "bad.jsonl", b'{"docno": "new-2", "text": "y"}\n{"docno": "new-3"}\n')
    out = io.StringIO()
    with pytest.raises(CommandError, match=r"bad\.jsonl, line 2: a document needs exactly one of .*; nothing was stored"):
        call_command("import_documents", "--campaign", "cds15", good, bad, stdout=out, stderr=io.StringIO())
    assert stored() == before and out.getvalue() == ""


def test_gzip_compressed_collections_import_from_a_path_or_an_upload_as_their_content(campaign, tmp_path):
    from campaigns.imports import import_documents

    sgml = b"".join(b"<DOC>\n<DOCNO> D%d </DOCNO>\n<TEXT>text %d</TEXT>\n</DOC>\n" % (i, i) for i in range(500))
    run_command("import_documents", "--campaign", "cds15", write(tmp_path, "d.sgml.gz", gzip.compress(sgml)))
    assert Document.objects.count() == 500 and "text 499" in Document.objects.get(docno="D499").body
    report = import_documents(campaign, gzip.compress(sgml.replace(b"text", b"new")), name="upload.gz")
    assert (report.created, report.updated) == (0, 500) and "new 499" in Document.objects.get(docno="D499").body


def test_a_cut_short_gzip_collection_names_the_line_and_stores_nothing(small, tmp_path):
    sgml = b"".join(b"<DOC>\n<DOCNO> D%d </DOCNO>\n<TEXT>%s</TEXT>\n</DOC>\n" % (i, os.urandom(30).hex().encode())
                    for i in range(2000))
    data = gzip.compress(sgml)
    path = write(tmp_path, "d.sgml.gz", data[: len(data) // 2])
    before = stored()
    with pytest.raises(CommandError, match=r"d\.sgml\.gz, line \d+: damaged gzip data \(Compressed file ended before"):
        run_command("import_documents", "--campaign", "cds15", path)
    assert stored() == before


def test_documents_import_can_keep_only_what_the_pool_or_runs_need(campaign, tmp_path):
    run_command("import_qrels", "--campaign", "cds15", write(tmp_path, "q", b"1 0 a 1\n"), "--create-topics")
    run_command("import_runs", "--campaign", "cds15", write(tmp_path, "r", b"1 Q0 b 1 1 r\n"))
    jsonl = b"".join(b'{"docno": "%s", "text": "x"}\n' % d for d in (b"a", b"b", b"c"))
    out = run_command("import_documents", "--campaign", "cds15", "--only-needed", write(tmp_path, "d.jsonl", jsonl))
    assert "1 skipped" in out
    assert set(Document.objects.values_list("docno", flat=True)) == {"a", "b"}


def import_runs_warnings(*args) -> list[str]:
    err = io.StringIO()
    call_command("import_runs", "--campaign", "cds15", *args, stdout=io.StringIO(), stderr=err)
    return err.getvalue().splitlines()


def test_a_run_that_misses_topics_or_lists_too_deep_is_stored_with_warnings(small, tmp_path):
    Campaign.objects.filter(slug="cds15").update(depth=2)
    path = write(tmp_path, "r.run", b"1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n1 Q0 d3 3 1 r\n")  # topic 2 missing, 3 > depth 2
    assert import_runs_warnings(path) == [
        f"warning: {path}: no documents for 1 of the campaign's 2 topics (2); they count 0 in the means",
        f"warning: {path}: 1 topic(s) list more than the evaluation depth of 2 documents (topic 1: 3); "
        "documents ranked below 2 are not evaluated",
    ]
    assert Run.objects.get(tag="r").line_count == 3


def test_runs_are_automatic_unless_the_command_names_another_run_type(small, tmp_path):
    run_command("import_runs", "--campaign", "cds15", write(tmp_path, "a.run", b"1 Q0 d1 1 3 a\n"))
    run_command("import_runs", "--campaign", "cds15", "--type", "manual", write(tmp_path, "m.run", b"1 Q0 d1 1 3 m\n"))
    assert dict(Run.objects.values_list("tag", "run_type")) == {"old": "automatic", "a": "automatic", "m": "manual"}
    with pytest.raises(CommandError, match="invalid choice: 'human'"):
        run_command("import_runs", "--campaign", "cds15", "--type", "human", write(tmp_path, "h.run", b"1 Q0 d1 1 3 h\n"))
    with pytest.raises(ValueError, match="run type 'human' is not one of automatic, manual, feedback"):
        import_runs(small, [RunSource(b"1 Q0 d1 1 3 h\n", name="h.run")], run_type="human")
    assert not Run.objects.filter(tag="h").exists()


def test_document_numbers_not_in_the_imported_collection_are_named_with_the_first_line(small, tmp_path):
    run = write(tmp_path, "r.run", b"1 Q0 d1 1 3 r\n1 Q0 D-1 2 2 r\n2 Q0 d2 1 1 r\n2 Q0 D-2 2 1 r\n")
    assert import_runs_warnings(run) == []  # d1 and d2 are empty rows made by the qrels: no text imported, no check
    run_command("import_documents", "--campaign", "cds15",
                write(tmp_path, "d.jsonl", b'{"docno": "d1", "text": "one"}\n{"docno": "d2", "text": "two"}\n'))
    run = write(tmp_path, "s.run", b"1 Q0 d1 1 3 s\n1 Q0 D-1 2 2 s\n2 Q0 d2 1 1 s\n2 Q0 D-2 2 1 s\n")
    assert import_runs_warnings(run) == [
        f"warning: {run}, line 2: document 'D-1' is not in the collection, nor are 1 more of the run's 4 lines; "
        "check the document numbers (they score nothing unless judged)"
    ]


# Every bad-input case: the message names the file and line, and nothing is stored.
BAD_RUNS = [
    (b"1 Q0 d1 1 2 r\n1 Q0 d2 2 r\n", "line 2: expected 6 columns (topic Q0 docno rank score tag) in a run file, found 5"),
    (b"1 Q0 d1 1 2 r\n1 Q0 d2 2 high r\n", "line 2: score 'high' is not a number"),
    (b"1 Q0 d1 1 2 r\n1 Q0 d1 2 1 r\n", "line 2: document 'd1' appears twice for topic '1' (first on line 1)"),
    (b"1 Q0 d1 1 2 r\n999 Q0 d2 2 1 r\n", "line 2: topic '999' is not in campaign 'cds15'"),
    (b"1 Q0 d1 1 2 r\n1 Q0 d2 2 1 s\n", "line 2: run tag 's' differs from 'r' on line 1; one run per file"),
    (b"", "the file is empty"),
    (b"1 Q0 d1 1 2 r\n1 Q0 \xff 2 1 r\n", "line 2: invalid UTF-8 (byte 0xff)"),
    (b"1 Q0 d1 1 2 r\n\x00\x01\x02", "line 2: binary data (a NUL byte); expected a text file"),
]


@pytest.mark.parametrize("content, problem", BAD_RUNS)
def test_a_bad_run_among_good_ones_stores_nothing(small, tmp_path, content, problem):
    before = stored()
    good = write(tmp_path, "good.run", b"1 Q0 d1 1 2 fresh\n")
    bad = write(tmp_path, "bad.run", content)
    with pytest.raises(CommandError) as error:
        run_command("import_runs", "--campaign", "cds15", good, bad)
    assert str(error.value).startswith(f"{bad}")
    assert problem in str(error.value) and str(error.value).endswith("nothing was stored")
    assert stored() == before


BAD_QRELS = [
    (b"1 0 d1 1\n1 0 d2 1 1 1\n", "line 2: expected 4 columns (topic iter docno rel) in a qrels file, found 6"),
    (b"1 0 d1 1\n1 0 d2 yes\n", "line 2: relevance 'yes' is not an integer"),
    (b"1 0 d1 1\n1 0 d2 7\n", "line 2: grade 7 is not on the campaign's scale [0, 1, 2]"),
    (b"1 0 d1 1\n999 0 d2 1\n", "line 2: topic '999' is not in campaign 'cds15'"),
    (b"1 0 d1 1\n1 0 d1 0\n", "line 2: topic '1' judges document 'd1' twice (first on line 1)"),
    (b"\n", "the file is empty"),
    (b"1 0 d1 1\n1 0 d\xc3 1\n", "line 2: invalid UTF-8 (byte 0xc3)"),
    (b"\x00\x00", "line 1: binary data (a NUL byte); expected a text file"),
]


@pytest.mark.parametrize("content, problem", BAD_QRELS)
def test_bad_qrels_store_nothing(small, tmp_path, content, problem):
    before = stored()
    bad = write(tmp_path, "bad.qrels", content)
    with pytest.raises(CommandError) as error:
        run_command("import_qrels", "--campaign", "cds15", bad)
    assert str(error.value).startswith(bad) and problem in str(error.value)
    assert stored() == before


def test_unknown_topics_can_be_skipped_with_a_warning(small, tmp_path):
    before = stored()
    path = write(tmp_path, "q", b"1 0 newdoc 1\n999 0 d2 1\n")
    err = io.StringIO()
    call_command("import_qrels", "--campaign", "cds15", path, "--skip-unknown-topics", stdout=io.StringIO(), stderr=err)
    assert "skipped lines of 1 topic(s) not in the campaign: 999" in err.getvalue()
    assert stored()["Judgment"] == before["Judgment"] + 1
    assert not Topic.objects.filter(identifier="999").exists()


@pytest.mark.parametrize(
    "command, content, problem",
    [
        ("import_topics", b"<top>\n<title> no number\n</top>\n", "line 1: topic without <num>"),
        ("import_topics", b"1\tone\n1\tagain\n", "line 2: topic '1' appears twice (first on line 1)"),
        ("import_topics", b'{"id": "1"}\n{"title": "x"}\n', 'line 2: a topic object needs an "id" (or "topic_id", "query_id", "qid")'),
        ("import_topics", b"1\tone\n2\n", "line 2: expected 2 tab-separated columns like the first line, found 1"),
        ("import_documents", b'{"docno": "a", "text": "x"}\n{"docno": "a", "text": "y"}\n', "line 2: document 'a' appears twice"),
        ("import_documents", b'{"docno": "a", "text": "x"}\n{"docno": "b", "text": "y"\n', "line 2: invalid JSON"),
        ("import_documents", b"<DOC>\n<DOCNO>a</DOCNO>\ntext\n", "line 1: <DOC> is not closed by </DOC>"),
        ("import_documents", b"<DOC>\ntext\n</DOC>\n", "line 1: document without <DOCNO>"),
    ],
)
def test_bad_topic_and_document_files_store_nothing(small, tmp_path, command, content, problem):
    before = stored()
    bad = write(tmp_path, "bad.txt", content)
    with pytest.raises(CommandError) as error:
        run_command(command, "--campaign", "cds15", bad)
    assert str(error.value).startswith(bad) and problem in str(error.value)
    assert stored() == before


def test_a_file_over_the_configured_size_limit_is_refused(small, tmp_path, settings):
    settings.IMPORT_MAX_BYTES = 10
    before = stored()
    path = write(tmp_path, "r.run", b"1 Q0 d1 1 2 r\n")
    with pytest.raises(CommandError, match="the file is larger than the limit of 10 bytes; nothing was stored"):
        run_command("import_runs", "--campaign", "cds15", path)
    assert stored() == before


def test_an_unknown_campaign_is_a_clear_error(db):
    with pytest.raises(CommandError, match="no campaign with slug 'nope'"):
        run_command("import_qrels", "--campaign", "nope", "x")


def test_sampled_export_needs_strata(campaign, tmp_path):
    run_command("import_qrels", "--campaign", "cds15", write(tmp_path, "q", b"1 0 a 1\n"), "--create-topics")
    with pytest.raises(CommandError, match="1 pooled document\\(s\\) of campaign 'cds15' have no stratum"):
        run_command("export_qrels", "--campaign", "cds15", "--sampled")
