"""check_run: NIST's checker conventions (run tag last, <runtag>.errlog, exit 255) on the import's checks."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from campaigns.models import Document, RankedList, Run, Team, Topic

pytestmark = pytest.mark.django_db

CDS = Path(__file__).resolve().parents[1] / "data" / "reference" / "trec_cds_2015"


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def topics(campaign, workdir):
    (workdir / "topics.tsv").write_text("1\tone\n2\ttwo\n")
    call_command("import_topics", "--campaign", "cds15", "topics.tsv", stdout=io.StringIO())
    return campaign


def stored() -> dict:
    return {m.__name__: m.objects.count() for m in (Run, RankedList, Team, Document, Topic)}


def check(*args) -> str:
    out = io.StringIO()
    call_command("check_run", "--campaign", "cds15", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_a_good_run_writes_an_errlog_exits_zero_and_stores_nothing(topics, workdir):
    (workdir / "myrun").write_text("1 Q0 d1 1 2.0 myrun\n1 Q0 d2 2 1.0 myrun\n")
    before = stored()
    out = check("myrun")
    assert "myrun: no errors, 1 warning(s)" in out
    log = (workdir / "myrun.errlog").read_text()
    assert "WARNING: myrun: no documents for 1 of the campaign's 2 topics (2)" in log
    assert log.endswith("myrun: 0 error(s), 1 warning(s)\n")
    assert stored() == before


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("1 Q0 d1 1 2.0 myrun\n1 Q0 d1 2 1.0 myrun\n", "myrun, line 2: "),
        ("1 Q0 d1 1 2.0 myrun\n3 Q0 d2 1 1.0 myrun\n", "myrun, line 2: topic '3' is not in campaign 'cds15'"),
        ("1 Q0 d1 1 abc myrun\n", "myrun, line 1: "),
        ("1 Q0 d1 1 2.0 other\n", "the file's run tag is 'other', not the run tag 'myrun'"),
    ],
)
def test_a_bad_run_exits_255_with_the_imports_message_in_the_errlog(topics, workdir, content, problem):
    (workdir / "myrun").write_text(content)
    before = stored()
    with pytest.raises(CommandError) as raised:
        check("myrun")
    assert raised.value.returncode == 255
    log = (workdir / "myrun.errlog").read_text()
    assert log.startswith("ERROR: ") and problem in log
    assert re.search(r"\nmyrun: 1 error\(s\), \d warning\(s\)\n$", log)
    assert stored() == before


def test_the_same_file_the_import_refuses_is_refused_with_the_same_message(topics, workdir):
    (workdir / "myrun").write_text("1 Q0 d1 1 2.0 myrun\n1 Q0 d1 2 1.0 myrun\n")
    with pytest.raises(CommandError) as imported:
        call_command("import_runs", "--campaign", "cds15", "myrun", stdout=io.StringIO(), stderr=io.StringIO())
    with pytest.raises(CommandError):
        check("myrun")
    assert str(imported.value).removesuffix("; nothing was stored") in (workdir / "myrun.errlog").read_text()


def test_a_run_tag_the_campaign_has_and_the_teams_run_limit_are_errors(topics, workdir):
    (workdir / "myrun").write_text("1 Q0 d1 1 2.0 myrun\n")
    call_command("import_runs", "--campaign", "cds15", "myrun", stdout=io.StringIO(), stderr=io.StringIO())
    with pytest.raises(CommandError, match="run tag 'myrun' is not available"):
        check("myrun")
    topics.runs_per_team = 1
    topics.save()
    (workdir / "second").write_text("1 Q0 d1 1 2.0 second\n")
    with pytest.raises(CommandError, match="team 'myrun' already has 1 runs, the limit"):
        check("--team", "myrun", "second")


def test_a_missing_run_file_is_an_error_naming_it(topics, workdir):
    with pytest.raises(CommandError) as raised:
        check("nosuchrun")
    assert raised.value.returncode == 255
    assert "no run file 'nosuchrun'" in (workdir / "nosuchrun.errlog").read_text()


def test_a_real_trec_run_checks_clean_against_its_campaign(campaign, workdir):
    call_command("import_qrels", "--campaign", "cds15", str(CDS / "qrels-sampleval-2015.txt"), "--create-topics",
                 stdout=io.StringIO(), stderr=io.StringIO())  # fmt: skip
    (workdir / "TUWien").write_bytes((CDS / "runs" / "TUW1").read_bytes())  # the file's run tag is TUWien
    out = check("TUWien")
    assert "TUWien: no errors, 0 warning(s)" in out
