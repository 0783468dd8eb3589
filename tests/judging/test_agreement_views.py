"""The agreement dashboard, its fragment and CSV exports, and the adjudication pages: every role,
figures from the seed's worked example, undefined values with their reason, CSRF."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from judging import agreement_charts, agreements
from campaigns.models import Document, Topic
from judging.models import Adjudication, Assignment, Judgment

pytestmark = pytest.mark.django_db

# Seed 004, exercise 8/4 (judge 1 = ann, the primary; judge 2 = bob).
JUDGE_1 = [0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0]
JUDGE_2 = [0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1]


@pytest.fixture
def judged(campaign, named_assessor):
    """Topic 8/4: ann (primary) and bob judge the seed's 12 documents. Topic 2: both say 0 to 3 documents."""
    ann, bob = named_assessor("ann"), named_assessor("bob")
    seed = Topic.objects.create(campaign=campaign, identifier="8/4", position=0)
    same = Topic.objects.create(campaign=campaign, identifier="2", position=1)
    for topic in (seed, same):
        Assignment.objects.create(campaign=campaign, topic=topic, assessor=ann, role="primary")
        Assignment.objects.create(campaign=campaign, topic=topic, assessor=bob, role="second")
    day1 = timezone.now() - timedelta(days=1)
    for i, (a, b) in enumerate(zip(JUDGE_1, JUDGE_2), start=1):
        doc = Document.objects.create(campaign=campaign, docno=f"doc{i}", title=f"Document {i}")
        when = day1 if i <= 6 else timezone.now()
        Judgment.objects.create(
            campaign=campaign, topic=seed, document=doc, assessor=ann, grade=a, seconds=10 * i, updated=when
        )
        Judgment.objects.create(
            campaign=campaign, topic=seed, document=doc, assessor=bob, grade=b, seconds=5, updated=when
        )
    for i in range(3):
        doc = Document.objects.create(campaign=campaign, docno=f"same{i}")
        for user in (ann, bob):
            Judgment.objects.create(campaign=campaign, topic=same, document=doc, assessor=user, grade=0)
    return campaign, seed, same, ann, bob


def test_the_report_gives_the_seeds_kappa_per_topic_and_per_pair(judged):
    campaign, seed, same, ann, bob = judged
    report = agreements.campaign_agreement(campaign)
    topic = report.topics[0]
    assert topic.topic == seed and topic.doubly_judged == 12 and topic.disagreements == 8
    assert topic.binary["fleiss"].value == pytest.approx(-1 / 3)
    assert topic.graded["fleiss"].value == pytest.approx(-1 / 3)  # grade 2 is unused: same table
    undefined = report.topics[1].graded["fleiss"]
    assert undefined.value is None and undefined.reason.startswith("every judgment uses one label (Not relevant)")
    (pair,) = report.pairs
    assert (pair.first, pair.second, pair.topics, pair.doubly_judged) == ("ann", "bob", 2, 15)
    # 15 pairs: the seed's table plus 3 × (0, 0): [[5, 4], [4, 2]] → P_o = 7/15;
    # Cohen: each judge 9 × 0 and 6 × 1: P_e = (81 + 36)/225 = 13/25; κ = (7/15 − 13/25)/(12/25) = −1/9.
    assert pair.table[:2, :2].tolist() == [[5, 4], [4, 2]]
    assert pair.graded["cohen"].value == pytest.approx(-1 / 9)
    assert pair.binary["cohen"].value == pytest.approx(-1 / 9)
    assert report.doubly_judged == 15


def test_the_report_gives_overlap_ac1_and_each_assessors_share_judged_relevant(judged):
    campaign, *_ = judged
    report = agreements.campaign_agreement(campaign)
    (pair,) = report.pairs
    # The pair's binary table [[5, 4], [4, 2]]: each judged 6 of 15 relevant, 2 both.
    assert (pair.relevant_first, pair.relevant_second, pair.relevant_both) == (6 / 15, 6 / 15, 2)
    assert pair.binary["overlap"].value == pytest.approx(2 / 10)  # 2 of the 4 + 4 + 2 either calls relevant
    # Binary AC1: π_R = 6/15 = 0.4, P_e = 2 · 0.4 · 0.6 = 12/25, AC1 = (7/15 − 12/25)/(13/25) = −1/39.
    assert pair.binary["ac1"].value == pytest.approx(-1 / 39)
    # Graded (0, 1, 2; 2 unused): π = 0.6, 0.4, 0 → P_e = (0.24 + 0.24)/(3 − 1) = 0.24, AC1 = (7/15 − 0.24)/0.76.
    assert pair.graded["ac1"].value == pytest.approx((7 / 15 - 0.24) / 0.76)
    seed, same = report.topics
    assert seed.binary["overlap"].value == pytest.approx(0.2) and seed.binary["ac1"].value == pytest.approx(-1 / 3)
    # Topic 2: both said 0 to all three: κ is 0/0 and so is the overlap, AC1 is 1.
    assert same.binary["overlap"].value is None and "no assessor judged" in same.binary["overlap"].reason
    assert same.binary["ac1"].value == 1.0
    rows = {row.name: row for row in report.overall_rows}
    overlap = rows["Overlap of relevant sets"]
    assert overlap.graded is None and overlap.binary.value == pytest.approx(0.2) and overlap.n == 15
    assert rows["Gwet's AC1"].binary.value == pytest.approx(-1 / 39)
    assert rows["Gwet's AC1"].binary.interval is not None
    assert rows["Cohen's κ (linear weights)"].binary is None


def test_the_overlap_is_also_averaged_over_topics_as_voorhees_reports_it(judged):
    campaign, seed, same, ann, bob = judged
    both = Topic.objects.create(campaign=campaign, identifier="3", position=2)
    for i in range(2):  # topic 3: both judge both documents relevant, an overlap of 1
        doc = Document.objects.create(campaign=campaign, docno=f"both{i}")
        for user in (ann, bob):
            Judgment.objects.create(campaign=campaign, topic=both, document=doc, assessor=user, grade=1)
    rows = {row.name: row for row in agreements.campaign_agreement(campaign).overall_rows}
    # Pooled: (2 + 2) both relevant of (10 + 2) either: 1/3. Over topics: the seed's 0.2 and topic 3's 1;
    # topic 2 (nobody judged relevant) has no overlap and is left out: (0.2 + 1)/2 = 0.6 over 12 + 2 documents.
    assert rows["Overlap of relevant sets"].binary.value == pytest.approx(1 / 3)
    mean = rows["Overlap of relevant sets, mean over topics"]
    assert mean.graded is None and mean.binary.value == pytest.approx(0.6) and mean.n == 14


def test_the_mean_overlap_says_why_it_is_undefined(campaign, named_assessor):
    rows = {row.name: row for row in agreements.campaign_agreement(campaign).overall_rows}
    mean = rows["Overlap of relevant sets, mean over topics"].binary
    assert mean.value is None and mean.coefficient.reason == "no document was judged by two or more assessors"


def test_the_report_follows_agreement_over_time_and_per_assessor_effort(judged):
    campaign, *_ = judged
    report = agreements.campaign_agreement(campaign)
    first, second = report.days
    # Day 1: documents 1–6 of the seed (4 agree: 1, 2, 3, 4): P_o = 4/6.
    assert (first.pairs, first.cumulative_pairs) == (6, 6)
    assert first.observed.value == pytest.approx(4 / 6)
    assert (second.pairs, second.cumulative_pairs) == (9, 15)
    # The chart (200 px high, plot area from y = 12 to 160): π = 0 mid-height at y = 86, 1 at 12, −1 at 160.
    chart = agreement_charts.trend(report.days, width=400, height=200)
    assert 'y1="86" x2=' in chart and 'class="zero"' in chart
    assert re.findall(r'class="tick">([^<]+)<', chart)[:5] == ["-1.0", "-0.5", "0", "0.5", "1.0"]
    # Day 1, documents 1–6: judge 1 says relevant to 4, judge 2 to 2 → pooled P(R) = 6/12, P(E) = ½;
    # P_o = 4/6, so Scott's π = (2/3 − 1/2)/(1/2) = 1/3, drawn at x = 48 (the plot's left edge),
    # y = 160 − (1/3 + 1) / 2 · 148 = 61.3.
    assert first.scott_binary.value == pytest.approx(1 / 3)
    binary = re.search(r'<polyline points="([^"]+)"[^>]*class="binary"', chart).group(1)
    assert binary.split()[0] == "48,61.3"
    ann = next(a for a in report.assessors if a.name == "ann")
    # ann: 15 judgments, 6 relevant; seconds 10, 20, …, 120 on the seed (the rest unrecorded): median 65.
    assert (ann.judgments, ann.relevant_share, ann.median_seconds) == (15, pytest.approx(6 / 15), 65.0)


def test_anonymous_users_are_sent_to_log_in(client, judged):
    for url in (
        reverse("agreement", args=["cds15"]),
        reverse("agreement_csv", args=["cds15", "pairs"]),
        reverse("adjudication", args=["cds15"]),
    ):
        response = client.get(url)
        assert response.status_code == 302 and response.url.startswith("/accounts/login/")


@pytest.mark.parametrize("role", ["assessor", "participant"])
def test_assessors_and_participants_may_not_see_agreement_or_adjudicate(client, judged, role, request):
    user = request.getfixturevalue(role)
    client.force_login(user)
    campaign, seed, *_ = judged
    assert client.get(reverse("agreement", args=["cds15"])).status_code == 403
    assert client.get(reverse("agreement", args=["cds15"]), HTTP_HX_REQUEST="true").status_code == 403
    assert client.get(reverse("agreement_csv", args=["cds15", "topics"])).status_code == 403
    assert client.get(reverse("adjudication", args=["cds15"])).status_code == 403
    url = reverse("adjudication_document", args=["cds15", seed.pk, Document.objects.get(docno="doc5").pk])
    assert client.get(url).status_code == 403
    assert client.post(url, {"grade": 2}).status_code == 403
    assert client.post(reverse("adjudication_policy", args=["cds15"]), {"policy": "majority"}).status_code == 403
    assert not Adjudication.objects.exists()


def test_the_organizer_sees_the_dashboard_with_heatmap_and_undefined_reasons(client, organizer, judged):
    client.force_login(organizer)
    response = client.get(reverse("agreement", args=["cds15"]))
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="heatmap"' in page and 'id="agreement-figures"' in page and 'hx-trigger="every 10s"' in page
    assert "-0.333" in page  # topic 8/4 (binary and graded κ)
    assert "-0.111" in page  # the pair's Cohen's κ
    assert "undefined" in page and "every judgment uses one label (Not relevant)" in page
    assert "Updated" in page and "<html" in page
    # heatmap cells: the pooled pair table, counts 5, 4, 4, 2 and zeros for the unused grade.
    heatmap = page[page.index('id="heatmap"') : page.index("</table>", page.index('id="heatmap"'))]
    cells = re.findall(r'<td class="cell[^"]*"[^>]*>(\d+)</td>', heatmap)
    assert [int(c) for c in cells] == [5, 4, 0, 4, 2, 0, 0, 0, 0]


def test_the_organizer_reads_overlap_and_ac1_next_to_kappa_with_the_shares_judged_relevant(client, organizer, judged):
    client.force_login(organizer)
    page = client.get(reverse("agreement", args=["cds15"])).content.decode()
    binary = page[page.index('id="pairs-binary"') : page.index("</table>", page.index('id="pairs-binary"'))]
    cells = re.findall(r"<td>(.*?)</td>", re.sub(r"\s+", " ", binary))
    figures = [re.sub(r"<[^>]+>", "", c).strip() for c in cells]
    # pair, doubly judged, relevant first / second / both, overlap, observed, chance, κ, π, AC1
    assert figures == ["ann × bob", "15", "40 %", "40 %", "2", "0.200", "0.467", "0.520", "-0.111", "-0.111", "-0.026"]
    overall = page[page.index('id="overall"') : page.index("</table>", page.index('id="overall"'))]
    assert "Overlap of relevant sets" in overall and "Gwet&#x27;s AC1" in overall
    topics = page[page.index('id="topics"') : page.index("</table>", page.index('id="topics"'))]
    assert "no assessor judged any of these documents relevant" in topics  # topic 2's overlap, with its reason


def test_the_figures_fragment_is_served_alone_for_htmx_polling(client, organizer, judged):
    client.force_login(organizer)
    response = client.get(reverse("agreement", args=["cds15"]), HTTP_HX_REQUEST="true")
    page = response.content.decode()
    assert response.status_code == 200
    assert page.lstrip().startswith('<section id="agreement-figures"') and "<html" not in page
    assert "Updated" in page


def test_a_chosen_pair_gets_its_own_heatmap(client, organizer, judged):
    campaign, seed, same, ann, bob = judged
    client.force_login(organizer)
    page = client.get(reverse("agreement", args=["cds15"]) + f"?pair={ann.pk}-{bob.pk}").content.decode()
    assert "Confusion matrix: ann × bob" in page


def test_agreement_tables_download_as_csv(client, organizer, judged):
    client.force_login(organizer)
    response = client.get(reverse("agreement_csv", args=["cds15", "pairs"]))
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="cds15.agreement-pairs.csv"' in response["Content-Disposition"]
    (row,) = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert (row["first"], row["second"], row["doubly_judged"]) == ("ann", "bob", "15")
    assert float(row["graded_cohen"]) == pytest.approx(-1 / 9, abs=1e-6)
    assert (row["relevant_first"], row["relevant_second"], row["relevant_both"]) == ("0.400000", "0.400000", "2")
    assert float(row["binary_overlap"]) == pytest.approx(0.2) and float(row["binary_ac1"]) == pytest.approx(-1 / 39, abs=1e-6)
    assert float(row["binary_chance_cohen"]) == pytest.approx(13 / 25)
    topics = list(
        csv.DictReader(io.StringIO(client.get(reverse("agreement_csv", args=["cds15", "topics"])).content.decode()))
    )
    assert float(topics[0]["binary_fleiss"]) == pytest.approx(-1 / 3, abs=1e-6)
    assert topics[1]["graded_fleiss"] == "" and "every judgment uses one label" in topics[1]["undefined"]
    assert topics[1]["binary_overlap"] == "" and float(topics[1]["binary_ac1"]) == 1.0
    overall = list(
        csv.DictReader(io.StringIO(client.get(reverse("agreement_csv", args=["cds15", "overall"])).content.decode()))
    )
    overlap = [r for r in overall if r["coefficient"] == "Overlap of relevant sets"]
    assert [(r["scale"], r["value"]) for r in overlap] == [("binary", "0.200000")]
    for table in ("overall", "assessors", "days"):
        assert client.get(reverse("agreement_csv", args=["cds15", table])).status_code == 200
    assert client.get(reverse("agreement_csv", args=["cds15", "secrets"])).status_code == 404


def test_the_dashboard_says_when_no_document_is_doubly_judged(client, organizer, campaign):
    client.force_login(organizer)
    page = client.get(reverse("agreement", args=["cds15"])).content.decode()
    assert "No document has been judged by two or more assessors yet" in page


# --------------------------------------------------------------------------------------------
# Adjudication pages


def _document_url(topic: str, docno: str) -> str:
    topic_id = Topic.objects.filter(identifier=topic).values_list("pk", flat=True).first() or 9999
    document_id = Document.objects.filter(docno=docno).values_list("pk", flat=True).first() or 9999
    return reverse("adjudication_document", args=["cds15", topic_id, document_id])


@pytest.fixture
def simple(campaign, named_assessor):
    """Topic 5: ann (primary) says 0, bob says 2 for d1; both say 1 for d2."""
    ann, bob = named_assessor("ann"), named_assessor("bob")
    topic = Topic.objects.create(campaign=campaign, identifier="5")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=ann, role="primary")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=bob, role="second")
    d1 = Document.objects.create(
        campaign=campaign,
        docno="d1",
        title="Aspirin",
        is_html=True,
        body="<p>Aspirin &amp; <b>heart</b></p><script>alert('x')</script>",
    )
    d2 = Document.objects.create(campaign=campaign, docno="d2")
    for doc, (a, b) in ((d1, (0, 2)), (d2, (1, 1))):
        Judgment.objects.create(campaign=campaign, topic=topic, document=doc, assessor=ann, grade=a, note="too vague")
        Judgment.objects.create(campaign=campaign, topic=topic, document=doc, assessor=bob, grade=b)
    return campaign, topic, d1, d2


def test_the_adjudication_page_lists_disagreements_side_by_side(client, organizer, simple):
    client.force_login(organizer)
    page = client.get(reverse("adjudication", args=["cds15"])).content.decode()
    assert 'id="disagreement-' in page and "d1" in page and ">d2<" not in page
    assert "ann: 0" in page and "bob: 2" in page
    assert "1 document" in page


def test_the_document_page_shows_judgments_and_untrusted_html_as_text(client, organizer, simple):
    client.force_login(organizer)
    page = client.get(_document_url("5", "d1")).content.decode()
    assert "too vague" in page
    assert "Aspirin &amp; heart" in page  # tags gone, text escaped once
    assert "<script>" not in page.split('class="document-text"')[1] and "alert" not in page


def test_setting_the_official_grade_records_who_and_redirects(client, organizer, simple):
    campaign, topic, d1, _ = simple
    client.force_login(organizer)
    response = client.post(_document_url("5", "d1"), {"grade": 2, "note": "bob is right"})
    assert response.status_code == 302 and response.url.endswith("?topic=5")
    decision = Adjudication.objects.get()
    assert (decision.grade, decision.decided_by, decision.note, decision.topic, decision.document) == (
        2,
        organizer,
        "bob is right",
        topic,
        d1,
    )
    assert Judgment.objects.official(campaign)[(topic.pk, d1.pk)] == 2
    history = client.get(reverse("adjudication", args=["cds15"])).content.decode()
    assert 'id="history"' in history and "bob is right" in history


def test_setting_the_official_grade_with_htmx_swaps_the_row(client, organizer, simple):
    client.force_login(organizer)
    response = client.post(_document_url("5", "d1"), {"grade": 1}, HTTP_HX_REQUEST="true")
    page = response.content.decode()
    assert response.status_code == 200 and page.lstrip().startswith('<tr id="disagreement-')
    assert "adjudicated 1 by olga" in page and "saved" in page
    assert '<template>\n<section id="adjudication-history" hx-swap-oob="true">' in page


def test_a_grade_off_the_scale_is_refused_with_the_form(client, organizer, simple):
    client.force_login(organizer)
    response = client.post(_document_url("5", "d1"), {"grade": 9})
    assert response.status_code == 400 and "9 is not one of the available choices" in response.content.decode()
    assert not Adjudication.objects.exists()


def test_unknown_topics_and_documents_are_not_found(client, organizer, simple):
    client.force_login(organizer)
    assert client.get(_document_url("99", "d1")).status_code == 404
    assert client.get(_document_url("5", "nope")).status_code == 404
    assert client.get(reverse("adjudication", args=["cds15"]) + "?topic=99").status_code == 404


def test_the_organizer_changes_the_policy(client, organizer, simple):
    campaign, topic, d1, _ = simple
    client.force_login(organizer)
    response = client.post(reverse("adjudication_policy", args=["cds15"]), {"policy": "majority"})
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.adjudication_policy == "majority"
    client.post(reverse("adjudication_policy", args=["cds15"]), {"policy": "loudest"})
    campaign.refresh_from_db()
    assert campaign.adjudication_policy == "majority"


def test_posts_without_a_csrf_token_are_refused(organizer, simple):
    client = Client(enforce_csrf_checks=True)
    client.force_login(organizer)
    assert client.post(_document_url("5", "d1"), {"grade": 2}).status_code == 403
    assert client.post(reverse("adjudication_policy", args=["cds15"]), {"policy": "primary"}).status_code == 403
    assert not Adjudication.objects.exists()


def test_topics_and_documents_with_slashes_in_their_names_can_be_adjudicated(client, organizer, judged):
    client.force_login(organizer)
    page = client.get(reverse("adjudication", args=["cds15"]) + "?topic=8%2F4").content.decode()
    assert page.count('id="disagreement-') == 8
    response = client.post(_document_url("8/4", "doc5"), {"grade": 1})
    assert response.status_code == 302 and response.url.endswith("?topic=8%2F4")


def test_three_assessors_with_a_missing_judgment_and_imported_qrels_left_out(campaign, named_assessor):
    """Fleiss' κ per topic over the documents two or more assessors judged; imported judgments are no assessor."""
    ann, bob, cat = named_assessor("ann"), named_assessor("bob"), named_assessor("cat")
    topic = Topic.objects.create(campaign=campaign, identifier="3")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=cat, role="primary")
    # (0, 0, 0), (0, 0, 1), (1, 1, —) as in test_agreement's hand example, on grades 0 and 2 (2 is relevant too).
    rows = {"a": (0, 0, 0), "b": (0, 0, 2), "c": (2, 2, None), "d": (None, None, 2)}
    for docno, grades in rows.items():
        doc = Document.objects.create(campaign=campaign, docno=docno)
        for user, grade in zip((ann, bob, cat), grades):
            if grade is not None:
                Judgment.objects.create(campaign=campaign, topic=topic, document=doc, assessor=user, grade=grade)
        Judgment.objects.create(campaign=campaign, topic=topic, document=doc, source="qrels:old", grade=1)
    report = agreements.campaign_agreement(campaign)
    (t,) = report.topics
    assert t.assessors == ["cat", "ann", "bob"]  # primary first
    assert (t.judged, t.doubly_judged, t.disagreements) == (4, 3, 1)
    assert t.graded["fleiss"].value == pytest.approx(71 / 135)
    assert t.binary["fleiss"].value == pytest.approx(71 / 135)
    assert t.graded["observed"].value == pytest.approx(7 / 9)
    # test_agreement's hand example: binary AC1 23/41, overlap 1/2; graded on 0, 1, 2 (1 unused) 43/61.
    assert t.binary["ac1"].value == pytest.approx(23 / 41) and t.binary["overlap"].value == pytest.approx(1 / 2)
    assert t.graded["ac1"].value == pytest.approx(43 / 61)
    assert [(p.first, p.second, p.doubly_judged) for p in report.pairs] == [  # each pair once, first by name
        ("ann", "bob", 3),
        ("ann", "cat", 2),
        ("bob", "cat", 2),
    ]
    assert {a.name: a.judgments for a in report.assessors} == {"ann": 3, "bob": 3, "cat": 3}


def test_assessors_notes_are_listed_newest_first_escaped_and_linked_to_the_documents_judgments(
    client, organizer, simple
):
    campaign, topic, d1, d2 = simple
    Judgment.objects.filter(document=d2, assessor__username="ann").update(
        note="<script>alert(1)</script> unreadable", updated=timezone.now() + timedelta(minutes=1))
    client.force_login(organizer)
    page = client.get(reverse("notes", args=[campaign.slug])).content.decode()
    rows = re.findall(r"<tr>\s*<td class=\"nowrap\">[^<]*</td>\s*<td>5</td>\s*<td class=\"nowrap\"><a href=\"([^\"]+)\">(d\d)</a>"
                      r"</td>\s*<td>(\w+)</td>\s*<td class=\"nowrap\">(\d) ([^<]+)</td>\s*<td class=\"note-text\">([^<]*)</td>",
                      page)
    assert rows == [
        (reverse("adjudication_document", args=[campaign.slug, topic.pk, d2.pk]), "d2", "ann", "1", "Partially relevant",
         "&lt;script&gt;alert(1)&lt;/script&gt; unreadable"),
        (reverse("adjudication_document", args=[campaign.slug, topic.pk, d1.pk]), "d1", "ann", "0", "Not relevant",
         "too vague"),
    ]  # bob left no notes
    assert "assessors' notes (2 open)" in client.get(reverse("campaign", args=[campaign.slug])).content.decode()


def open_and_handled(client, campaign) -> tuple[list[str], list[str]]:
    """The docnos of the open notes and of those dealt with, as the notes page lists them."""
    page = client.get(reverse("notes", args=[campaign.slug])).content.decode()
    opened, _, handled = page.partition('<details class="handled-notes">')
    return re.findall(r">(d\d)</a>", opened), re.findall(r">(d\d)</a>", handled)


def test_an_organizer_marks_a_note_dealt_with_and_a_changed_note_is_open_again(client, organizer, simple):
    campaign, topic, d1, d2 = simple
    Judgment.objects.filter(document=d2, assessor__username="ann").update(note="unreadable")
    client.force_login(organizer)
    assert open_and_handled(client, campaign) == (["d2", "d1"], [])
    note = Judgment.objects.get(document=d1, assessor__username="ann")
    response = client.post(reverse("note_handled", args=[campaign.slug, note.pk]), {"handled": "1"})
    assert response.status_code == 302
    assert open_and_handled(client, campaign) == (["d2"], ["d1"])
    note.refresh_from_db()
    assert note.note_handled_by == organizer and note.note_handled_at is not None
    assert "assessors' notes (1 open)" in client.get(reverse("campaign", args=[campaign.slug])).content.decode()
    # The assessor revises the grade with the same note: still dealt with; with a new note: open again.
    note.set_grade(2, by=note.assessor, note="too vague")
    assert open_and_handled(client, campaign) == (["d2"], ["d1"])
    note.set_grade(1, by=note.assessor, note="too vague, see the narrative's second sentence")
    assert open_and_handled(client, campaign) == (["d1", "d2"], [])
    note.refresh_from_db()
    assert note.note_handled_at is None and note.note_handled_by is None
    # And back: dealt with, then open again by the organizer.
    client.post(reverse("note_handled", args=[campaign.slug, note.pk]), {"handled": "1"})
    client.post(reverse("note_handled", args=[campaign.slug, note.pk]), {"handled": "0"})
    assert open_and_handled(client, campaign) == (["d1", "d2"], [])


def test_only_a_judgment_with_a_note_of_the_campaign_can_be_marked(client, organizer, simple, campaign):
    _, topic, d1, _ = simple
    client.force_login(organizer)
    silent = Judgment.objects.get(document=d1, assessor__username="bob")  # bob left no note
    assert client.post(reverse("note_handled", args=[campaign.slug, silent.pk]), {"handled": "1"}).status_code == 404
    with pytest.raises(ValueError, match="has no note"):
        silent.mark_note_handled(organizer)


@pytest.mark.parametrize("role", ["assessor", "participant"])
def test_only_organizers_read_the_notes_and_mark_them(client, simple, role, request):
    client.force_login(request.getfixturevalue(role))
    assert client.get(reverse("notes", args=[simple[0].slug])).status_code == 403
    noted = Judgment.objects.exclude(note="").first()
    assert client.post(reverse("note_handled", args=[simple[0].slug, noted.pk]), {"handled": "1"}).status_code == 403
    noted.refresh_from_db()
    assert noted.note_handled_at is None


def test_each_pair_of_assessors_appears_once_whichever_topic_lists_them_first(campaign, named_assessor):
    bob, ann = named_assessor("bob"), named_assessor("ann")  # bob has the lower id
    first = Topic.objects.create(campaign=campaign, identifier="1", position=0)
    second = Topic.objects.create(campaign=campaign, identifier="2", position=1)
    for topic, primary, other in ((first, bob, ann), (second, ann, bob)):
        Assignment.objects.create(campaign=campaign, topic=topic, assessor=primary, role="primary")
        Assignment.objects.create(campaign=campaign, topic=topic, assessor=other, role="second")
    grades = [(first, "d1", 1, 1), (first, "d2", 0, 1), (second, "d3", 0, 1)]  # (topic, docno, ann, bob)
    for topic, docno, by_ann, by_bob in grades:
        doc = Document.objects.create(campaign=campaign, docno=docno)
        Judgment.objects.create(campaign=campaign, topic=topic, document=doc, assessor=ann, grade=by_ann)
        Judgment.objects.create(campaign=campaign, topic=topic, document=doc, assessor=bob, grade=by_bob)
    (pair,) = agreements.campaign_agreement(campaign).pairs
    assert (pair.first, pair.second, pair.topics, pair.doubly_judged) == ("ann", "bob", 2, 3)
    # Rows are ann's grades, columns bob's: (1, 1) once; (0, 1) twice, once per topic.
    assert pair.table.tolist() == [[0, 2, 0], [0, 1, 0], [0, 0, 0]]


def test_undefined_values_link_to_their_reason_given_once_below_the_overall_table(client, organizer, judged):
    client.force_login(organizer)
    page = client.get(reverse("agreement", args=["cds15"])).content.decode()
    notes = page[page.index('id="undefined-notes"'):page.index("</ol>", page.index('id="undefined-notes"'))]
    reasons = re.findall(r'<li id="undefined-(\d+)">([^<]+)</li>', notes)
    assert [n for n, _ in reasons] == [str(n) for n in range(1, len(reasons) + 1)] and reasons
    without_titles = re.sub(r'title="[^"]*"', "", page)
    for _, reason in reasons:
        assert without_titles.count(reason.rstrip(".")) == 1, reason  # in the legend only, not in each cell
    topics = page[page.index('id="topics"'):page.index("</table>", page.index('id="topics"'))]
    overlap = "No assessor judged any of these documents relevant"
    number = next(n for n, reason in reasons if reason.startswith(overlap))
    assert f'<sup><a href="#undefined-{number}">{number}</a></sup>' in topics  # topic 2's overlap


def test_a_topic_without_doubly_judged_documents_is_the_footnotes_subject_not_the_whole_campaign(client, organizer, judged):
    campaign, seed, same, ann, bob = judged
    alone = Topic.objects.create(campaign=campaign, identifier="3", position=2)
    doc = Document.objects.create(campaign=campaign, docno="alone1")
    Assignment.objects.create(campaign=campaign, topic=alone, assessor=ann, role="primary")
    Judgment.objects.create(campaign=campaign, topic=alone, document=doc, assessor=ann, grade=1)
    client.force_login(organizer)
    page = client.get(reverse("agreement", args=[campaign.slug])).content.decode()
    assert "15 doubly judged documents" in page
    assert "No document was judged by two or more assessors." not in page
    assert "No document of this topic was judged by two or more assessors." in page
