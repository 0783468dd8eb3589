"""A whole campaign as its people live it, in a real Chromium against a live server, from an empty
database: the organizer creates it and imports TREC SGML, TSV and JSONL topics, a TREC SGML
collection, runs and qrels; builds a pool; two assessors judge by keyboard (one closes the browser
mid-topic and continues in a new one); the organizer adjudicates, releases, archives and reopens;
a participant uploads through the page and the API and reads the scores.

Every step asserts what its people see (the documents' text, each state's rules on the pages and
in the API), and that no page logged a console or CSP error or got a 4xx/5xx answer the user did
not cause; each step leaves a screenshot under artifacts/screenshots/campaign/.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import expect

from campaigns.models import Team, TeamToken
from tests.browser import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TOPICS_SGML = b"<top>\n<num> Number: 1\n<title> solar panel recycling\n<desc> How are panels recycled?\n</top>\n"
TOPICS_TSV = b"2\tcoral reef bleaching\tWhat causes bleaching?\n"
TOPICS_JSONL = b'{"id": "3", "title": "ferry traffic", "description": "Ferries in winter."}\n'
DOCUMENTS = "".join(
    f"<DOC>\n<DOCNO> D{n:03} </DOCNO>\n<HL> Headline {n} </HL>\n<DATE> 1991-04-0{n % 9 + 1} </DATE>\n"
    f"<TEXT>\nBody text of document {n}: panels, reefs and ferries.\n\nSecond paragraph {n}.\n</TEXT>\n</DOC>\n"
    for n in range(1, 13)
).encode()
#: Two runs over topics 1 and 2; a depth-2 pool takes D001 D002 D003 of topic 1 and D004 D005 D006 of 2.
RUN_A = b"".join(f"{t} Q0 D{d:03} {r} {10 - r} runA\n".encode()
                 for t, docs in ((1, (1, 2, 7)), (2, (4, 5, 8))) for r, d in enumerate(docs, start=1))
RUN_B = b"".join(f"{t} Q0 D{d:03} {r} {10 - r} runB\n".encode()
                 for t, docs in ((1, (3, 1, 9)), (2, (6, 4, 10))) for r, d in enumerate(docs, start=1))
QRELS = b"3 0 D011 1\n3 0 D012 0\n"
PARTICIPANT_RUN = b"".join(f"{t} Q0 D{d:03} {r} {10 - r} alpha1\n".encode()
                           for t, docs in ((1, (2, 1)), (2, (5, 6))) for r, d in enumerate(docs, start=1))


class Watch:
    """Console errors (CSP violations included) and 4xx/5xx answers of every page watched; the
    browser contexts opened, closed at the end (an open judging page keeps renewing its claims)."""

    def __init__(self):
        self.problems: list[str] = []
        self.contexts = []

    def context(self, chromium):
        context = chromium.new_context(viewport={"width": 1280, "height": 900})
        context.set_default_timeout(10_000)
        self.contexts.append(context)
        return context

    def close(self):
        for context in self.contexts:
            context.close()

    def page(self, page):
        page.on("console", lambda m: self.problems.append(f"console: {m.text}") if m.type == "error" else None)
        page.on("response", lambda r: self.problems.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        return page


def shot(page, step: str) -> None:
    screenshot(page, f"campaign/{step}")


def invite(organizer_page, watch: Watch, chromium, kind: str, line: str, name: str):
    """The organizer invites a new person on the people page; they open the invitation link in their
    own browser, choose the password ``tide-pool-<name>-42`` and join (logged in). Their page."""
    organizer_page.goto(f"{organizer_page.url.split('/c/')[0]}/c/news91/people/")
    label = "Assessors, one per line" if kind == "assessors" else "Participants, one per line"
    organizer_page.get_by_label(label).fill(line)
    organizer_page.get_by_role("button", name=f"Invite {kind}").click()
    link = organizer_page.get_by_label(f"Invitation link of {name}").input_value()
    page = watch.page(watch.context(chromium).new_page())
    page.goto(link)
    page.get_by_label("New password", exact=True).fill(f"tide-pool-{name}-42")
    page.get_by_label("New password confirmation").fill(f"tide-pool-{name}-42")
    page.get_by_role("button", name="Set password and join").click()
    expect(page.get_by_role("heading", name="Campaigns")).to_be_visible()
    return page


def log_in(context, live_server, watch: Watch, name: str):
    page = watch.page(context.new_page())
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", f"tide-pool-{name}-42")
    page.click("button[type=submit]")
    page.wait_for_load_state()
    return page


def import_file(page, kind: str, name: str, content: bytes, unknown: str | None = None) -> None:
    form = page.locator(f"form[action$='/import/{kind}/']")
    form.locator("input[type=file]").set_input_files({"name": name, "mimeType": "text/plain", "buffer": content})
    if unknown:
        form.locator("select[name=unknown_topics]").select_option(unknown)
    form.locator("button[type=submit]").click()
    expect(page.get_by_role("status").first).to_contain_text(name, timeout=15_000)


def judge_by_keyboard(page, grades, *, stop_after: int | None = None) -> int:
    """Press a grade key per document until the topic is done (or ``stop_after`` documents); the count judged."""
    judged = 0
    while stop_after is None or judged < stop_after:
        expect(page.locator(".htmx-request, .htmx-settling, .htmx-swapping")).to_have_count(0)
        if page.get_by_text("You have judged every document").count():
            break
        expect(page.locator(".document-body")).to_contain_text("Body text of document")
        page.keyboard.press(str(grades[judged % len(grades)]))
        judged += 1
        expect(page.locator(".topic-count")).to_contain_text(f"{judged} of")
    return judged


def api(live_server, token: str, path: str, data: bytes | None = None, content_type: str | None = None):
    request = urllib.request.Request(f"{live_server.url}/api{path}", data=data,
                                     headers={"Authorization": f"Bearer {token}",
                                              **({"Content-Type": content_type} if content_type else {})})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as refused:
        return refused.code, json.load(refused)


def multipart(name: str, content: bytes) -> tuple[bytes, str]:
    boundary = "campaign-test-boundary"
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="priority"\r\n\r\n1\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: text/plain\r\n\r\n").encode() + content + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


@pytest.fixture
def watch():
    watching = Watch()
    yield watching
    watching.close()


def test_a_whole_campaign_from_an_empty_database(chromium, browser_login, live_server, organizer, watch):
    olga = watch.page(browser_login(organizer))
    url = live_server.url

    # The organizer creates the campaign and imports its files.
    olga.goto(f"{url}/campaigns/new/")
    olga.get_by_label("Name").fill("Newswire 1991")
    olga.get_by_label("Slug").fill("news91")
    olga.get_by_label("Scale").fill("0:Not relevant,1:Relevant,2:Highly relevant")
    olga.get_by_role("button", name="Create").click()
    expect(olga.get_by_text("Created Newswire 1991")).to_be_visible()
    shot(olga, "01-created")
    olga.goto(f"{url}/c/news91/import/")
    import_file(olga, "topics", "topics.sgml", TOPICS_SGML)
    import_file(olga, "topics", "topics.tsv", TOPICS_TSV)
    import_file(olga, "topics", "topics.jsonl", TOPICS_JSONL)
    import_file(olga, "documents", "wsj.sgml", DOCUMENTS)
    import_file(olga, "runs", "runA", RUN_A)
    import_file(olga, "runs", "runB", RUN_B)
    import_file(olga, "qrels", "qrels.txt", QRELS)
    shot(olga, "02-imported")
    olga.goto(f"{url}/c/news91/document/?docno=D001")
    expect(olga.get_by_text("Body text of document 1: panels, reefs and ferries.")).to_be_visible()
    expect(olga.locator("h2", has_text="Headline 1")).to_be_visible()

    # A depth-2 pool, then judging.
    olga.goto(f"{url}/c/news91/pool/")
    olga.get_by_label("Method").select_option("depth")
    olga.get_by_label("Pool depth D").fill("2")
    olga.get_by_role("button", name="Preview").click()
    expect(olga.get_by_text("Depth pool to depth 2")).to_be_visible()
    olga.get_by_label("Replace the existing pool (its judgments stay)").check()  # the qrels' pool
    olga.get_by_role("button", name="Build pool").click()
    expect(olga.locator("#pool-status")).to_contain_text("built", timeout=30_000)
    shot(olga, "03-pool")
    ann = invite(olga, watch, chromium, "assessors", "ann", "ann")
    bob = invite(olga, watch, chromium, "assessors", "bob", "bob")
    olga.goto(f"{url}/c/news91/assignments/")
    olga.get_by_label("Assessors, in turn").select_option(["ann", "bob"])
    olga.locator("form.distribute input[name=overlap]").fill("100%")
    olga.get_by_role("button", name="Assign").click()
    olga.goto(f"{url}/c/news91/settings/")
    olga.get_by_role("button", name="Move to judging").click()
    expect(olga.get_by_text("The campaign is now judging")).to_be_visible()

    ann.goto(f"{url}/c/news91/assess/1/")
    expect(ann.locator(".document-body h2")).to_contain_text("Headline")
    expect(ann.locator(".document-body")).to_contain_text("Second paragraph")
    shot(ann, "04-judging")
    assert judge_by_keyboard(ann, [1, 2, 0]) == 3
    ann.goto(f"{url}/c/news91/assess/2/")
    assert judge_by_keyboard(ann, [2]) == 3
    bob.goto(f"{url}/c/news91/assess/2/")
    assert judge_by_keyboard(bob, [1], stop_after=1) == 1
    bob.context.close()  # the browser goes away mid-topic
    bob = log_in(watch.context(chromium), live_server, watch, "bob")
    bob.goto(f"{url}/c/news91/assess/2/")
    expect(bob.locator(".topic-count")).to_contain_text("1 of 3")
    expect(bob.get_by_text("open in another tab")).to_have_count(0)
    assert judge_by_keyboard(bob, [1]) == 2
    bob.goto(f"{url}/c/news91/assess/1/")
    assert judge_by_keyboard(bob, [1]) == 3
    shot(bob, "05-judged")

    # A participant uploads a run through the page and one by the API while judging is on.
    participant = invite(olga, watch, chromium, "participants", "Alpha, pia", "pia")
    token = TeamToken.issue(Team.objects.get(campaign__slug="news91", name="Alpha"), organizer)[1]
    participant.goto(f"{url}/c/news91/team/")
    participant.get_by_label("File").set_input_files({"name": "alpha1", "mimeType": "text/plain", "buffer": PARTICIPANT_RUN})
    participant.get_by_role("button", name="Upload the run").click()
    expect(participant.get_by_text("Run alpha1 uploaded")).to_be_visible()
    status, body = api(live_server, token, "/campaigns/news91/runs", *multipart("alpha2", PARTICIPANT_RUN.replace(b"alpha1", b"alpha2")))
    assert status == 201 and body["tag"] == "alpha2", body
    assert api(live_server, token, "/team")[1]["scores_released"] is False
    shot(participant, "06-uploaded")

    # The organizer adjudicates one disagreement and releases the scores.
    olga.goto(f"{url}/c/news91/adjudication/")
    row = olga.locator("#disagreements tbody tr").first
    row.get_by_role("button", name="Set").click()
    expect(olga.locator("#disagreements").get_by_role("status").first).to_have_text("saved")
    shot(olga, "07-adjudicated")
    olga.goto(f"{url}/c/news91/scores/")
    olga.get_by_role("button", name="Release scores to all participants").click()
    expect(olga.get_by_text("Scores released to all participants.")).to_be_visible()
    team_api = api(live_server, token, "/team")[1]
    assert (team_api["scores_released"], team_api["uploads_open"]) == (True, False)
    participant.goto(f"{url}/c/news91/scores/")
    expect(participant.get_by_role("link", name="runB")).to_be_visible()  # every team's runs
    shot(participant, "08-released")

    # Archive, then reopen: released again, uploads stay closed.
    olga.goto(f"{url}/c/news91/settings/")
    olga.get_by_role("button", name="Archive").click()
    olga.goto(f"{url}/c/news91/import/")
    expect(olga.get_by_text("The campaign is archived: nothing in it changes.")).to_be_visible()
    expect(olga.locator("form[action$='/import/topics/']")).to_have_count(0)
    shot(olga, "09-archived")
    olga.goto(f"{url}/c/news91/settings/")
    olga.get_by_role("button", name="Reopen (released)").click()
    expect(olga.get_by_text("The campaign is now released")).to_be_visible()
    team_api = api(live_server, token, "/team")[1]
    assert (team_api["scores_released"], team_api["uploads_open"]) == (True, False)
    participant.goto(f"{url}/c/news91/team/")
    expect(participant.get_by_text("The scores are released: runs can no longer be uploaded or withdrawn.")).to_be_visible()
    status, refused = api(live_server, token, "/campaigns/news91/runs", *multipart("alpha3", PARTICIPANT_RUN))
    assert status == 403 and refused["detail"].startswith("The scores are released")  # the user's own doing
    shot(participant, "10-reopened")

    assert watch.problems == []
