"""A team's upload attempts are counted before anything is read, one at a time: parallel uploads
cannot pass the hourly limit, and a form with errors counts like any other attempt."""

from __future__ import annotations

import threading

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, connections

from campaigns.models import Run, Team, Topic, UploadAttempt
from campaigns.run_submissions import RunUploadForm, UploadRefused, submit_run


def run_form(tag: str, **fields) -> RunUploadForm:
    text = "".join(f"{t} Q0 d{t}-{n} {n} {10 - n} {tag}\n" for t in ("1", "2") for n in range(1, 4)).encode()
    return RunUploadForm({"priority": 1, **fields}, {"file": SimpleUploadedFile(f"{tag}.txt", text)})


@pytest.fixture
def team(campaign):
    campaign.runs_per_team = 100
    campaign.save(update_fields=["runs_per_team"])
    for position, identifier in enumerate(("1", "2")):
        Topic.objects.create(campaign=campaign, identifier=identifier, position=position)
    return Team.objects.create(campaign=campaign, name="Alpha")


@pytest.mark.django_db(transaction=True)
def test_24_parallel_uploads_against_a_limit_of_20_store_at_most_20(team, settings):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite runs one writer at a time; the race is PostgreSQL's")
    settings.RUN_UPLOADS_PER_HOUR = 20
    start, outcomes = threading.Barrier(24), []

    def upload(n: int) -> None:
        try:
            start.wait()
            submit_run(team.campaign, team, run_form(f"run{n:02d}"))
            outcomes.append("accepted")
        except UploadRefused as exc:
            outcomes.append(exc.reason)
        except Exception as exc:  # reported in the assertion below
            outcomes.append(repr(exc))
        finally:
            connections.close_all()  # this thread's own connection

    threads = [threading.Thread(target=upload, args=(n,)) for n in range(24)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(outcomes) == ["accepted"] * 20 + [UploadRefused.RATE] * 4
    assert UploadAttempt.objects.filter(team=team).count() == 20 == Run.objects.filter(team=team).count()


@pytest.mark.django_db
def test_a_form_with_errors_is_counted_before_it_is_read(team, settings):
    settings.RUN_UPLOADS_PER_HOUR = 2
    reasons = []
    for _ in range(3):
        with pytest.raises(UploadRefused) as refused:
            submit_run(team.campaign, team, run_form("bad", priority=100))
        reasons.append(refused.value.reason)
    assert reasons == [UploadRefused.INVALID, UploadRefused.INVALID, UploadRefused.RATE]
    assert UploadAttempt.objects.filter(team=team, accepted=False).count() == 2
