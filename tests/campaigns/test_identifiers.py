"""campaigns/identifiers.py: the rules for run tags and topic identifiers, and URLs that carry the
most exotic ones allowed.

A campaign whose topics are named ``10.2452/41-AH`` (a CLEF DOI), ``..`` and ``%?#é&<b>`` and
whose run is tagged ``A.b-c_9`` is walked as its organizer, its assessor and a participant: every
page that names them is fetched, then every link on those pages; none answers 404 or 500, and
each page names the identifier it was asked for.
"""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from campaigns import people
from campaigns.run_imports import RunSource, import_runs
from campaigns.models import Team
from evaluation.models import Scoreboard
from judging import assigning
from campaigns.identifiers import SegmentConverter, identifier_problem
from campaigns.imports import import_documents, import_topics
from judging.qrels import import_qrels
from campaigns.models import Topic

pytestmark = pytest.mark.django_db

TOPICS = ["10.2452/41-AH", "..", "%?#é&<b>"]
TAG = "A.b-c_9"


@pytest.mark.parametrize("value", ["1", "31_1", "MB01", "A.b-c_9", "r" * 100])
def test_run_tags_in_trecs_rule_are_allowed(value):
    assert identifier_problem("run tag", value) is None


@pytest.mark.parametrize("value, problem", [
    ("evil/tag", "may hold only letters"), ("..", "may hold only letters"), (".x", "may hold only letters"),
    ("résumé", "may hold only letters"), ("a%2Fb", "may hold only letters"), ("r" * 101, "101 characters long"),
])
def test_run_tags_outside_it_are_refused_with_the_rule(value, problem):
    assert problem in identifier_problem("run tag", value)


@pytest.mark.parametrize("value", [*TOPICS, "301", "31_1", "t" * 64])
def test_topic_identifiers_may_be_any_printable_text_without_white_space(value):
    assert identifier_problem("topic", value) is None


@pytest.mark.parametrize("value", ["a b", "a\u00a0b", "a\x01b", "a\u200bb", "", "t" * 65])
def test_topic_identifiers_with_white_space_control_characters_or_too_long_are_refused(value):
    assert identifier_problem("topic", value) is not None


@pytest.mark.parametrize("value", [*TOPICS, "301", "a%2Fb", "."])
def test_a_topic_identifier_is_one_url_segment_and_comes_back_unchanged(value):
    converter = SegmentConverter()
    segment = converter.to_url(value)
    assert "/" not in segment and segment not in {".", ".."}
    assert converter.to_python(segment) == value


@pytest.fixture
def exotic(campaign, organizer, assessor, participant):
    topics = "".join(f'{{"id": "{t.replace(chr(34), "")}", "title": "about {i}"}}\n' for i, t in enumerate(TOPICS))
    import_topics(campaign, topics.encode(), name="topics.jsonl")
    import_documents(campaign, b"".join(b"d%d\tdocument %d\n" % (i, i) for i in range(1, 7)), name="docs.tsv")
    qrels = "".join(f"{t} 0 d{d} s1 {g}\n" for t in TOPICS for d, g in ((1, 1), (2, 0), (3, -1), (4, -1)))
    import_qrels(campaign, qrels.encode(), name="qrels.txt")
    run = "".join(f"{t} Q0 d{d} {d} {10 - d} {TAG}\n" for t in TOPICS for d in range(1, 7))
    import_runs(campaign, [RunSource(run.encode(), name="run.txt")], team_name="Exotic")
    Team.objects.get(campaign=campaign, name="Exotic").members.add(participant)
    for topic in Topic.objects.filter(campaign=campaign):
        assigning.assign_topic(topic, assessor, [])
    Scoreboard.of(campaign.pk).publish(released=True)
    return campaign


def named_urls(campaign, tag=TAG) -> list[str]:
    urls = [reverse("assess_next", args=[campaign.slug, t]) for t in TOPICS]
    urls += [reverse(name, args=[campaign.slug, tag]) for name in ("run_scores", "run_appendix", "run_download")]
    urls += [reverse("run_scores_download", args=[campaign.slug, tag, "csv"])]
    urls += [reverse(name, args=[campaign.slug]) for name in ("campaign", "topics", "relevance", "assignments",
                                                              "leaderboard", "team_runs", "assessing_progress")]
    return urls + [reverse("assess_home")]


HREF = re.compile(r'href="([^"#]+)"')


#: What a page may answer: a page, or 403; a run file that is not the user's answers 404, as if it
#: did not exist (no run tag is told before the release).
ANSWERS = {True: (200, 404)}


def walk(campaign, client, users, tag=TAG) -> set[str]:
    """Fetch every page naming the identifiers, then every link on them, as each user: the links walked."""
    seen = set()
    for user in users:
        client.force_login(user)
        pages = [url for url in named_urls(campaign, tag)]
        for url in pages:
            response = client.get(url, follow=True)
            assert response.status_code in ANSWERS.get(url.endswith(".txt") and "/runs/" in url, (200, 403)), \
                (user.username, url, response.status_code)
            if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
                continue
            links = {html.unescape(link) for link in HREF.findall(response.content.decode())}
            for link in sorted(links):
                if not link.startswith(f"/c/{campaign.slug}/") or (user.pk, link) in seen or "/admin/" in link:
                    continue
                seen.add((user.pk, link))
                followed = client.get(link, follow=True)
                assert followed.status_code in ANSWERS.get(link.endswith(".txt") and "/runs/" in link, (200, 403)), \
                    (user.username, url, link, followed.status_code)
    return {link for _, link in seen}


def test_every_page_and_link_naming_the_most_exotic_identifiers_answers(exotic, client, organizer, assessor, participant):
    walked = walk(exotic, client, (organizer, assessor, participant))
    for topic in TOPICS:  # the organizer's and the assessor's pages link to every topic's pages
        assert any(SegmentConverter().to_url(topic).replace("%", "%25") in link for link in walked), topic
    assert any(f"/runs/{TAG}/" in link for link in walked)


def test_a_run_tag_from_before_the_tag_rule_with_a_slash_works_on_every_page_and_can_be_withdrawn(
        exotic, client, organizer, assessor, participant):
    """Imports refuse ``evil/tag`` now; a database from before the rule may hold one (issue 36)."""
    from campaigns.models import Run

    legacy = "evil/tag ü"
    Run.objects.filter(campaign=exotic, tag=TAG).update(tag=legacy)
    walked = walk(exotic, client, (organizer, assessor, participant), tag=legacy)
    assert any("/runs/evil%252Ftag%2520%25C3%25BC/" in link for link in walked)
    Scoreboard.of(exotic.pk).publish(released=False)
    client.force_login(participant)
    withdrawn = client.post(reverse("run_withdraw", args=[exotic.slug, legacy]), follow=True)
    assert withdrawn.status_code == 200 and not Run.objects.filter(campaign=exotic, tag=legacy).exists()


def test_each_topics_pages_act_on_the_topic_they_were_asked_for(exotic, client, organizer, assessor):
    people.make_member(exotic, assessor, "assessor")  # only the campaign's assessors are offered
    for topic in TOPICS:
        client.force_login(organizer)
        changed = client.post(reverse("assignment_topic", args=[exotic.slug, topic]), {"primary": assessor.pk}, follow=True)
        assert changed.status_code == 200 and html.escape(topic) in changed.content.decode()
        client.force_login(assessor)
        judging = client.get(reverse("assess_next", args=[exotic.slug, topic]), follow=True)
        assert judging.status_code == 200 and judging.context["assignment"].topic.identifier == topic


def test_natural_order_reads_numbers_as_numbers():
    from campaigns.identifiers import natural_key

    shuffled = ["31_10", "MB10", "100", "31_2", "2", "31", "MB9", "10", "1", "31_1", "10.2452/41-AH", "10.2452/9-AH"]
    assert sorted(shuffled, key=natural_key) == [
        "1", "2", "10", "10.2452/9-AH", "10.2452/41-AH", "31", "31_1", "31_2", "31_10", "100", "MB9", "MB10"]


def test_topics_created_by_imports_are_numbered_in_natural_order_on_every_listing(client, campaign, organizer):
    """Topics created from a qrels file's lines, then one from a topic file: positions follow the
    identifiers' natural order, so the topics page and the downloads list 1, 2, 10 … not 1, 10, 2."""
    qrels = "".join(f"{t} 0 d1 1\n" for t in ["10", "2", "31_1", "100", "31", "1"])
    import_qrels(campaign, qrels.encode(), name="qrels.txt", unknown_topics="create")
    import_topics(campaign, b"3\tthree\n", name="topics.tsv")
    natural = ["1", "2", "3", "10", "31", "31_1", "100"]
    assert list(Topic.objects.filter(campaign=campaign).values_list("identifier", flat=True)) == natural
    assert list(Topic.objects.filter(campaign=campaign).values_list("position", flat=True)) == list(range(1, 8))
    client.force_login(organizer)
    page = client.get(reverse("topics", args=[campaign.slug])).content.decode()
    assert re.findall(r'<article class="topic card" id="topic-([^"]+)">', page) == natural
    listed = client.get(reverse("topics_download", args=[campaign.slug, "txt"])).content.decode()
    assert re.findall(r"<num> Number: (\S+)", listed) == natural


@pytest.mark.django_db(transaction=True)
def test_the_migration_numbers_existing_topics_in_natural_order():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before = [("judging", "0019_rejudge_imported")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    OldCampaign, OldTopic = old.get_model("judging", "Campaign"), old.get_model("judging", "Topic")
    scale = [{"grade": 0, "label": "no"}, {"grade": 1, "label": "yes"}]
    campaign = OldCampaign.objects.create(name="old", slug="old", scale=scale)
    for position, identifier in enumerate(["1", "10", "100", "2", "31", "31_1"], start=1):  # text order, as imports made it
        OldTopic.objects.create(campaign=campaign, identifier=identifier, position=position)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert list(Topic.objects.filter(campaign_id=campaign.pk).values_list("identifier", flat=True)) == [
        "1", "2", "10", "31", "31_1", "100"]
