"""The pool bias page and its CSV: values worked by hand, the built pool's runs and depth, bad requests."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from campaigns.run_imports import RunSource, import_runs
from judging.qrels import import_qrels
from tests.evaluation.conftest import run_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def three_teams(campaign):
    """One topic judged a 1, b 0, c 1, d 1 (imported); x1 (team X) ranks a c b, y1 (Y) b d a, z1 (Z) d c."""
    import_qrels(campaign, b"1 0 a 1\n1 0 b 0\n1 0 c 1\n1 0 d 1\n", name="q.txt", unknown_topics="create")
    for tag, team, docs in (("x1", "X", "a c b"), ("y1", "Y", "b d a"), ("z1", "Z", "d c")):
        import_runs(campaign, [RunSource(run_text(tag, {"1": docs.split()}), name=tag)], team_name=team)
    return campaign


def test_the_page_shows_each_team_left_out_of_a_depth_2_pool_as_worked_by_hand(client, organizer, three_teams):
    client.force_login(organizer)
    page = client.get(reverse("pool_bias", args=["cds15"]), {"measure": "AP", "depth": 2})
    assert page.status_code == 200
    text = re.sub(r">\s+<", "><", page.content.decode())
    assert "every run counts as pooled" in text  # imported qrels
    # Depth-2 pool: X brought a, c; Y b, d; Z d, c. Only X alone brought a (relevant), only Y alone b.
    teams = {t["name"]: (t["judged"], t["relevant"]) for t in page.context["teams"]}
    assert teams == {"X": (1, 1), "Y": (1, 0), "Z": (0, 0)}
    rows = {row["run"]: row for row in page.context["rows"]}
    # x1 without a: c (rank 2) and d relevant, R = 2: (1/2)/2 = 0.25 (official (1 + 2/2)/3 = 2/3).
    # y1 without b (not relevant): unchanged, (1/2 + 2/3)/3 = 7/18. z1 brought nothing alone: 2/3.
    assert rows["x1"]["left_out"] == pytest.approx(0.25) and rows["x1"]["official"] == pytest.approx(2 / 3)
    assert rows["y1"]["left_out"] == pytest.approx(7 / 18) and rows["z1"]["left_out"] == pytest.approx(2 / 3)
    assert "<td>x1</td><td>X</td><td>0.6667</td>" in text and "<td>0.2500</td><td>0.4167</td><td>62.5</td>" in text
    assert "drops by at most\n  <strong>0.4167</strong> (x1)" in page.content.decode()


def test_the_csv_lists_every_run_with_its_teams_unique_documents(client, organizer, three_teams):
    client.force_login(organizer)
    response = client.get(reverse("pool_bias_csv", args=["cds15"]), {"measure": "AP", "depth": 2})
    assert response["Content-Disposition"] == 'attachment; filename="cds15-pool-bias-AP-depth2.csv"'
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [(r["run"], r["team"], r["left_out"], r["rank_left_out"], r["team_unique_relevant"]) for r in rows] == [
        ("x1", "X", "0.25", "3", "1"), ("z1", "Z", "0.666667", "1", "0"), ("y1", "Y", "0.388889", "3", "0")]


def test_on_the_demo_the_depth_is_the_pools_and_runs_left_out_of_the_pool_keep_their_values(client, organizer):
    call_command("load_demo", stdout=io.StringIO())
    client.force_login(organizer)
    page = client.get(reverse("pool_bias", args=["demo"]))
    assert page.status_code == 200 and page.context["result"].depth == 100  # the hybrid design's D
    rows = page.context["rows"]
    unpooled = sorted(row["run"] for row in rows if not row["pooled"])
    # Two runs per team were pooled; ember2 arrived after the build (a late run, not added yet).
    assert unpooled == ["aurora3", "birch3", "cobalt3", "delta3", "ember2"]
    assert all(row["team_pooled"] for row in rows)  # every team has a pooled run: all are left out with it
    assert "every run counts as pooled" not in page.content.decode()
    assert page.content.decode().count("(not pooled)") == 5


@pytest.mark.parametrize("query, message", [({"depth": 0}, "greater than or equal to 1"),
                                            ({"measure": "num_ret"}, "not one of the available choices")])
def test_a_bad_request_shows_the_form_with_the_reason(client, organizer, three_teams, query, message):
    client.force_login(organizer)
    response = client.get(reverse("pool_bias", args=["cds15"]), query)
    assert response.status_code == 400 and message in response.content.decode()
    assert client.get(reverse("pool_bias_csv", args=["cds15"]), query).status_code == 400


def test_a_campaign_without_judgments_says_so(client, organizer, campaign):
    client.force_login(organizer)
    import_runs(campaign, [RunSource(run_text("x1", {"1": ["a"]}), name="x1")], unknown_topics="create")
    response = client.get(reverse("pool_bias", args=["cds15"]))
    assert response.status_code == 200 and "the campaign has no judgments yet." in response.content.decode()
    assert client.get(reverse("pool_bias_csv", args=["cds15"])).status_code == 409


@pytest.mark.parametrize("role", ["assessor", "participant"])
def test_only_organizers_see_it(client, three_teams, role, request):
    client.force_login(request.getfixturevalue(role))
    for name in ("pool_bias", "pool_bias_csv"):
        assert client.get(reverse(name, args=["cds15"])).status_code == 403


def test_the_command_prints_the_same_csv_and_a_summary(three_teams, tmp_path):
    from django.core.management.base import CommandError

    out, err = io.StringIO(), io.StringIO()
    call_command("pool_bias", "--campaign", "cds15", "-m", "map", "--depth", "2", stdout=out, stderr=err)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [(r["measure"], r["run"], r["left_out"]) for r in rows] == [("AP", "x1", "0.25"), ("AP", "z1", "0.666667"),
                                                                       ("AP", "y1", "0.388889")]
    assert "drops by at most 0.4167 (x1)" in err.getvalue()
    call_command("pool_bias", "--campaign", "cds15", "--depth", "2", "-o", str(tmp_path / "b.csv"), stderr=io.StringIO())
    assert (tmp_path / "b.csv").read_bytes().decode() == out.getvalue()
    with pytest.raises(CommandError, match="not a per-topic value averaged over topics"):
        call_command("pool_bias", "--campaign", "cds15", "-m", "num_ret", stderr=io.StringIO())
