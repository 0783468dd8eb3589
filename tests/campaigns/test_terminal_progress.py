"""Long commands show a progress line on a terminal and nothing when their output is not one
(campaigns/job_progress.py): each command here runs with its standard error on a pseudo-terminal."""

import io
import os
import pty
import sys

import pytest
from django.core.management import call_command

from tests.evaluation.conftest import load_stats_vector
from tests.judging.test_import_jobs import qrels_file
from tests.judging.toy_pool import load_toy

pytestmark = pytest.mark.django_db


def on_a_terminal(monkeypatch, *command) -> str:
    """Run ``call_command(*command)`` with standard error on a pseudo-terminal; what the terminal shows."""
    controller, terminal = pty.openpty()
    stream = os.fdopen(terminal, "w")
    monkeypatch.setattr(sys, "stderr", stream)
    call_command(*command, stdout=io.StringIO())
    stream.close()
    shown = b""
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # EIO: the terminal side is closed and everything was read
            break
        if not chunk:
            break
        shown += chunk
    os.close(controller)
    return shown.decode()


def test_import_qrels_shows_megabytes_and_lines_on_a_terminal(monkeypatch, campaign, tmp_path):
    path = tmp_path / "big.qrels"
    path.write_bytes(qrels_file())
    shown = on_a_terminal(monkeypatch, "import_qrels", "--campaign", campaign.slug, "--create-topics", str(path))
    size = len(qrels_file()) / 1e6
    assert f"{path}: {size:,.1f} MB, 30,000 lines" in shown and shown.endswith("\r\n")


def test_import_qrels_writes_no_progress_when_standard_error_is_not_a_terminal(monkeypatch, campaign, tmp_path):
    path = tmp_path / "big.qrels"
    path.write_bytes(qrels_file())
    log = io.StringIO()  # a file or a pipe: not a terminal
    monkeypatch.setattr(sys, "stderr", log)
    warnings = io.StringIO()
    call_command("import_qrels", "--campaign", campaign.slug, "--create-topics", str(path), stdout=io.StringIO(),
                 stderr=warnings)
    assert log.getvalue() == "" and "created 3 topic(s) with no text" in warnings.getvalue()


def test_import_documents_and_runs_show_their_progress_on_a_terminal(monkeypatch, campaign, tmp_path):
    documents = tmp_path / "docs.tsv"
    documents.write_text("".join(f"D{n}\ttext {n}\n" for n in range(1000)))
    shown = on_a_terminal(monkeypatch, "import_documents", "--campaign", campaign.slug, str(documents))
    assert f"{documents}: " in shown and " lines" in shown
    run = tmp_path / "r.run"
    run.write_text("".join(f"1 Q0 D{n} {n + 1} {1000 - n} r\n" for n in range(1000)))
    shown = on_a_terminal(monkeypatch, "import_runs", "--campaign", campaign.slug, "--create-topics", str(run))
    assert "runs: 0.0 MB, 1,000 lines" in shown


def test_build_pool_shows_the_topics_read_on_a_terminal(monkeypatch, campaign):
    load_toy(campaign)
    shown = on_a_terminal(monkeypatch, "build_pool", "--campaign", campaign.slug, "--method", "depth", "--depth", "2")
    assert "topics read: 2 of 2 (100%)" in shown


def test_recompute_scores_shows_the_topics_recomputed_on_a_terminal(monkeypatch, campaign, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        load_stats_vector(campaign)
    shown = on_a_terminal(monkeypatch, "recompute_scores", "--campaign", campaign.slug)
    assert "topics recomputed: 1 of 1 (100%)" in shown


def test_import_topics_shows_megabytes_and_lines_on_a_terminal(monkeypatch, campaign, tmp_path):
    path = tmp_path / "topics.tsv"
    path.write_text("".join(f"{n}\ttitle {n}\n" for n in range(1, 201)))
    shown = on_a_terminal(monkeypatch, "import_topics", "--campaign", campaign.slug, str(path))
    assert f"{path}: 0.0 MB, 200 lines" in shown and shown.endswith("\r\n")


def test_import_topics_writes_no_progress_when_standard_error_is_not_a_terminal(monkeypatch, campaign, tmp_path):
    path = tmp_path / "topics.tsv"
    path.write_text("1\ttitle\n")
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    out = io.StringIO()
    call_command("import_topics", "--campaign", campaign.slug, str(path), stdout=out)
    assert log.getvalue() == "" and "1 topics created" in out.getvalue()
