"""Hostile values in any request answer 4xx, never 500: NUL characters (which PostgreSQL's text cannot
hold) and 20-digit integers (which neither SQLite nor PostgreSQL's integer columns can hold).

Every route of the app is walked (tests/test_access.py's two demo campaigns) by each role, with the
hostile value in the query and in every form field the app's forms have; the same on PostgreSQL
(bin/test's second pass).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urlencode

import pytest
from django.urls import reverse

from tests.test_access import client_of, demo, person, urls  # noqa: F401 (demo is a fixture)

pytestmark = pytest.mark.django_db

BIG = "99999999999999999999"  # 20 digits: more than a 64-bit integer holds
#: Every integer (or primary key) a form or a query of the app reads, by its field name.
INTEGER_FIELDS = ["grade", "depth", "k", "budget", "runs_per_team", "seed", "draws", "priority", "relevant_from",
                  "reduction", "primary", "second", "assessor", "user", "team", "topic", "document", "position",
                  "overlap_count", "overlap", "count", "per_assessor", "official", "page", "run", "other"]
#: Text fields and queries, each given a NUL.
TEXT_FIELDS = ["q", "measure", "name", "slug", "description", "scale", "tag", "username", "usernames", "note", "title",
               "reductions", "strata", "rates", "design", "kind", "table", "next", "confirm", "submission", "tab"]


def walk(demo, role: str):  # noqa: F811
    """(name, url) of every route, as ``role`` of the demo campaign; the campaign's deletion last."""
    routes = sorted(urls(demo["demo"]), key=lambda route: route[0] == "campaign_delete")
    client = client_of(person(role, "demo"))
    client.raise_request_exception = False  # a 500 is counted as one, not raised
    return client, routes


def answers(client, url: str, data: dict) -> list[tuple[str, int]]:
    separator = "&" if "?" in url else "?"
    return [("GET", client.get(url + separator + urlencode(data)).status_code),
            ("POST", client.post(url, data).status_code)]


@pytest.mark.parametrize("role", ["organizer", "assessor", "participant"])
def test_a_nul_in_a_query_or_a_form_field_is_a_bad_request_on_every_route(demo, role):  # noqa: F811
    client, routes = walk(demo, role)
    failed = [(name, method, status) for name, url in routes
              for method, status in answers(client, url, {field: "x\x00y" for field in TEXT_FIELDS})
              if status != 400]
    assert failed == []


def test_a_nul_in_a_campaign_slug_a_topic_or_a_run_tag_is_not_found(demo):  # noqa: F811
    client = client_of(person("organizer", "demo"))
    addresses = ["/c/demo%00/", "/c/%00/scores/", reverse("run_scores", args=["demo", "aurora1\x00"]),
                 reverse("run_download", args=["demo", "\x00"]), reverse("assess_next", args=["demo", "101\x00"]),
                 reverse("topic_edit", args=["demo", "\x00101"]), reverse("relevance", args=["demo"]) + "%00/"]
    assert {address: client.get(address).status_code for address in addresses} == dict.fromkeys(addresses, 404) | {
        "/c/demo%00/": 400, "/c/%00/scores/": 400, reverse("relevance", args=["demo"]) + "%00/": 400}
    assert client.get(reverse("leaderboard", args=["demo"]), {"measure": "AP\x00"}).status_code == 400
    assert client.get(reverse("document", args=["demo"]), {"q": "\x00"}).status_code == 400
    assert client.post(reverse("campaign_settings", args=["demo"]), {"name": "a\x00"}).status_code == 400


class Forms(HTMLParser):
    """The POST forms of a page: (action, {name: value} as the browser would send them untouched, numeric names)."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[tuple[str, dict[str, str], set[str]]] = []
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.forms.append((a.get("action", ""), {}, set()) if a.get("method", "").lower() == "post" else ("", {}, set()))
        if not self.forms or not a.get("name"):
            if tag == "option" and self._select and self.forms:
                fields = self.forms[-1][1]
                if self._select not in fields or "selected" in a:
                    fields[self._select] = a.get("value", "")
                if re.fullmatch(r"-?\d+", a.get("value", "")):
                    self.forms[-1][2].add(self._select)
            return
        _, fields, numeric = self.forms[-1]
        name = a["name"]
        if tag == "input" and (a.get("type") not in {"checkbox", "radio", "file", "submit"} or "checked" in a):
            fields[name] = a.get("value", "")
        if tag in {"input", "button"} and (a.get("type") == "number" or a.get("type") in {"radio", "submit"} and re.fullmatch(r"-?\d+", a.get("value", ""))):
            numeric.add(name)
        elif tag == "select":
            self._select = name
        elif tag == "textarea":
            self._textarea = name
            fields[name] = ""

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data):
        if self._textarea and self.forms:
            self.forms[-1][1][self._textarea] += data


def page_forms(client, url: str) -> list[tuple[str, dict[str, str], set[str]]]:
    response = client.get(url)
    if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
        return []
    parser = Forms()
    parser.feed(response.content.decode())
    return [(action or url, fields, numeric) for action, fields, numeric in parser.forms if numeric]


@pytest.mark.parametrize("role", ["organizer", "assessor", "participant"])
def test_a_20_digit_integer_in_any_forms_number_field_is_refused_not_a_server_error(demo, role):  # noqa: F811
    client, routes = walk(demo, role)
    failed, tried = [], 0
    for name, url in routes:
        for action, fields, numeric in page_forms(client, url):
            for field in sorted(numeric):
                for value in (BIG, "-" + BIG):
                    status = client.post(action, {**fields, field: value}).status_code
                    tried += 1
                    if status >= 500:
                        failed.append((name, action, field, value, status))
    assert failed == [], "\n".join(map(str, failed))
    assert tried > (20 if role == "organizer" else 0)


@pytest.mark.parametrize("role", ["organizer", "participant"])
def test_a_20_digit_integer_in_a_query_is_ignored_or_refused_not_a_server_error(demo, role):  # noqa: F811
    client, routes = walk(demo, role)
    data = {field: "-" + BIG for field in INTEGER_FIELDS}
    failed = [(name, status) for name, url in routes
              for status in [client.get(url + ("&" if "?" in url else "?") + urlencode(data)).status_code]
              if status >= 500]
    assert failed == []


def test_a_20_digit_id_in_the_address_is_refused_not_a_server_error(demo):  # noqa: F811
    client = client_of(person("organizer", "demo"))
    ids = {"user_id", "import_job_id", "topic_id", "document_id", "judgment_id", "team_id", "pk", "document"}
    failed = [(name, status) for name, url in urls(demo["demo"], **dict.fromkeys(ids, int(BIG)))
              if any(arg in url for arg in [BIG]) for status in [client.get(url).status_code] if status not in {403, 404, 405}]
    assert failed == []
