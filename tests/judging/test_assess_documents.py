"""Untrusted documents on the judging page are inert: XSS payloads, CSS tricks, external loads; terms marked in text only."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.urls import reverse

from judging import assigning
from campaigns.document_bodies import ALLOWED_TAGS, sanitize
from judging.documents import document_html, highlight, topic_terms
from campaigns.models import Document
from tests.judging.toy_queue import load_queue_toy

PAYLOADS = {
    "script": "<p>solar</p><script>alert(document.cookie)</script>",
    "script in svg": "<svg><script>alert(1)</script><circle onload=alert(2)></circle></svg>",
    "event handler": '<img src="x" onerror="alert(1)"><p onclick="alert(2)" onmouseover="alert(3)">text</p>',
    "javascript link": '<a href="javascript:alert(1)">click</a><a href="JaVaScRiPt:alert(2)">two</a>',
    "data link": '<a href="data:text/html,<script>alert(1)</script>">data</a>',
    "inline style covering the page": '<div style="position:fixed;top:0;left:0;width:100%;height:100%;z-index:99;background:#fff">cover</div>',
    "style sheet hiding controls": "<style>.judge-bar, #judgment-form { display: none !important }</style><p>text</p>",
    "external style sheet": '<link rel="stylesheet" href="https://evil.example/x.css"><p>text</p>',
    "external image": '<img src="https://evil.example/pixel.gif"><p>text</p>',
    "iframe": '<iframe src="https://evil.example/"></iframe><object data="x.swf"></object><embed src="x.swf">',
    "meta refresh": '<meta http-equiv="refresh" content="0;url=https://evil.example/">',
    "base href": '<base href="https://evil.example/"><a href="/login">login</a>',
    "form": '<form action="https://evil.example/"><input name="password"><button>Go</button></form>',
    "id and class hijacking htmx targets": '<div id="assess-panel" class="judge-bar" hx-get="/admin/" hx-trigger="load">x</div>',
    "noscript mutation": '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></p></noscript>',
    "math": '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
    "comment": "<!--><script>alert(1)</script>--><p>text</p>",
    "template": "<template><script>alert(1)</script></template><p>text</p>",
}


class TagCollector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, attrs))


def tags_of(html: str) -> list[tuple[str, list]]:
    parser = TagCollector()
    parser.feed(html)
    return parser.tags


def assert_inert(html: str) -> None:
    lowered = html.lower()
    for needle in ("<script", "javascript:", "onerror", "onclick", "onload", "<style", "<iframe", "<img", "<link",
                   "<meta", "<base", "<form", "<input", "<svg", "<object", "<embed", "style=", "hx-", "id=", "class="):
        assert needle not in lowered, needle
    for tag, attrs in tags_of(html):
        assert tag in ALLOWED_TAGS | {"mark"} and attrs == [], (tag, attrs)


@pytest.mark.parametrize("name", PAYLOADS)
def test_sanitized_payloads_keep_only_bare_structure_tags(name):
    assert_inert(sanitize(PAYLOADS[name]))


@pytest.mark.parametrize("name", PAYLOADS)
def test_payloads_in_plain_text_documents_are_shown_as_text(name):
    html = document_html(PAYLOADS[name], is_html=False, terms=["solar"])
    assert "<script" not in html and html.startswith("<p>") and tags_of(html) in ([("p", [])], [("p", []), ("mark", [])])


def test_terms_are_marked_in_text_and_never_inside_tags_or_entities():
    html = sanitize("<p>Solar panels &amp; <b>recycled</b> amplifiers</p><table><tr><td>panel</td></tr></table>")
    marked = highlight(html, topic_terms("solar panel recycling amp table"))
    assert marked == ("<p><mark>Solar</mark> <mark>panels</mark> &amp; <b><mark>recycled</mark></b> <mark>amplifiers</mark></p>"
                      "<table><tbody><tr><td><mark>panel</mark></td></tr></tbody></table>")


def test_topic_terms_drop_stopwords_and_short_words_and_cut_common_endings():
    assert topic_terms("How are the solar panels of a city recycled? (PV)") == ["solar", "panel", "city", "recycl"]


@pytest.mark.django_db
@pytest.mark.parametrize("name", PAYLOADS)
def test_the_judging_page_renders_payloads_inert_and_keeps_its_controls(client, campaign, assessor, name):
    toy = load_queue_toy(campaign)
    Document.objects.filter(pk=toy["docs"]["d05"].pk).update(
        body=PAYLOADS[name], is_html=True, title='<script>alert("title")</script>'
    )
    assigning.assign_topic(toy["t1"], assessor, [])
    client.force_login(assessor)
    page = client.get(reverse("assess_document", args=["cds15", "1", toy["docs"]["d05"].pk])).content.decode()
    body = page.split('<div class="document-body">')[1].split("</div>\n    </article>")[0]
    assert_inert(body)
    assert '&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt;' in page  # the title is escaped text
    assert page.count('id="assess-panel"') == 1 and page.count('id="judgment-form"') == 1
    assert page.count("<script") == 3  # htmx, the site's and the page's own script, all from /static/


@pytest.mark.django_db
def test_topic_statements_are_escaped_on_every_judging_page(client, campaign, assessor, organizer):
    toy = load_queue_toy(campaign)
    payload = '<img src=x onerror="alert(1)">'
    type(toy["t1"]).objects.filter(pk=toy["t1"].pk).update(title=f"solar {payload}", description=payload, narrative=payload)
    assigning.assign_topic(toy["t1"], assessor, [])
    client.force_login(assessor)
    pages = [reverse("assess_document", args=["cds15", "1", toy["docs"]["d05"].pk]), reverse("assess_home")]
    for address in pages:
        page = client.get(address).content.decode()
        assert "<img" not in page and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in page, address
    client.force_login(organizer)
    for name in ("assignments", "assessing_progress"):
        page = client.get(reverse(name, args=["cds15"])).content.decode()
        assert "<img" not in page, name
