"""Every CSV the app writes makes formula-looking cells text (a leading ``'``, OWASP's rule); plain numbers stay numbers."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from django.urls import reverse

from campaigns.models import Document, Topic
from evaluation.measures import spreadsheet_csv
from judging.models import Judgment

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = "-2+3+cmd|' /C calc'!A0"


@pytest.mark.parametrize("cell", ["=HYPERLINK(\"http://x\",\"y\")", "+1+1", HOSTILE, "@SUM(A1)", "\t=1", "\r=1",
                                  "-", "+", "-1-1", "--1", "-1e", "1e5", "=1"])
def test_a_cell_a_spreadsheet_would_run_gets_a_leading_quote_unless_it_is_a_plain_number(cell):
    expected = "'" + cell if cell.startswith(("=", "+", "-", "@", "\t", "\r")) else cell
    assert spreadsheet_csv.neutralise(cell) == expected


@pytest.mark.parametrize("cell", ["-0.5", "+3", "-1.5e-07", "-.5", "-12", -0.5, -3, 0.25, "run-1", "", None, "a=b"])
def test_plain_numbers_and_harmless_text_are_left_as_they_are(cell):
    assert spreadsheet_csv.neutralise(cell) == cell


def test_the_writer_escapes_cells_and_keeps_csv_quoting():
    out = io.StringIO()
    writer = spreadsheet_csv.writer(out, lineterminator="\n")
    writer.writerow([HOSTILE, -0.5, "-0.5", 'say "hi"\n=1'])
    writer.writerows([["=1"], ["ok"]])
    assert list(csv.reader(io.StringIO(out.getvalue()))) == [["'" + HOSTILE, "-0.5", "-0.5", 'say "hi"\n=1'],
                                                            ["'=1"], ["ok"]]


def test_no_module_writes_csv_without_the_shared_writer():
    writers = [str(path.relative_to(ROOT)) for app in ("campaigns", "judging", "evaluation", "config")
               for path in (ROOT / app).rglob("*.py")
               if re.search(r"\bcsv\.(writer|DictWriter)\(", path.read_text())]
    assert writers == ["evaluation/measures/spreadsheet_csv.py"]


@pytest.mark.django_db
def test_an_assessors_hostile_note_downloads_as_text(client, campaign, named_assessor, organizer):
    topic = Topic.objects.create(campaign=campaign, identifier="1", position=0)
    document = Document.objects.create(campaign=campaign, docno="d1")
    Judgment.objects.create(campaign=campaign, topic=topic, document=document, assessor=named_assessor("ann"),
                            grade=1, note=HOSTILE)
    client.force_login(organizer)
    response = client.get(reverse("judgments_csv", args=[campaign.slug, "judgments"]))
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [row["note"] for row in rows] == ["'" + HOSTILE]
