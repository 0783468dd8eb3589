"""The judging page: access for every role on each page and fragment, plain forms and htmx, blind judging, CSRF."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from judging import assessing, assigning
from judging.models import Judgment, JudgmentChange, PoolEntry, QueueClaim
from tests.judging.toy_queue import ORDER_1, load_queue_toy

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
TAB = "tab-test-0001"


@pytest.fixture
def toy(campaign, assessor):
    toy = load_queue_toy(campaign)
    assigning.assign_topic(toy["t1"], assessor, [])
    return toy


def doc(toy, name):
    return toy["docs"][name].pk


def url(name, *args, query=""):
    return reverse(name, args=["cds15", *args]) + query


def judge(client, toy, name, grade, *, submission=None, htmx=False, **extra):
    data = {"grade": grade, "submission": submission or f"submit-{name}-{grade}", "tab": TAB, **extra}
    return client.post(url("assess_judge", "1", doc(toy, name)), data, **(HTMX if htmx else {}))


def endpoints(toy):
    """(method, url, data) of every judging endpoint, for a document of the queue."""
    d05 = doc(toy, "d05")
    return [
        ("get", url("assess_next", "1"), None),
        ("get", url("assess_document", "1", d05), None),
        ("get", url("assess_step", "1", d05, "back"), None),
        ("post", url("assess_judge", "1", d05), {"grade": 1, "submission": "submit-0001", "tab": TAB}),
        ("post", url("assess_later", "1", d05), {"tab": TAB}),
        ("post", url("assess_highlight", "1"), {"highlight": "glass", "tab": TAB}),
    ]


@pytest.mark.parametrize("htmx", [False, True])
def test_anonymous_visitors_are_sent_to_log_in(client, toy, htmx):
    for method, address, data in endpoints(toy) + [("get", reverse("assess_home"), None)]:
        response = getattr(client, method)(address, data or {}, **(HTMX if htmx else {}))
        assert response.status_code == 302 and response["Location"].startswith(reverse("login")), address
    assert not Judgment.objects.exists() and not QueueClaim.objects.exists()


@pytest.mark.parametrize("role", ["participant", "organizer"])
@pytest.mark.parametrize("htmx", [False, True])
def test_users_without_the_assignment_are_refused(client, toy, request, role, htmx):
    client.force_login(request.getfixturevalue(role))
    for method, address, data in endpoints(toy):
        assert getattr(client, method)(address, data or {}, **(HTMX if htmx else {})).status_code == 403, address
    assert not Judgment.objects.exists() and not QueueClaim.objects.exists()


@pytest.mark.parametrize("htmx", [False, True])
def test_an_assessor_cannot_read_or_judge_another_topic_or_a_document_outside_the_queue(client, toy, assessor, htmx):
    client.force_login(assessor)
    headers = HTMX if htmx else {}
    d01 = doc(toy, "d01")
    # Topic 2 is not theirs (though the document is in their topic 1 queue too).
    assert client.get(url("assess_next", "2"), **headers).status_code == 403
    assert client.get(url("assess_document", "2", d01), **headers).status_code == 403
    assert client.post(url("assess_judge", "2", d01), {"grade": 1, "submission": "submit-0001", "tab": TAB},
                       **headers).status_code == 403
    # d06 is pooled for topic 1 but not sampled: not in the queue.
    d06 = doc(toy, "d06")
    assert client.get(url("assess_document", "1", d06), **headers).status_code == 403
    assert client.post(url("assess_judge", "1", d06), {"grade": 1, "submission": "submit-0002", "tab": TAB},
                       **headers).status_code == 403
    assert client.post(url("assess_later", "1", d06), {"tab": TAB}, **headers).status_code == 403
    assert not Judgment.objects.exists()


def test_a_second_assessor_is_refused_documents_beyond_the_overlap(client, toy, assessor, django_user_model):
    bea = django_user_model.objects.create_user("bea")
    assigning.assign_topic(toy["t1"], assessor, [bea], overlap="2")
    client.force_login(bea)
    assert client.get(url("assess_document", "1", doc(toy, "d02"))).status_code == 200
    assert client.get(url("assess_document", "1", doc(toy, "d09"))).status_code == 403
    response = client.post(url("assess_judge", "1", doc(toy, "d09")), {"grade": 1, "submission": "submit-0001", "tab": TAB})
    assert response.status_code == 403 and not Judgment.objects.exists()


def test_unknown_topics_and_documents_are_404(client, toy, assessor):
    client.force_login(assessor)
    assert client.get(url("assess_next", "99")).status_code == 404
    assert client.get(url("assess_document", "1", 999999)).status_code == 404
    assert client.get(url("assess_step", "1", doc(toy, "d05"), "sideways")).status_code == 404


def test_resuming_hands_out_the_first_document_of_the_judging_order(client, toy, assessor):
    client.force_login(assessor)
    response = client.get(url("assess_next", "1", query=f"?tab={TAB}"))
    assert response.status_code == 302 and response["Location"] == url("assess_document", "1", doc(toy, "d05"), query=f"?tab={TAB}")


def test_the_judging_page_shows_the_topic_the_document_and_the_scale_with_keys(client, toy, assessor):
    client.force_login(assessor)
    page = client.get(url("assess_document", "1", doc(toy, "d05"))).content.decode()
    assert "solar panel recycling" in page and "How are old solar panels recycled?" in page
    assert "Relevant documents describe recycling of photovoltaic modules." in page
    assert "Article 5" in page and "<mark>solar</mark> <mark>panels</mark> are <mark>recycled</mark>" in page
    for grade, label in [(0, "Not relevant"), (1, "Partially relevant"), (2, "Definitely relevant")]:
        assert f'name="grade" value="{grade}" data-key="{grade}"' in page and label in page
    assert 'id="judgment-form"' in page and 'hx-post="' in page and 'method="post"' in page
    assert "0 of 10" in page  # nothing judged yet
    assert re.search(r'name="submission" value="[A-Za-z0-9_-]{22}"', page)
    assert 'hx-headers=\'{"X-CSRFToken"' in page


def test_the_panels_actions_are_the_addresses_the_urlconf_gives_them(client, toy, assessor):
    client.force_login(assessor)
    d05 = doc(toy, "d05")
    page = client.get(url("assess_document", "1", d05, query=f"?tab={TAB}"), **HTMX).content.decode()
    for address in (url("assess_judge", "1", d05), url("assess_later", "1", d05)):
        assert f'action="{address}"' in page and f'hx-post="{address}"' in page
    for direction in ("back", "forward"):
        address = url("assess_step", "1", d05, direction, query=f"?tab={TAB}")
        assert f'href="{address}"' in page and f'hx-get="{address}"' in page
    assert f'href="{url("assess_next", "1", query=f"?tab={TAB}")}">Next to judge' in page


def test_judging_is_blind_no_runs_ranks_or_scores(client, campaign, assessor):
    """A real pool built from runs: the page names no run, rank or score, and the order is not a run's."""
    from tests.judging.toy_pool import load_toy, spec
    from judging import pool_designs, pools

    load_toy(campaign)
    pools.build_pool(campaign, spec(pool_designs.depth_design(6)))
    topic = campaign.topics.get(identifier="1")
    assigning.assign_topic(topic, assessor, [])
    client.force_login(assessor)
    first = client.get(url("assess_next", "1"))
    page = client.get(first["Location"]).content.decode()
    # Random tokens (CSRF, tab and submission ids: 16+ letters, digits, - and _, with capitals
    # and digits) may spell "Q0" by chance; markup words and attribute names have no capitals.
    page = re.sub(r"\b(?=[\w-]*[A-Z])(?=[\w-]*[0-9])[\w-]{16,}", "", page)
    for word in ["north", "south", "rank", "score", ">A<", ">B<", ">C<", "Q0"]:
        assert word not in page, word


def test_a_plain_form_judgment_saves_and_redirects_to_the_next_document(client, toy, assessor):
    client.force_login(assessor)
    response = judge(client, toy, "d05", 2, shown="1")
    assert response.status_code == 302
    assert response["Location"] == url("assess_document", "1", doc(toy, "d02"), query=f"?tab={TAB}")
    judgment = Judgment.objects.get()
    assert (judgment.document.docno, judgment.grade, judgment.assessor) == ("d05", 2, assessor)
    assert judgment.seconds == assessing.SECONDS_MAX  # counted from 'shown' (epoch 1 s), capped
    page = client.get(response["Location"]).content.decode()
    assert "1 of 10" in page


def test_an_htmx_judgment_swaps_in_the_next_document_and_the_progress(client, toy, assessor):
    client.force_login(assessor)
    response = judge(client, toy, "d05", 1, htmx=True, seconds="7.5", note="mentions recycling")
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html and html.lstrip().startswith('<section id="assess-panel"')
    assert "Article 2" in html and "1 of 10" in html and "Saved." in html
    assert response["HX-Push-Url"] == url("assess_document", "1", doc(toy, "d02"), query=f"?tab={TAB}")
    assert json.loads(response["HX-Trigger"]) == {"judgment-saved": {}}
    assert Judgment.objects.values_list("grade", "seconds", "note").get() == (1, 7.5, "mentions recycling")


def test_a_double_press_or_retry_stores_one_judgment(client, toy, assessor):
    client.force_login(assessor)
    first = judge(client, toy, "d05", 2, submission="same-submit-1", htmx=True)
    again = judge(client, toy, "d05", 2, submission="same-submit-1", htmx=True)
    plain = judge(client, toy, "d05", 2, submission="same-submit-1")
    assert first.status_code == again.status_code == 200 and plain.status_code == 302
    assert Judgment.objects.count() == 1 and JudgmentChange.objects.count() == 1


@pytest.mark.parametrize("htmx", [False, True])
def test_a_form_sent_again_for_another_document_is_refused_with_its_reason_and_nothing_stored(client, toy, assessor, htmx):
    client.force_login(assessor)
    judge(client, toy, "d05", 2, submission="same-submit-2", htmx=True)
    response = judge(client, toy, "d02", 2, submission="same-submit-2", htmx=htmx)
    assert response.status_code == 409 and "sent before for another document" in response.content.decode()
    assert list(Judgment.objects.values_list("document__docno", flat=True)) == ["d05"]
    assert JudgmentChange.objects.count() == 1


def test_going_back_and_revising_keeps_the_history(client, toy, assessor):
    client.force_login(assessor)
    judge(client, toy, "d05", 2)
    judge(client, toy, "d02", 0)
    back = client.get(url("assess_step", "1", doc(toy, "d02"), "back", query=f"?tab={TAB}"), **HTMX)
    assert "Article 5" in back.content.decode() and "Your grade: <strong>2</strong>" in back.content.decode()
    assert back["HX-Push-Url"] == url("assess_document", "1", doc(toy, "d05"), query=f"?tab={TAB}")
    revised = judge(client, toy, "d05", 1, htmx=True)
    assert "Article 9" in revised.content.decode()  # on to the next unjudged document
    judgment = Judgment.objects.get(document__docno="d05")
    assert judgment.grade == 1
    assert list(judgment.history.values_list("old_grade", "new_grade")) == [(None, 2), (2, 1)]
    page = client.get(url("assess_document", "1", doc(toy, "d05"))).content.decode()
    assert "2 → 1" in page and 'class="grade current"><kbd>1</kbd>' in page


def test_confirming_the_same_grade_is_in_the_history_and_its_active_seconds_add_up(client, toy, assessor):
    client.force_login(assessor)
    judge(client, toy, "d05", 2, submission="first-look-1", seconds="7.5")
    judge(client, toy, "d05", 2, submission="second-look-1", seconds="4")
    judge(client, toy, "d05", 2, submission="second-look-1", seconds="4")  # replayed: counted once
    judgment = Judgment.objects.get(document__docno="d05")
    assert list(judgment.history.values_list("old_grade", "new_grade", "submission")) == [
        (None, 2, "first-look-1.2"), (2, 2, "second-look-1.2")]
    assert judgment.seconds == 7.5 + 4


def test_the_grade_buttons_follow_the_campaigns_scale_and_the_documents_grade(client, toy, assessor):
    """The buttons are rendered once per scale and current grade: a relabelled scale or a judged
    document gets buttons of its own, not the ones rendered before."""
    client.force_login(assessor)
    address = url("assess_document", "1", doc(toy, "d05"))
    assert "<kbd>2</kbd> Definitely relevant</button>" in client.get(address, **HTMX).content.decode()
    campaign = toy["t1"].campaign
    campaign.scale = [{"grade": 0, "label": "No"}, {"grade": 1, "label": "Somewhat"}, {"grade": 2, "label": "Yes <b>"}]
    campaign.save()
    page = client.get(address, **HTMX).content.decode()
    assert "<kbd>2</kbd> Yes &lt;b&gt;</button>" in page and "Definitely relevant" not in page
    assert "current" not in page
    judge(client, toy, "d05", 1)
    page = client.get(address, **HTMX).content.decode()
    assert 'class="grade current"><kbd>1</kbd> Somewhat</button>' in page and page.count("current") == 1


def test_forward_and_back_move_along_the_order_and_stop_at_the_ends(client, toy, assessor):
    client.force_login(assessor)
    forward = client.get(url("assess_step", "1", doc(toy, "d05"), "forward", query=f"?tab={TAB}"))
    assert forward["Location"] == url("assess_document", "1", doc(toy, "d02"), query=f"?tab={TAB}")
    start = client.get(url("assess_step", "1", doc(toy, "d05"), "back", query=f"?tab={TAB}"))
    assert start["Location"] == url("assess_document", "1", doc(toy, "d05"), query=f"?tab={TAB}")


def test_judge_later_moves_on_and_the_document_comes_back_last(client, toy, assessor):
    client.force_login(assessor)
    response = client.post(url("assess_later", "1", doc(toy, "d05")), {"tab": TAB}, **HTMX)
    assert "Article 2" in response.content.decode()
    for name in ORDER_1[1:]:
        last = judge(client, toy, name, 0)
    assert last["Location"] == url("assess_document", "1", doc(toy, "d05"), query=f"?tab={TAB}")
    done = judge(client, toy, "d05", 0, htmx=True).content.decode()
    assert "You have judged every document of topic 1" in done and "10 of 10" in done


def test_a_second_tab_gets_another_document_and_is_told_about_held_ones(client, toy, assessor):
    client.force_login(assessor)
    a = client.get(url("assess_next", "1", query="?tab=tab-a-000001"))
    b = client.get(url("assess_next", "1", query="?tab=tab-b-000001"))
    assert a["Location"] != b["Location"]
    for name in ORDER_1:
        if a["Location"] != url("assess_document", "1", doc(toy, name), query="?tab=tab-a-000001"):
            judge(client, toy, name, 1, tab="tab-b-000001")
    page = client.get(url("assess_next", "1", query="?tab=tab-b-000001")).content.decode()
    assert "1 document of this topic is open in another tab" in page


@pytest.mark.parametrize("htmx", [False, True])
def test_a_bad_grade_is_refused_and_nothing_stored(client, toy, assessor, htmx):
    client.force_login(assessor)
    response = judge(client, toy, "d05", 7, htmx=htmx)
    assert response.status_code == 400 and "grade 7 is not on this campaign" in response.content.decode()
    response = client.post(url("assess_judge", "1", doc(toy, "d05")), {"grade": 1, "tab": TAB}, **(HTMX if htmx else {}))
    assert response.status_code == 400
    assert not Judgment.objects.exists()


def test_csrf_stays_on(toy, assessor):
    client = Client(enforce_csrf_checks=True)
    client.force_login(assessor)
    response = client.post(url("assess_judge", "1", doc(toy, "d05")), {"grade": 1, "submission": "submit-0001", "tab": TAB})
    assert response.status_code == 403 and not Judgment.objects.exists()


def test_the_whole_pages_forms_carry_the_csrf_token_and_htmx_swaps_send_the_pages_in_a_header(toy, assessor):
    client = Client(enforce_csrf_checks=True)
    client.force_login(assessor)
    page = client.get(url("assess_document", "1", doc(toy, "d05"), query=f"?tab={TAB}")).content.decode()
    assert page.count('name="csrfmiddlewaretoken"') >= 2  # the judging form and 'judge later', for plain forms
    token = re.search(r'hx-headers=\'\{"X-CSRFToken": "([^"]+)"\}\'', page).group(1)
    data = {"grade": 1, "submission": "submit-0001", "tab": TAB}
    panel = client.post(url("assess_judge", "1", doc(toy, "d05")), data, HTTP_X_CSRFTOKEN=token, **HTMX)
    assert panel.status_code == 200 and 'name="csrfmiddlewaretoken"' not in panel.content.decode()
    next_document = re.search(r'id="judgment-form"[^>]*action="([^"]+)"', panel.content.decode()).group(1)
    data = {"grade": 0, "submission": "submit-0002", "tab": TAB}
    assert client.post(next_document, data, HTTP_X_CSRFTOKEN=token, **HTMX).status_code == 200  # the header, again
    assert client.post(next_document, {**data, "grade": 1}, **HTMX).status_code == 403  # no token at all
    assert Judgment.objects.count() == 2


def test_the_assessor_home_lists_topics_with_progress_and_where_to_resume(client, toy, assessor):
    client.force_login(assessor)
    judge(client, toy, "d05", 1)
    page = client.get(reverse("assess_home")).content.decode()
    assert "solar panel recycling" in page and "1 of 10" in page and "Resume" in page
    assert url("assess_next", "1") in page
    assert "coral bleaching" not in page  # topic 2 is nobody's yet


def test_the_campaigns_guidelines_are_on_the_home_and_the_judging_page_escaped_and_not_in_the_swapped_panel(
    client, toy, assessor, campaign
):
    campaign.guidelines = "Relevant: <b>about</b> the topic.\n\nUnsure? Press L."
    campaign.save()
    client.force_login(assessor)
    escaped = "<p>Relevant: &lt;b&gt;about&lt;/b&gt; the topic.</p>\n\n<p>Unsure? Press L.</p>"
    home = client.get(reverse("assess_home")).content.decode()
    assert "Guidelines for assessors · CDS 2015" in home and escaped in home
    page = client.get(url("assess_document", "1", doc(toy, "d05"))).content.decode()
    assert "<summary>Guidelines for assessors</summary>" in page and escaped in page
    assert "Guidelines" not in judge(client, toy, "d05", 1, htmx=True).content.decode()


def test_an_assessor_adds_own_highlight_words_that_mark_every_document_of_the_topic(
    client, toy, assessor, named_assessor
):
    client.force_login(assessor)
    page = client.get(url("assess_document", "1", doc(toy, "d05"), query=f"?tab={TAB}")).content.decode()
    assert "<mark>glass</mark>" not in page and 'name="highlight" value=""' in page
    response = client.post(url("assess_highlight", "1"), {"highlight": "Glass, silv <script>", "tab": TAB})
    assert response.status_code == 302 and response["Location"] == url("assess_next", "1", query=f"?tab={TAB}")
    page = client.get(response["Location"], follow=True).content.decode()  # resumes this tab's document
    # Prefix matches like the topic's words ("silv" marks "silver"); the words are only matched, never shown raw.
    assert "<mark>glass</mark> and <mark>silver</mark>" in page and "<mark>solar</mark>" in page
    assert 'name="highlight" value="Glass, silv &lt;script&gt;"' in page and "<mark>script" not in page
    panel = judge(client, toy, "d05", 1, htmx=True).content.decode()  # the next document, swapped in
    assert "<mark>glass</mark> and <mark>silver</mark>" in panel
    # Another assessor of the topic keeps their own (none).
    other = named_assessor("ann")
    assigning.assign_topic(toy["t1"], assessor, [other], overlap="5")
    client.force_login(other)
    assert "<mark>glass</mark>" not in client.get(url("assess_document", "1", doc(toy, "d05"))).content.decode()


def test_highlight_words_over_the_limit_are_refused_and_the_old_ones_kept(client, toy, assessor):
    client.force_login(assessor)
    client.post(url("assess_highlight", "1"), {"highlight": "glass", "tab": TAB})
    page = client.post(url("assess_highlight", "1"), {"highlight": "x" * 501, "tab": TAB}, follow=True).content.decode()
    assert "Ensure this value has at most 500 characters (it has 501)." in page
    assert 'name="highlight" value="glass"' in page


def test_assessor_terms_are_the_typed_words_lowercased_unique_and_at_most_thirty():
    from judging.documents import assessor_terms

    assert assessor_terms("Glass, glass; PV-modules  a 42") == ["glass", "pv", "modules", "42"]
    assert len(assessor_terms(" ".join(f"w{i}" for i in range(40)))) == 30


def test_the_assessor_lists_their_own_judgments_of_a_topic_latest_first_and_opens_one_to_revise(
    client, toy, assessor, named_assessor
):
    other = named_assessor("otto")
    assigning.assign_topic(toy["t1"], assessor, [other], overlap="5")
    client.force_login(other)
    judge(client, toy, "d05", 0)  # another assessor's judgment: not listed below
    assert Judgment.objects.filter(assessor=other).count() == 1
    client.force_login(assessor)
    judge(client, toy, "d05", 2, note="only in passing")
    judge(client, toy, "d02", 1)
    Judgment.objects.filter(assessor=assessor, document_id=doc(toy, "d02")).update(
        updated=Judgment.objects.get(assessor=assessor, document_id=doc(toy, "d05")).updated + timedelta(seconds=1))
    page = client.get(url("assess_judged", "1")).content.decode()
    links = re.findall(r'<tr><td><a href="([^"]+)">', page)
    assert links == [url("assess_document", "1", doc(toy, "d02")), url("assess_document", "1", doc(toy, "d05"))]
    assert "2 judgments, latest first" in page and "only in passing" in page and "2 Definitely relevant" in page
    assert client.get(links[1]).status_code == 200  # the document's page, to revise the grade
    assert url("assess_judged", "1") in client.get(reverse("assess_home")).content.decode()


def test_only_the_topics_assessors_list_their_judgments_of_it(client, toy, organizer, participant, assessor):
    for user in (organizer, participant):
        client.force_login(user)
        assert client.get(url("assess_judged", "1")).status_code == 403
    client.force_login(assessor)
    assert client.get(url("assess_judged", "2")).status_code == 403  # topic 2 is not theirs


def test_the_home_of_a_user_without_topics_says_so(client, participant):
    client.force_login(participant)
    assert "No topics are assigned to you yet." in client.get(reverse("assess_home")).content.decode()


def test_the_judge_save_path_stays_lean(client, toy, assessor, django_assert_num_queries):
    """Session and user; the campaign, the assessor's topics and assignments with the counts both
    progress bars show; the judgment with its queue check, its history row, its claim's DELETE
    and its topic's mark (one UPDATE: the scores' ``judgments_changing``) in a transaction (the
    test's own transaction makes it a savepoint and its release); the next document claimed,
    then read. The same statements on both databases; the claim of the scores' task follows the
    commit.
    """
    client.force_login(assessor)
    judge(client, toy, "d05", 1, htmx=True)
    with django_assert_num_queries(2 + 3 + (1 + 4 + 1) + 2):
        response = judge(client, toy, "d02", 1, htmx=True)
    assert "Article 9" in response.content.decode()  # d09, the next in the judging order, shown


def test_the_bars_after_a_save_count_first_judgments_and_not_revisions_or_replays(client, toy, assessor):
    """The judging page reads the counts with the assignments, before the save: a first judgment
    moves them by one, a revision or a replayed submit leaves them."""
    assigning.assign_topic(toy["t2"], assessor, [])
    sampled_t2 = PoolEntry.objects.filter(topic=toy["t2"], sampled=True).count()
    client.force_login(assessor)

    def bars(response):
        page = response.content.decode()
        return (re.search(r'class="topic-count">([^<]*)<', page).group(1),
                re.search(r'class="overall-count">([^<]*)<', page).group(1))

    assert bars(judge(client, toy, "d05", 1, htmx=True)) == ("1 of 10", f"1 of {10 + sampled_t2}")
    assert bars(judge(client, toy, "d02", 0, htmx=True)) == ("2 of 10", f"2 of {10 + sampled_t2}")
    assert bars(judge(client, toy, "d05", 2, htmx=True)) == ("2 of 10", f"2 of {10 + sampled_t2}")  # revised
    assert bars(judge(client, toy, "d02", 0, htmx=True)) == ("2 of 10", f"2 of {10 + sampled_t2}")  # replayed
    assert Judgment.objects.filter(assessor=assessor).count() == 2


def test_judging_a_document_outside_the_queue_or_campaign_is_refused_as_reading_it_is(client, toy, assessor):
    client.force_login(assessor)
    for name, status in (("d06", 403), ("d05", 200)):
        assert judge(client, toy, name, 1, htmx=True).status_code == status
    response = client.post(url("assess_judge", "1", 999999), {"grade": 1, "submission": "submit-0001", "tab": TAB})
    assert response.status_code == 404
    assert list(Judgment.objects.values_list("document__docno", flat=True)) == ["d05"]


def test_the_judging_page_is_never_cached_and_an_htmx_history_restore_gets_the_whole_page(client, toy, assessor):
    client.force_login(assessor)
    address = url("assess_document", "1", doc(toy, "d05"))
    page = client.get(address)
    assert "no-store" in page["Cache-Control"] and 'hx-history="false"' in page.content.decode()
    restore = client.get(address, HTTP_HX_REQUEST="true", HTTP_HX_HISTORY_RESTORE_REQUEST="true")
    assert "<html" in restore.content.decode()
    fragment = client.get(address, **HTMX)
    assert "<html" not in fragment.content.decode() and "no-store" in fragment["Cache-Control"]


# --------------------------------------------------------------------------------------------
# Tab claims: a short lease, renewed while the page is open, released when it goes away


def test_a_tab_that_goes_away_releases_its_documents_to_a_new_session_at_once(client, toy, assessor):
    client.force_login(assessor)
    first = client.get(url("assess_next", "1", query="?tab=tab-a-000001"))["Location"]
    client.post(url("assess_later", "1", doc(toy, "d02")), {"tab": "tab-a-000001"})  # one put aside, held too
    assert client.post(url("assess_claims", "1"), {"tab": "tab-a-000001", "release": "1"}).status_code == 204
    new_session = Client()
    new_session.force_login(assessor)
    page = new_session.get(url("assess_next", "1", query="?tab=tab-b-000001"), follow=True).content.decode()
    assert "open in another tab" not in page
    assert new_session.get(url("assess_next", "1", query="?tab=tab-b-000001"))["Location"] == first.replace("tab-a", "tab-b")
    assert QueueClaim.objects.get(document_id=doc(toy, "d02")).later  # put aside stays put aside


def test_an_open_tab_keeps_its_document_by_renewing_and_a_silent_one_loses_it_within_two_minutes(client, toy, assessor):
    client.force_login(assessor)
    kept = client.get(url("assess_next", "1", query="?tab=tab-a-000001"))["Location"]
    QueueClaim.objects.update(at=QueueClaim.objects.get().at - QueueClaim.LEASE + QueueClaim.RENEW)
    assert client.post(url("assess_claims", "1"), {"tab": "tab-a-000001"}).status_code == 204  # the page's renewal
    QueueClaim.objects.update(at=QueueClaim.objects.get().at - QueueClaim.LEASE + timedelta(seconds=5))
    other = client.get(url("assess_next", "1", query="?tab=tab-b-000001"))["Location"]
    assert other.split("?")[0] != kept.split("?")[0]  # still held: b gets the next document
    QueueClaim.objects.filter(tab="tab-a-000001").update(at=QueueClaim.objects.get(tab="tab-a-000001").at - timedelta(seconds=6))
    assert QueueClaim.LEASE <= timedelta(minutes=2)
    assert client.get(url("assess_next", "1", query="?tab=tab-c-000001"))["Location"].split("?")[0] == kept.split("?")[0]


def test_only_the_assigned_assessor_renews_or_releases_claims(client, toy, assessor, named_assessor, participant):
    for user in (named_assessor("bob"), participant):
        client.force_login(user)
        assert client.post(url("assess_claims", "1"), {"tab": TAB, "release": "1"}).status_code == 403


def test_highlight_while_revising_returns_to_the_document_on_screen(client, toy, assessor):
    client.force_login(assessor)
    judge(client, toy, "d05", 1)
    response = client.post(url("assess_highlight", "1"), {"tab": TAB, "highlight": "panel", "document": doc(toy, "d05")})
    assert response["Location"] == url("assess_document", "1", doc(toy, "d05"), query=f"?tab={TAB}")
