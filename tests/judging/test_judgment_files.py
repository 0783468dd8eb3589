"""The judging record as CSV: every judge's judgments, every change and every adjudication, row by row."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from judging.judgment_files import TABLES, write_table
from campaigns.models import Document, Topic
from judging.models import Adjudication, Assignment, Judgment, JudgmentChange

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 11, 2, 9, 30, 15, 250000, tzinfo=UTC)
NOTE = 'on second thought, "partly"\nsee the narrative'


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def stamp(minutes: float) -> str:
    return at(minutes).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


@pytest.fixture
def record(campaign, named_assessor, organizer):
    """Topic 1: imported d1; ann (primary) judged d1 (0, then 2) and d2; bob (second) d1; cat, no longer
    assigned, d2; the organizer adjudicated d1 and dealt with ann's note. Topic 2: imported d3."""
    ann, bob, cat = named_assessor("ann"), named_assessor("bob"), named_assessor("cat")
    one = Topic.objects.create(campaign=campaign, identifier="1", position=0)
    two = Topic.objects.create(campaign=campaign, identifier="2", position=1)
    Assignment.objects.create(campaign=campaign, topic=one, assessor=ann, role="primary")
    Assignment.objects.create(campaign=campaign, topic=one, assessor=bob, role="second")
    docs = {docno: Document.objects.create(campaign=campaign, docno=docno) for docno in ("d1", "d2", "d3")}

    def judged(topic, docno, changes, *, assessor=None, source="", seconds=None, note=""):
        """A judgment with its history: ``changes`` = [(grade, minutes, submission), …], oldest first."""
        judgment = Judgment.objects.create(
            campaign=campaign, topic=topic, document=docs[docno], assessor=assessor, source=source,
            grade=changes[-1][0], seconds=seconds, note=note, created=at(changes[0][1]), updated=at(changes[-1][1]),
        )
        old = None
        for grade, minutes, submission in changes:
            JudgmentChange.objects.create(judgment=judgment, changed_by=assessor, source=source, old_grade=old,
                                          new_grade=grade, at=at(minutes), submission=submission)
            old = grade

    judged(one, "d1", [(1, 0, "")], source="qrels:q.txt")
    judged(two, "d3", [(2, 0, "")], source="qrels:q.txt")
    judged(one, "d1", [(0, 10, "ann-000001"), (2, 12.5, "ann-000002")], assessor=ann, seconds=30.25, note=NOTE)
    Judgment.objects.filter(assessor=ann, document=docs["d1"]).update(note_handled_by=organizer, note_handled_at=at(21))
    judged(one, "d1", [(0, 11, "bob-000001")], assessor=bob, seconds=9)
    judged(one, "d2", [(1, 13, "ann-000003")], assessor=ann)
    judged(one, "d2", [(0, 14, "cat-000001")], assessor=cat, seconds=4.5)
    Adjudication.objects.create(campaign=campaign, topic=one, document=docs["d1"], grade=1, decided_by=organizer,
                                note="partly relevant, as the narrative says", at=at(20))
    return campaign


def table(campaign, name: str) -> list[list[str]]:
    out = io.StringIO()
    write_table(campaign, name, out)
    return list(csv.reader(io.StringIO(out.getvalue())))


def test_the_judgments_table_has_one_row_per_judge_and_document_with_its_role_and_the_official_grade(record):
    # Official grades (adjudicated policy): d1 the organizer's 1 (ann, the primary, says 2); d2 ann's 1; d3 imported 2.
    assert table(record, "judgments") == [
        ["topic", "docno", "assessor", "role", "source", "grade", "official", "seconds", "note", "note_handled_by",
         "note_handled_at", "created", "updated", "changes"],
        ["1", "d1", "", "", "qrels:q.txt", "1", "1", "", "", "", "", stamp(0), stamp(0), "1"],
        ["1", "d1", "ann", "primary", "", "2", "1", "30.250", NOTE, "olga", stamp(21), stamp(10), stamp(12.5), "2"],
        ["1", "d1", "bob", "second", "", "0", "1", "9.000", "", "", "", stamp(11), stamp(11), "1"],
        ["1", "d2", "ann", "primary", "", "1", "1", "", "", "", "", stamp(13), stamp(13), "1"],
        ["1", "d2", "cat", "", "", "0", "1", "4.500", "", "", "", stamp(14), stamp(14), "1"],  # cat: no assignment now
        ["2", "d3", "", "", "qrels:q.txt", "2", "2", "", "", "", "", stamp(0), stamp(0), "1"],
    ]


def test_the_official_column_follows_the_campaigns_policy(record):
    record.set_adjudication_policy("primary")
    official = {(row[0], row[1]) for row in table(record, "judgments")[1:] if row[6] == "2"}
    assert official == {("1", "d1"), ("2", "d3")}  # d1: ann's 2 now counts, not the adjudication


def test_the_history_table_lists_every_grade_each_judgment_had_oldest_first(record):
    assert stamp(12.5) == "2026-11-02T09:42:45.250Z"  # times in UTC, to the millisecond
    assert table(record, "history") == [
        ["topic", "docno", "assessor", "source", "changed_by", "old_grade", "new_grade", "at", "submission"],
        ["1", "d1", "", "qrels:q.txt", "", "", "1", stamp(0), ""],
        ["1", "d1", "ann", "", "ann", "", "0", stamp(10), "ann-000001"],
        ["1", "d1", "ann", "", "ann", "0", "2", stamp(12.5), "ann-000002"],
        ["1", "d1", "bob", "", "bob", "", "0", stamp(11), "bob-000001"],
        ["1", "d2", "ann", "", "ann", "", "1", stamp(13), "ann-000003"],
        ["1", "d2", "cat", "", "cat", "", "0", stamp(14), "cat-000001"],
        ["2", "d3", "", "qrels:q.txt", "", "", "2", stamp(0), ""],
    ]


def test_the_adjudications_table_keeps_every_decision(record, organizer):
    topic, document = Topic.objects.get(identifier="1"), Document.objects.get(docno="d1")
    Adjudication.objects.create(campaign=record, topic=topic, document=document, grade=2, decided_by=organizer,
                                at=at(30))
    assert table(record, "adjudications") == [
        ["topic", "docno", "grade", "decided_by", "note", "at"],
        ["1", "d1", "1", "olga", "partly relevant, as the narrative says", stamp(20)],
        ["1", "d1", "2", "olga", "", stamp(30)],
    ]


def test_an_unknown_table_is_refused_by_name(record):
    with pytest.raises(ValueError, match="'scores'.*judgments, history, adjudications"):
        write_table(record, "scores", io.StringIO())


@pytest.mark.parametrize("name", TABLES)
def test_organizers_download_each_table_as_a_csv_file(client, record, organizer, name):
    client.force_login(organizer)
    response = client.get(reverse("judgments_csv", args=[record.slug, name]))
    assert response.status_code == 200 and response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="cds15.{name}.csv"'
    assert list(csv.reader(io.StringIO(response.content.decode()))) == table(record, name)


def test_the_campaign_page_links_the_three_tables(client, record, organizer):
    client.force_login(organizer)
    page = client.get(reverse("campaign", args=[record.slug])).content.decode()
    for name in TABLES:
        assert f'href="{reverse("judgments_csv", args=[record.slug, name])}"' in page


def test_only_organizers_download_the_record_and_an_unknown_table_is_404(client, record, organizer, assessor, participant):
    url = reverse("judgments_csv", args=[record.slug, "judgments"])
    assert client.get(url)["Location"].startswith(reverse("login"))
    for user in (assessor, participant):
        client.force_login(user)
        assert client.get(url).status_code == 403
    client.force_login(organizer)
    assert client.get(reverse("judgments_csv", args=[record.slug, "scores"])).status_code == 404


def test_the_command_writes_the_same_tables_to_a_file_or_standard_output(record, tmp_path):
    for name in TABLES:
        path = tmp_path / f"{name}.csv"
        call_command("export_judgments", "--campaign", "cds15", "--table", name, "-o", str(path), stderr=io.StringIO())
        assert list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline=""))) == table(record, name)
    out = io.StringIO()
    call_command("export_judgments", "--campaign", "cds15", stdout=out, stderr=io.StringIO())
    assert list(csv.reader(io.StringIO(out.getvalue()))) == table(record, "judgments")


@pytest.mark.parametrize("command, args", [
    ("export_judgments", ["-o"]), ("export_qrels", ["-o"]), ("export_run", ["R1", "-o"]),
])
def test_an_output_file_that_cannot_be_written_is_a_one_line_error_naming_it(record, tmp_path, command, args):
    from campaigns.run_imports import RunSource, import_runs

    import_runs(record, [RunSource(b"1 Q0 d1 1 1.0 R1\n", name="R1")])
    path = tmp_path / "no-such-directory" / "out.txt"
    with pytest.raises(CommandError, match=f"cannot write {path}: No such file or directory"):
        call_command(command, "--campaign", "cds15", *args, str(path), stdout=io.StringIO(), stderr=io.StringIO())
