"""The run submission API (evaluation/api.py): tokens, uploads, scores, throttling, OpenAPI, ir_metadata,
and the participant's guide's curl example against a live server.

Two teams' runs on three fully judged topics (tests/evaluation/conftest.py's ``scored``): P@10 per
topic is arithmetic on the ranks. Participant pia is in team Alpha (run R1).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Campaign, Run, Team, TeamToken, UploadAttempt
from evaluation.models import Scoreboard
from tests.evaluation.conftest import bearer, build, ranking, run_text

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("empty_throttle")]

ROOT = Path(__file__).resolve().parents[2]


def upload(client, token, slug="cds15", *, name="R4", text=None, **fields):
    text = run_text(name, ranking({1: 10, 2: 10, 3: 10})) if text is None else text
    data = {"file": SimpleUploadedFile(name, text), "priority": 1, **fields}
    return client.post(f"/api/campaigns/{slug}/runs", data, **bearer(token))


def test_a_revoked_token_is_refused(client, scored, organizer, alpha_token):
    client.force_login(organizer)
    client.post(reverse("api_token_revoke", args=[scored.slug, Team.objects.get(name="Alpha").pk]))
    api = Client()
    for response in (api.get("/api/team", **bearer(alpha_token)), upload(api, alpha_token),
                     api.get("/api/campaigns/cds15/scores", **bearer(alpha_token))):
        assert response.status_code == 401 and response["Content-Type"].startswith("application/json")
    assert not Run.objects.filter(tag="R4").exists()


def test_anonymous_requests_and_a_session_without_a_token_are_refused(client, scored, participant, organizer):
    """The API reads the bearer token only: a logged-in browser's cookie opens nothing there."""
    for user in (None, participant, organizer):
        if user is not None:
            client.force_login(user)
        for response in (client.get("/api/team"), client.get("/api/campaigns/cds15/scores"), upload(client, "")):
            assert response.status_code == 401, user
        assert client.get("/api/team", HTTP_AUTHORIZATION="Bearer not-a-token").status_code == 401


def test_the_api_takes_no_csrf_token_and_the_web_form_still_requires_one(scored, participant, alpha_token):
    api = Client(enforce_csrf_checks=True)
    assert upload(api, alpha_token).status_code == 201
    web = Client(enforce_csrf_checks=True)
    web.force_login(participant)
    response = web.post(reverse("team_runs", args=[scored.slug]),
                        {"file": SimpleUploadedFile("R5", run_text("R5", ranking({1: 1}))), "priority": 1})
    assert response.status_code == 403 and not Run.objects.filter(tag="R5").exists()


# --------------------------------------------------------------------------------------------
# Uploads: the team page's checks, limits and deadline


def test_a_team_uploads_a_run_by_token_and_it_is_scored(client, scored, alpha_token, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(client, alpha_token, priority=2, run_type="manual", description="BM25")
    assert response.status_code == 201
    body = response.json()
    assert body["tag"] == "R4" and body["run_type"] == "manual" and body["priority"] == 2 and body["lines"] == 30
    assert body["warnings"] == [] and body["ir_metadata"] is None
    run = Run.objects.get(tag="R4")
    assert run.team.name == "Alpha" and run.description == "BM25" and run.uploaded_by is None
    assert UploadAttempt.objects.get(team=run.team).accepted
    scores = client.get("/api/campaigns/cds15/runs/R4/scores", **bearer(alpha_token)).json()
    assert scores["runs"][0]["all"]["P@10"] == 1.0  # every top 10 all relevant


def test_a_gzip_run_uploads_and_a_run_missing_topics_comes_with_the_pages_warning(client, scored, alpha_token):
    text = run_text("R4", ranking({1: 10}))
    response = upload(client, alpha_token, name="R4.gz", text=gzip.compress(text))
    assert response.status_code == 201
    assert response.json()["warnings"] == ["R4.gz: no documents for 2 of the campaign's 3 topics (2, 3); they count 0 in the means"]


def test_a_bad_run_file_is_refused_with_its_file_line_and_problem_and_nothing_is_stored(client, scored, alpha_token):
    response = upload(client, alpha_token, name="bad", text=b"1 Q0 1-r0 1 3.0 bad\n1 Q0 1-r1 2 notanumber bad\n")
    assert response.status_code == 400
    body = response.json()
    assert body["reason"] == "run_file" and body["file"] == "bad" and body["line"] == 2
    assert "notanumber" in body["problem"] and body["detail"].startswith("bad, line 2: ")
    assert body["detail"].endswith("Nothing was stored.")
    assert not Run.objects.filter(tag="bad").exists()
    assert UploadAttempt.objects.filter(accepted=False).count() == 1  # refused uploads count towards the hour


def test_the_forms_field_checks_apply_with_the_forms_messages(client, scored, participant, alpha_token):
    response = upload(client, alpha_token, run_type="human", priority=0)
    assert response.status_code == 400
    errors = response.json()["errors"]
    client.force_login(participant)  # the web form says the same
    web = client.post(reverse("team_runs", args=[scored.slug]),
                      {"file": SimpleUploadedFile("R4", run_text("R4", ranking({1: 1}))), "priority": 0, "run_type": "human"})
    assert errors == {name: list(messages) for name, messages in web.context["form"].errors.items()}
    assert errors["run_type"] == ["Select a valid choice. human is not one of the available choices."]
    assert errors["priority"] == ["Ensure this value is greater than or equal to 1."]
    no_file = Client().post("/api/campaigns/cds15/runs", {"priority": 1}, **bearer(alpha_token))
    assert no_file.status_code == 400 and "file" in no_file.json()["errors"]
    assert not Run.objects.filter(tag="R4").exists()


def test_a_broken_multipart_body_is_a_json_400_not_a_server_error(client, scored, alpha_token):
    response = client.generic("POST", "/api/campaigns/cds15/runs", b"--x\r\nnonsense",
                              content_type="multipart/form-data; boundary=", **bearer(alpha_token))
    assert response.status_code == 400 and "cannot be read" in response.json()["detail"]
    assert not Run.objects.filter(campaign=scored).exclude(tag__in=["R1", "R2"]).exists()


def test_the_runs_per_team_limit_and_the_size_limit_hold(client, scored, alpha_token, settings):
    Campaign.objects.filter(pk=scored.pk).update(runs_per_team=2)  # Alpha has R1
    assert upload(client, alpha_token, name="R4").status_code == 201
    response = upload(client, alpha_token, name="R5")
    assert response.status_code == 400 and response.json()["problem"] == "team 'Alpha' already has 2 runs, the limit"
    Campaign.objects.filter(pk=scored.pk).update(runs_per_team=5)
    settings.RUN_UPLOAD_MAX_BYTES = 100
    response = upload(client, alpha_token, name="R6")
    assert response.status_code == 400
    assert response.json()["detail"] == "R6: the file is larger than the limit of 100 bytes. Nothing was stored."
    assert not Run.objects.filter(tag__in=["R5", "R6"]).exists()


def test_uploads_close_at_the_deadline_and_when_the_campaign_is_archived(client, scored, alpha_token):
    past = timezone.now() - timedelta(seconds=1)
    Campaign.objects.filter(pk=scored.pk).update(runs_due=past)
    response = upload(client, alpha_token)
    assert response.status_code == 403 and response.json()["reason"] == "closed"
    assert response.json()["detail"] == f"Run uploads closed at {past:%Y-%m-%d %H:%M} UTC, the deadline. Nothing was stored."
    assert client.get("/api/team", **bearer(alpha_token)).json()["uploads_open"] is False
    Campaign.objects.filter(pk=scored.pk).update(runs_due=None, state=Campaign.State.ARCHIVED)
    response = upload(client, alpha_token)
    assert response.status_code == 403 and "archived" in response.json()["detail"]
    assert not Run.objects.filter(tag="R4").exists() and not UploadAttempt.objects.exists()


def test_the_hourly_upload_limit_counts_the_page_and_the_api_together(client, scored, participant, alpha_token, settings):
    settings.RUN_UPLOADS_PER_HOUR = 2
    web = Client()
    web.force_login(participant)
    web.post(reverse("team_runs", args=[scored.slug]), {"file": SimpleUploadedFile("R4", run_text("R4", ranking({1: 1}))), "priority": 1})
    assert upload(client, alpha_token, name="bad", text=b"nonsense\n").status_code == 400  # refused ones count too
    response = upload(client, alpha_token, name="R5")
    assert response.status_code == 429 and response.json()["reason"] == "rate_limited"
    assert 3590 <= int(response["Retry-After"]) <= 3601
    assert "2 uploads in the last hour, the limit" in response.json()["detail"]
    assert not Run.objects.filter(tag="R5").exists()


def test_a_token_reaches_its_own_campaign_only(client, scored, alpha_token, organizer):
    other = Campaign.objects.create(name="Other", slug="other")
    response = upload(client, alpha_token, slug="other")
    assert response.status_code == 403 and "it reaches no other campaign" in response.json()["detail"]
    assert client.get("/api/campaigns/other/scores", **bearer(alpha_token)).status_code == 403
    assert not other.runs.exists()


# --------------------------------------------------------------------------------------------
# Scores: the pages' visibility


def test_before_the_release_a_token_sees_its_teams_runs_and_after_it_every_run(client, scored, alpha_token):
    scores = client.get("/api/campaigns/cds15/scores", **bearer(alpha_token)).json()
    assert scores["released"] is False and scores["runs"] == ["R1"]
    p10 = next(row for row in scores["means"] if row["measure"] == "P@10")
    assert p10["run"] == "R1" and p10["mean"] == pytest.approx(0.7) and p10["topics"] == 3  # (0.9 + 0.5 + 0.7) / 3
    assert p10["topics_high"] == 1.0  # the t interval cut to [0, 1] (test_run_pages.py)
    refused = client.get("/api/campaigns/cds15/runs/R2/scores", **bearer(alpha_token))
    assert refused.status_code == 404 and refused.json()["detail"] == "no run 'R2' whose scores you may see"
    assert client.get("/api/campaigns/cds15/runs/nope/scores", **bearer(alpha_token)).status_code == 404

    Scoreboard.objects.filter(campaign=scored).update(released=True)
    scores = client.get("/api/campaigns/cds15/scores", **bearer(alpha_token)).json()
    assert scores["released"] is True and scores["runs"] == ["R1", "R2"]
    ranked = [(row["rank"], row["run"]) for row in scores["means"] if row["measure"] == "P@10"]
    assert ranked == [(1, "R1"), (2, "R2")]  # R2: (0.6 + 0.6 + 0.2) / 3
    r2 = client.get("/api/campaigns/cds15/runs/R2/scores", **bearer(alpha_token)).json()
    assert r2["runs"][0]["topics"]["3"]["P@10"] == pytest.approx(0.2)


def test_the_run_scores_equal_the_run_pages_json_download(client, scored, participant, alpha_token):
    client.force_login(participant)
    page = client.get(reverse("run_scores_download", args=[scored.slug, "R1", "json"]))
    assert Client().get("/api/campaigns/cds15/runs/R1/scores", **bearer(alpha_token)).json() == json.loads(page.content)


# --------------------------------------------------------------------------------------------
# Throttling and the OpenAPI description


def test_requests_over_the_rate_are_refused_per_team_with_retry_after(client, scored, alpha_token, organizer, settings):
    settings.API_RATE = "3/min"
    beta_token = TeamToken.issue(Team.objects.get(name="Beta"), organizer)[1]
    assert [client.get("/api/team", **bearer(alpha_token)).status_code for _ in range(3)] == [200, 200, 200]
    refused = client.get("/api/team", **bearer(alpha_token))
    assert refused.status_code == 429 and 1 <= int(refused["Retry-After"]) <= 60
    assert "3/min" in refused.json()["detail"]
    assert client.get("/api/team", **bearer(beta_token)).status_code == 200  # another team's count
    rotated = TeamToken.issue(Team.objects.get(name="Alpha"), organizer)[1]
    assert client.get("/api/team", **bearer(rotated)).status_code == 429  # the count is the team's


def test_the_openapi_description_is_served_without_a_token_and_names_the_bearer_scheme(client, db):
    spec = client.get("/api/openapi.json").json()
    assert spec["openapi"].startswith("3.")
    assert set(spec["paths"]) == {"/api/team", "/api/campaigns/{slug}/runs", "/api/campaigns/{slug}/scores",
                                  "/api/campaigns/{slug}/runs/{tag}/scores"}
    assert spec["components"]["securitySchemes"]["TeamTokenAuth"] == {"type": "http", "scheme": "bearer"}
    fields = spec["paths"]["/api/campaigns/{slug}/runs"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert set(fields["properties"]) == {"file", "ir_metadata", "description", "priority", "run_type"}
    docs = client.get("/api/docs")  # no docs page: it would load Swagger UI from a CDN
    assert docs.status_code == 404 and "/api/openapi.json" in docs.json()["detail"]


# --------------------------------------------------------------------------------------------
# ir_metadata


HEADER = b"""# ir_metadata.start
# tag: R4
# actor:
#   team: Alpha <script>alert(1)</script>
# platform:
#   software:
#     libraries:
#       - pyterrier 0.10
#       - numpy 1.10
# ir_metadata.end
"""


def test_a_runs_ir_metadata_header_is_stored_and_shown_escaped_on_its_page(client, scored, participant, alpha_token):
    response = upload(client, alpha_token, text=HEADER + run_text("R4", ranking({1: 10, 2: 10, 3: 10})))
    assert response.status_code == 201 and response.json()["lines"] == 30  # the header is comments to the reader
    metadata = {"tag": "R4", "actor": {"team": "Alpha <script>alert(1)</script>"},
                "platform": {"software": {"libraries": ["pyterrier 0.10", "numpy 1.10"]}}}
    assert response.json()["ir_metadata"] == metadata and Run.objects.get(tag="R4").ir_metadata == metadata
    client.force_login(participant)
    page = client.get(reverse("run_scores", args=[scored.slug, "R4"])).content.decode()
    assert "<td>actor › team</td><td>Alpha &lt;script&gt;alert(1)&lt;/script&gt;</td>" in page
    assert "<td>platform › software › libraries › 2</td><td>numpy 1.10</td>" in page
    assert "<script>alert(1)" not in page


def test_an_ir_metadata_file_is_stored_but_not_together_with_a_header(client, scored, alpha_token):
    yml = SimpleUploadedFile("ir-metadata.yml", b"ir_metadata.start\ntag: R4\nmethod:\n  automatic: true\nir_metadata.end\n")
    response = upload(client, alpha_token, ir_metadata=yml)
    assert response.status_code == 201 and response.json()["ir_metadata"] == {"tag": "R4", "method": {"automatic": "true"}}
    yml.seek(0)
    response = upload(client, alpha_token, name="R5", text=HEADER.replace(b"R4", b"R5") + run_text("R5", ranking({1: 1})),
                      ir_metadata=yml)
    assert response.status_code == 400 and "send one of them" in response.json()["problem"]


def test_bad_ir_metadata_is_refused_with_its_line_and_the_run_is_not_stored(client, scored, alpha_token):
    run = run_text("R4", ranking({1: 10}))
    cases = {
        b"# ir_metadata.start\n# tag: [R4\n# ir_metadata.end\n": (2, "not valid YAML"),
        b"# ir_metadata.start\n# a: &x [1, 2]\n# b: *x\n# ir_metadata.end\n": (2, "anchors and aliases"),
        b"# ir_metadata.start\n# tag: R4\n": (3, "has no '# ir_metadata.end' line"),
        b"# ir_metadata.start\n# - a list\n# ir_metadata.end\n": (2, "expected a mapping"),
    }
    for header, (line, problem) in cases.items():
        body = upload(client, alpha_token, text=header + run).json()
        assert body["file"] == "R4" and body["line"] == line and problem in body["problem"], body
    assert not Run.objects.filter(tag="R4").exists()


# --------------------------------------------------------------------------------------------
# docs/participant.md's curl example, run as written against a live server


def doc_curl_lines() -> list[str]:
    """The curl lines of the example in docs/participant.md#the-api."""
    text = (ROOT / "docs" / "participant.md").read_text()
    block = text.split("## The API", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.startswith("curl ")]


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_participants_guide_curl_example_works_against_a_live_server(live_server, tmp_path, role_groups):
    from django.contrib.auth.models import User

    campaign = build(Campaign.objects.create(name="CDS 2015", slug="cds15", depth=1000))  # scored as the imports commit
    token = TeamToken.issue(Team.objects.get(name="Alpha"), User.objects.create_user("olga"))[1]
    (tmp_path / "myrun.txt").write_bytes(run_text("myrun", ranking({1: 10, 2: 4, 3: 0})))
    env = dict(os.environ, API=f"{live_server.url}/api", TOKEN=token, SLUG=campaign.slug)
    lines = doc_curl_lines()
    assert len(lines) == 4
    answers = []
    for line in lines:
        done = subprocess.run(["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, (line, done.stdout, done.stderr)
        answers.append(json.loads(done.stdout))
    team, uploaded, scores, run = answers
    assert team["team"] == "Alpha" and team["uploads_open"] is True
    assert uploaded["tag"] == "myrun" and uploaded["run_type"] == "automatic"
    assert Run.objects.get(tag="myrun").description == "BM25, title queries"
    assert {row["run"] for row in scores["means"]} == {"R1", "myrun"}
    assert run["runs"][0]["all"]["P@10"] == pytest.approx((1.0 + 0.4 + 0.0) / 3)
