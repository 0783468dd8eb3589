"""The organizer's pool page: access per role for the page, each fragment and each POST; preview, build, late runs."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from judging.models import Pool, PoolBuild, PoolEntry
from tests.judging.toy_pool import entries, import_toy_run, load_toy, stored

pytestmark = pytest.mark.django_db

STRATIFIED = {"method": "stratified", "depth": "6", "strata": "1-2,3-4,5-6", "rates": "1,0.5,0", "seed": "7",
              "minutes_per_judgment": "6"}
HTMX = {"HTTP_HX_REQUEST": "true"}

# (url name, method, data, htmx)
ENDPOINTS = [
    ("pool", "get", None, False),
    ("pool_status", "get", None, True),
    ("pool_preview", "post", STRATIFIED, False),
    ("pool_preview", "post", STRATIFIED, True),
    ("pool_build", "post", STRATIFIED, False),
    ("pool_build", "post", STRATIFIED, True),
    ("pool_add_late_runs", "post", {}, False),
    ("pool_add_late_runs", "post", {}, True),
]


@pytest.fixture
def toy(campaign):
    load_toy(campaign)
    return campaign


def call(client, name, method, data=None, htmx=False, query=""):
    url = reverse(name, args=["cds15"]) + query
    headers = HTMX if htmx else {}
    return getattr(client, method)(url, data or {}, **headers)


@pytest.mark.parametrize("name, method, data, htmx", ENDPOINTS)
def test_anonymous_visitors_are_sent_to_log_in(client, toy, name, method, data, htmx):
    before = stored()
    response = call(client, name, method, data, htmx)
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert stored() == before and not PoolBuild.objects.exists()


@pytest.mark.parametrize("name, method, data, htmx", ENDPOINTS)
@pytest.mark.parametrize("role", ["assessor", "participant"])
def test_assessors_and_participants_are_refused(client, toy, request, role, name, method, data, htmx):
    client.force_login(request.getfixturevalue(role))
    before = stored()
    assert call(client, name, method, data, htmx).status_code == 403
    assert stored() == before and not PoolBuild.objects.exists()


def test_an_unknown_campaign_is_404(client, organizer):
    client.force_login(organizer)
    assert client.get(reverse("pool", args=["nope"])).status_code == 404
    assert client.post(reverse("pool_build", args=["nope"]), STRATIFIED).status_code == 404


def test_the_page_offers_the_form_and_is_linked_from_the_campaign(client, toy, organizer):
    client.force_login(organizer)
    assert reverse("pool", args=["cds15"]) in client.get(reverse("campaign", args=["cds15"])).content.decode()
    page = client.get(reverse("pool", args=["cds15"])).content.decode()
    assert "No pool yet." in page and 'id="pool-form"' in page and 'id="pool-status"' in page
    assert 'name="method"' in page and 'value="hybrid" selected' in page  # TREC CDS 2015 design by default
    assert f'formaction="{reverse("pool_preview", args=["cds15"])}"' in page  # preview without JavaScript


def test_the_htmx_preview_is_a_fragment_with_the_table(client, toy, organizer):
    client.force_login(organizer)
    response = call(client, "pool_preview", "post", STRATIFIED, htmx=True)
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html and html.lstrip().startswith('<form id="pool-form"')
    # Topic 1: N = (5, 3, 5), n = (5, 2, 0); topic 2: N = (3, 1, 0), n = (3, 1, 0); 11 · 6 min = 1.1 h.
    for cells in ("<td>5 / 5</td><td>3 / 2</td><td>5 / 0</td><td>7</td><td>0.70</td>",
                  "<td>3 / 3</td><td>1 / 1</td><td>0 / 0</td><td>4</td><td>0.40</td>"):
        assert cells in html
    assert "<strong>1.1 assessor-hours</strong>" in html
    assert not Pool.objects.exists() and not PoolBuild.objects.exists()


def test_the_preview_without_javascript_renders_the_whole_page(client, toy, organizer):
    client.force_login(organizer)
    response = call(client, "pool_preview", "post", STRATIFIED)
    assert response.status_code == 200 and "<html" in response.content.decode()
    assert "<td>5 / 5</td>" in response.content.decode()


@pytest.mark.parametrize("htmx, status", [(True, 200), (False, 400)])
def test_a_bad_design_shows_its_error_in_the_form(client, toy, organizer, htmx, status):
    client.force_login(organizer)
    for name in ("pool_preview", "pool_build"):
        response = call(client, name, "post", {**STRATIFIED, "strata": "1-4,3-6", "rates": "1,1"}, htmx=htmx)
        assert response.status_code == status
        assert "strata (1, 4) and (3, 6) overlap or are out of order" in response.content.decode()
    assert not Pool.objects.exists() and not PoolBuild.objects.exists()


def test_an_error_that_needs_the_data_shows_too(client, toy, organizer):
    client.force_login(organizer)
    data = {**STRATIFIED, "strata": "1-2,3-6", "rates": "", "budget": "5", "allocation": "proportional"}
    response = call(client, "pool_preview", "post", data, htmx=True)
    assert "topic 2: budget 5 is larger than the pool (4 documents)" in response.content.decode()
    response = call(client, "pool_build", "post", {**STRATIFIED, "team_runs": "west=1"}, htmx=True)
    assert "unknown team &#x27;west&#x27;" in response.content.decode()
    assert not PoolBuild.objects.exists()


def test_build_runs_in_the_background_and_the_page_shows_the_pool(
    client, toy, organizer, django_capture_on_commit_callbacks
):
    client.force_login(organizer)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = call(client, "pool_build", "post", STRATIFIED)
    assert response.status_code == 302 and response["Location"] == reverse("pool", args=["cds15"])
    assert len(callbacks) == 2  # the build enqueued once; the build, run here, announces the new samples
    build = PoolBuild.objects.get()
    assert (build.status, build.done, build.total, build.requested_by) == ("done", 2, 2, organizer)
    assert Pool.objects.get().method == "stratified" and PoolEntry.objects.count() == 17
    page = client.get(reverse("pool", args=["cds15"])).content.decode()
    assert "17 documents pooled over 2 topics" in page
    # Summary row of stratum 2: ranks 3-4, both topics, 4 pooled, 3 to judge, 0.750.
    assert "<td>2</td><td>3-4</td><td>build</td>\n          <td>2</td><td>4</td><td>3</td><td>0.750</td>" in page


def test_build_through_htmx_reloads_the_page(client, toy, organizer, django_capture_on_commit_callbacks):
    client.force_login(organizer)
    with django_capture_on_commit_callbacks(execute=True):
        response = call(client, "pool_build", "post", STRATIFIED, htmx=True)
    assert response.status_code == 200 and response["HX-Refresh"] == "true"
    assert PoolBuild.objects.get().status == "done"


def test_replacing_a_pool_needs_the_confirmation_box(client, toy, organizer, django_capture_on_commit_callbacks):
    client.force_login(organizer)
    with django_capture_on_commit_callbacks(execute=True):
        call(client, "pool_build", "post", STRATIFIED)
    response = call(client, "pool_build", "post", {**STRATIFIED, "method": "depth", "strata": "", "rates": ""},
                    htmx=True)
    assert "already has a pool (stratified sample) of 17 documents" in response.content.decode()
    assert PoolBuild.objects.count() == 1 and Pool.objects.get().method == "stratified"
    with django_capture_on_commit_callbacks(execute=True):
        call(client, "pool_build", "post", {**STRATIFIED, "method": "depth", "strata": "", "rates": "",
                                            "replace": "on"})
    assert Pool.objects.get().method == "depth"


def test_one_build_at_a_time(client, toy, organizer):
    client.force_login(organizer)
    PoolBuild.objects.create(campaign=toy)
    response = call(client, "pool_build", "post", STRATIFIED, htmx=True)
    assert "a build of this pool is already under way" in response.content.decode()
    assert PoolBuild.objects.count() == 1


def test_the_status_fragment_polls_while_a_build_runs_and_reloads_when_it_ends(client, toy, organizer):
    client.force_login(organizer)
    build = PoolBuild.objects.create(campaign=toy, status="running", done=1, total=2, started=timezone.now())
    response = call(client, "pool_status", "get", htmx=True, query=f"?build={build.pk}")
    html = response.content.decode()
    assert "<html" not in html and 'hx-trigger="every 1s"' in html
    assert '<progress class="pool-progress" max="2" value="1">50 %</progress>' in html
    assert "reading runs: topic 1 of 2" in html
    build.finish(PoolBuild.Status.DONE, "built")
    response = call(client, "pool_status", "get", htmx=True, query=f"?build={build.pk}")
    assert response["HX-Refresh"] == "true"
    response = call(client, "pool_status", "get", htmx=True)
    assert "hx-trigger" not in response.content.decode() and "built" in response.content.decode()
    # Without htmx the status URL leads back to the page (which has a refresh link while building).
    assert call(client, "pool_status", "get").status_code == 302


def test_the_page_shows_a_failed_build(client, toy, organizer, django_capture_on_commit_callbacks):
    client.force_login(organizer)
    data = {**STRATIFIED, "strata": "1-2,3-6", "rates": "", "budget": "5", "allocation": "proportional"}
    with django_capture_on_commit_callbacks(execute=True):
        call(client, "pool_build", "post", data)
    page = client.get(reverse("pool", args=["cds15"])).content.decode()
    assert "failed: topic 2: budget 5 is larger than the pool (4 documents). Nothing was changed." in page
    assert not Pool.objects.exists()


def test_late_runs_are_added_from_the_page(client, toy, organizer, django_capture_on_commit_callbacks):
    client.force_login(organizer)
    response = call(client, "pool_add_late_runs", "post", htmx=True)
    assert "has no pool yet" in response.content.decode() and not PoolBuild.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        call(client, "pool_build", "post", STRATIFIED)
    response = call(client, "pool_add_late_runs", "post")
    assert response.status_code == 302 and PoolBuild.objects.count() == 1  # nothing late: refused with a message
    assert "there are no late runs" in client.get(reverse("pool", args=["cds15"])).content.decode()
    before = entries("1")
    import_toy_run(toy, "D", "east", 1, {"1": "d14"})
    page = client.get(reverse("pool", args=["cds15"])).content.decode()
    assert "1 run imported after the build is not in the pool" in page and "Add late runs" in page
    with django_capture_on_commit_callbacks(execute=True):
        response = call(client, "pool_add_late_runs", "post", htmx=True)
    assert response["HX-Refresh"] == "true"
    after = entries("1")
    assert {d: e for d, e in after.items() if d in before} == before
    assert after["d14"] == ("1-late1", 1.0, True, 1, 7)


def test_posts_keep_csrf_protection(toy, organizer):
    client = Client(enforce_csrf_checks=True)
    client.force_login(organizer)
    for name in ("pool_preview", "pool_build", "pool_add_late_runs"):
        assert client.post(reverse(name, args=["cds15"]), STRATIFIED).status_code == 403
    assert not PoolBuild.objects.exists()


def test_a_stalled_build_is_shown_and_does_not_block_a_new_one(client, toy, organizer):
    client.force_login(organizer)
    PoolBuild.objects.create(campaign=toy, status="running", updated=timezone.now() - PoolBuild.STALLED_AFTER * 2)
    page = client.get(reverse("pool", args=["cds15"])).content.decode()
    assert "has not reported progress since" in page and 'hx-trigger="every 1s"' not in page
    assert call(client, "pool_build", "post", STRATIFIED).status_code == 302
    assert PoolBuild.objects.count() == 2
