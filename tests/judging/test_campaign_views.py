"""Organizer pages: who may see them, uploads through the page, downloads."""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from campaigns.models import Run
from campaigns.models import Topic
from judging.models import Judgment, PoolEntry
from tests.judging.test_import_commands import BAD_QRELS, BAD_RUNS, stored

CDS = Path(__file__).resolve().parents[1] / "data" / "reference" / "trec_cds_2015"

pytestmark = pytest.mark.django_db

PAGES = [
    ("campaign", {}),
    ("campaign_import", {}),
    ("export_qrels", {}),
]


def upload(name: str, content: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="text/plain")


@pytest.mark.parametrize("page, _", PAGES)
def test_anonymous_visitors_are_sent_to_log_in(client, campaign, page, _):
    response = client.get(reverse(page, args=[campaign.slug]))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("page, _", PAGES)
@pytest.mark.parametrize("role", ["assessor", "participant"])
def test_only_organizers_see_campaign_pages(client, campaign, request, page, _, role):
    client.force_login(request.getfixturevalue(role))
    assert client.get(reverse(page, args=[campaign.slug])).status_code == 403


@pytest.mark.parametrize("page, _", PAGES)
def test_organizers_see_campaign_pages(client, campaign, organizer, page, _):
    client.force_login(organizer)
    assert client.get(reverse(page, args=[campaign.slug])).status_code == 200


def test_an_unknown_campaign_is_404(client, organizer):
    client.force_login(organizer)
    assert client.get(reverse("campaign", args=["nope"])).status_code == 404


def test_home_lists_campaigns_by_role(client, campaign, organizer, participant):
    client.force_login(organizer)
    assert campaign.name in client.get(reverse("home")).content.decode()
    client.force_login(participant)
    assert campaign.name not in client.get(reverse("home")).content.decode()
    campaign.teams.create(name="team").members.add(participant)
    assert campaign.name in client.get(reverse("home")).content.decode()


def test_an_assessor_with_topics_lands_on_them_and_anyone_else_on_the_campaigns(client, campaign, assessor, participant):
    from judging.models import Assignment

    topic = Topic.objects.create(campaign=campaign, identifier="101")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=assessor)
    client.force_login(assessor)
    landed = client.get(reverse("home"), follow=True)
    assert landed.redirect_chain == [(reverse("assess_home"), 302)]
    assert campaign.name in landed.content.decode() and "101" in landed.content.decode()
    campaign.teams.create(name="team").members.add(assessor)  # a participant too: the campaigns page, which says both
    page = client.get(reverse("home"))
    assert page.status_code == 200 and f'href="{reverse("assess_home")}">Your topics</a>' in page.content.decode()


@pytest.mark.parametrize("role, shown", [("assessor", True), ("organizer", False), ("participant", False)])
def test_the_top_bar_links_to_my_topics_for_assessors_only(client, request, role, shown):
    client.force_login(request.getfixturevalue(role))
    link = f'href="{reverse("assess_home")}"'
    assert (link in client.get(reverse("home")).content.decode()) is shown


@pytest.mark.parametrize("role", ["assessor", "participant"])
def test_uploads_are_refused_to_non_organizers(client, campaign, request, role):
    client.force_login(request.getfixturevalue(role))
    response = client.post(
        reverse("campaign_import_kind", args=[campaign.slug, "topics"]), {"file": upload("t.tsv", b"1\tone\n")}
    )
    assert response.status_code == 403 and not Topic.objects.exists()


def test_uploads_keep_csrf_protection(campaign, organizer):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(organizer)
    response = client.post(
        reverse("campaign_import_kind", args=[campaign.slug, "topics"]), {"file": upload("t.tsv", b"1\tone\n")}
    )
    assert response.status_code == 403 and not Topic.objects.exists()


def test_the_cds_2015_data_imports_through_the_upload_page(client, campaign, organizer):
    client.force_login(organizer)
    response = client.post(
        reverse("campaign_import_kind", args=[campaign.slug, "qrels"]),
        {"file": upload("qrels-sampleval-2015.txt", (CDS / "qrels-sampleval-2015.txt").read_bytes()),
         "unknown_topics": "create"},
    )
    assert response.status_code == 302
    runs = [upload(p.name, p.read_bytes()) for p in sorted((CDS / "runs").iterdir())]
    response = client.post(
        reverse("campaign_import_kind", args=[campaign.slug, "runs"]), {"file": runs, "tag_from_filename": "on"}
    )
    assert response.status_code == 302
    assert PoolEntry.objects.count() == 95487 and Run.objects.count() == 6
    page = client.get(reverse("campaign", args=[campaign.slug])).content.decode()
    assert "TUW6" in page
    exported = client.get(reverse("export_qrels", args=[campaign.slug]) + "?sampled=1")
    lines = b"".join(exported.streaming_content if exported.streaming else [exported.content]).decode().splitlines()
    original = (CDS / "qrels-sampleval-2015.txt").read_text().split("\n")
    as_rows = lambda ls: {tuple(l.split()[i] for i in (0, 2, 3, 4)) for l in ls if l.strip()}  # noqa: E731
    assert as_rows(lines) == as_rows(original)


def test_organizers_import_runs_with_a_run_type_and_an_unknown_one_stores_nothing(client, campaign, organizer):
    Topic.objects.create(campaign=campaign, identifier="1")
    client.force_login(organizer)
    url = reverse("campaign_import_kind", args=[campaign.slug, "runs"])
    assert 'name="run_type"' in client.get(reverse("campaign_import", args=[campaign.slug])).content.decode()
    client.post(url, {"file": upload("f.run", b"1 Q0 d1 1 2 f\n"), "run_type": "feedback"})
    assert Run.objects.get(tag="f").run_type == "feedback"
    page = client.post(url, {"file": upload("h.run", b"1 Q0 d1 1 2 h\n"), "run_type": "human"}, follow=True)
    assert "run type &#x27;human&#x27; is not one of automatic, manual, feedback. Nothing was stored." in page.content.decode()
    assert not Run.objects.filter(tag="h").exists()


def test_a_bad_upload_shows_the_line_and_stores_nothing(client, campaign, organizer):
    client.force_login(organizer)
    Topic.objects.create(campaign=campaign, identifier="1")
    response = client.post(
        reverse("campaign_import_kind", args=[campaign.slug, "runs"]),
        {"file": [upload("a.run", b"1 Q0 d1 1 2 a\n"), upload("b.run", b"1 Q0 d1 1 2 b\n1 Q0 d2 2 x b\n")]},
    )
    assert response.status_code == 400
    assert "b.run, line 2: score &#x27;x&#x27; is not a number. Nothing was stored." in response.content.decode()
    assert not Run.objects.exists()


def test_an_htmx_upload_returns_only_the_forms_fragment(client, campaign, organizer):
    client.force_login(organizer)
    response = client.post(
        reverse("campaign_import_kind", args=[campaign.slug, "topics"]),
        {"file": upload("t.tsv", b"1\tone\n2\ttwo\n")},
        HTTP_HX_REQUEST="true",
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="import-forms">') and "<html" not in html
    assert "t.tsv: 2 topics created, 0 updated, 0 unchanged" in html
    bad = client.post(
        reverse("campaign_import_kind", args=[campaign.slug, "qrels"]),
        {"file": upload("q.txt", b"1 0 d 9\n")},
        HTTP_HX_REQUEST="true",
    )
    assert bad.status_code == 400 and "q.txt, line 1: grade 9 is not on the campaign&#x27;s scale" in bad.content.decode()
    assert not Judgment.objects.exists()


def test_an_upload_over_the_size_limit_is_refused(client, campaign, organizer, settings):
    settings.IMPORT_MAX_BYTES = 5
    client.force_login(organizer)
    response = client.post(
        reverse("campaign_import_kind", args=[campaign.slug, "topics"]), {"file": upload("t.tsv", b"1\tone\n")}
    )
    assert response.status_code == 400
    assert "t.tsv: the file is larger than the limit of 5 bytes" in response.content.decode()
    assert not Topic.objects.exists()


def test_run_files_download_for_their_team_and_organizers_only(client, campaign, organizer, participant, assessor):
    from campaigns.run_imports import RunSource, import_runs

    Topic.objects.create(campaign=campaign, identifier="1")
    (run,), _ = import_runs(campaign, [RunSource(b"1 Q0 d1 1 2 mine\n1 Q0 d2 2 3 mine\n", name="m")])
    url = reverse("run_download", args=[campaign.slug, "mine"])
    client.force_login(participant)
    assert client.get(url).status_code == 404  # another team's run: as if there were none
    run.team.members.add(participant)
    assert client.get(url).content == b"1 Q0 d2 1 3.0 mine\n1 Q0 d1 2 2.0 mine\n"
    client.force_login(assessor)
    assert client.get(url).status_code == 404
    client.force_login(organizer)
    assert client.get(url).status_code == 200


def test_a_run_tag_from_before_the_tag_rule_with_quotes_or_accents_downloads_under_its_own_name(client, campaign, organizer):
    """RFC 6266: such a name goes in filename*= (UTF-8, percent-encoded); a plain filename="…" would break.

    Imports refuse such tags now (campaigns/identifiers.py); a database may still hold one from before."""
    from urllib.parse import unquote

    from campaigns.run_imports import RunSource, import_runs
    from campaigns.models import Run

    Topic.objects.create(campaign=campaign, identifier="1")
    tag = 'naïve"bm25'
    import_runs(campaign, [RunSource(b"1 Q0 d1 1 2 plain\n", name="m")])
    Run.objects.filter(tag="plain").update(tag=tag)
    client.force_login(organizer)
    disposition = client.get(reverse("run_download", args=[campaign.slug, tag]))["Content-Disposition"]
    assert disposition.startswith("attachment; filename*=utf-8''")
    assert unquote(disposition.removeprefix("attachment; filename*=utf-8''")) == f"{tag}.run.txt"


@pytest.mark.parametrize("kind, cases", [("runs", BAD_RUNS), ("qrels", BAD_QRELS)])
def test_every_bad_file_case_is_reported_on_the_upload_page_and_stores_nothing(client, small_campaign, organizer, kind, cases):
    client.force_login(organizer)
    before = stored()
    for content, problem in cases:
        response = client.post(
            reverse("campaign_import_kind", args=[small_campaign.slug, kind]),
            {"file": upload(f"bad.{kind}", content)},
            HTTP_HX_REQUEST="true",
        )
        html = response.content.decode().replace("&#x27;", "'")
        assert response.status_code == 400, problem
        assert f"bad.{kind}" in html and problem in html and "Nothing was stored." in html
        assert stored() == before


@pytest.fixture
def small_campaign(campaign):
    from campaigns.run_imports import RunSource, import_runs
    from judging.qrels import import_qrels

    Topic.objects.create(campaign=campaign, identifier="1", position=1)
    Topic.objects.create(campaign=campaign, identifier="2", position=2)
    import_runs(campaign, [RunSource(b"1 Q0 d1 1 2 old\n2 Q0 d2 1 2 old\n", name="old.run")])
    import_qrels(campaign, b"1 0 d1 1\n2 0 d2 0\n", name="old.qrels")
    return campaign


ADMIN_PAGES = [
    "campaigns_campaign", "campaigns_topic", "campaigns_document", "judging_pool", "judging_poolentry",
    "judging_poolstratum", "judging_poolrun", "judging_poolbuild",
    "judging_judgment", "judging_judgmentchange", "campaigns_team", "campaigns_run", "campaigns_rankedlist",
]


@pytest.mark.parametrize("model", ADMIN_PAGES)
def test_admin_list_pages_work_for_site_administrators_only(client, small_campaign, organizer, assessor, admin_user,
                                                            model):
    """The admin is not scoped to campaigns: an organizer there would see every other campaign's rows."""
    url = reverse(f"admin:{model}_changelist")
    organizer.is_staff = True  # as organizers were made before: staff status alone opens nothing now
    organizer.save()
    for user in (assessor, organizer):
        client.force_login(user)
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith(reverse("admin:login"))
    assert 'href="/admin/"' not in client.get(reverse("home")).content.decode()
    client.force_login(admin_user)
    assert client.get(url).status_code == 200


TOPICS_JSONL = (
    '{"id": "7", "title": "heart attack <risk>", "description": "Find trials on\\naspirin & stents.", "narrative": "Any \\"cohort\\" counts; naïve reviews do not."}\n'
    '{"id": "8", "title": "second", "description": "", "narrative": ""}\n'
)


@pytest.fixture
def topics_campaign(campaign, participant):
    from campaigns.models import Team
    from campaigns.imports import import_topics

    import_topics(campaign, TOPICS_JSONL.encode(), name="t.jsonl")
    Team.objects.create(campaign=campaign, name="Alpha").members.add(participant)
    return campaign


def test_participants_of_the_campaign_and_organizers_read_its_topics_and_others_do_not(
    client, topics_campaign, organizer, participant, assessor
):
    from tests.conftest import _user

    urls = [reverse("topics", args=["cds15"]), reverse("topics_download", args=["cds15", "txt"]),
            reverse("topics_download", args=["cds15", "jsonl"])]
    for user in (organizer, participant):
        client.force_login(user)
        assert [client.get(url).status_code for url in urls] == [200, 200, 200], user
    for user in (assessor, _user("otto", "participant")):  # otto is on no team of this campaign
        client.force_login(user)
        assert [client.get(url).status_code for url in urls] == [403, 403, 403], user
    client.logout()
    assert all(client.get(url).status_code == 302 for url in urls)


def test_the_topics_page_shows_every_field_escaped(client, topics_campaign, participant):
    Topic.objects.filter(identifier="8").update(excluded=True)
    client.force_login(participant)
    page = client.get(reverse("topics", args=["cds15"])).content.decode()
    assert "<h2>7 · heart attack &lt;risk&gt;</h2>" in page
    assert "<strong>Description.</strong> Find trials on\naspirin &amp; stents." in page
    assert "<h2>8 · second</h2>" in page and page.count("<article") == 2
    assert page.count("Left out of the evaluation") == 1 and page.index("<h2>8") < page.index("Left out of")


def test_topic_files_read_back_as_the_same_topics(client, topics_campaign, organizer, tmp_path):
    from campaigns.collection_files import read_topics

    client.force_login(organizer)
    jsonl = client.get(reverse("topics_download", args=["cds15", "jsonl"]))
    assert jsonl["Content-Disposition"] == 'attachment; filename="cds15.topics.jsonl"'
    fields = [(t.identifier, t.title, t.description, t.narrative) for t in read_topics(jsonl.content, name="x")]
    assert fields == [("7", "heart attack <risk>", "Find trials on\naspirin & stents.", 'Any "cohort" counts; naïve reviews do not.'),
                      ("8", "second", "", "")]  # lossless
    trec = client.get(reverse("topics_download", args=["cds15", "txt"])).content
    assert trec.startswith(b"<top>\n<num> Number: 7\n<title> heart attack <risk>\n\n<desc> Description:\nFind trials on\n")
    fields = [(t.identifier, t.title, t.description, t.narrative) for t in read_topics(trec, name="x")]
    # SGML: the same, white space collapsed as every TREC topic reader does
    assert fields == [("7", "heart attack <risk>", "Find trials on aspirin & stents.", 'Any "cohort" counts; naïve reviews do not.'),
                      ("8", "second", "", "")]
    assert client.get(reverse("topics_download", args=["cds15", "xml"])).status_code == 404


def test_write_topics_names_an_unknown_format():
    from campaigns.collection_files import write_topics

    with pytest.raises(ValueError, match="topic format 'xml' is not one of trec, jsonl"):
        write_topics(None, [], "xml")


def test_every_page_links_the_favicon_and_favicon_ico_leads_to_it(client):
    login_page = client.get(reverse("login")).content.decode()
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in login_page
    icon = client.get("/favicon.ico", follow=True)
    assert icon.redirect_chain == [("/static/favicon.svg", 301)] and icon.status_code == 200
    assert b"<svg" in (b"".join(icon.streaming_content) if icon.streaming else icon.content)
