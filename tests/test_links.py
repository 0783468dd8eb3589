"""Every link the app shows each role leads somewhere, and every link between the documentation's pages too.

For the organizer, the assessor and the participant in turn, every same-site link on every page
reached (GET, query strings included, the admin and logging out left aside) must answer 200
(a page or a download) or redirect to a page that does. A link to a page its viewer may not see,
a view that fails on the demo's data, or a link the URL configuration no longer has fails here.

In README.md, docs/*.md and bench/README.md every relative link must name a file that exists,
and a `#fragment` a heading of that page; every page is reachable from the README.
"""

from __future__ import annotations

import io
import re
from html import unescape
from pathlib import Path
from urllib.parse import urldefrag, urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

LINK = re.compile(r'<a\b[^>]*\bhref="([^"]+)"')
SKIP = ("/admin/", "/accounts/logout/", "/static/")
MOST = 1000  # pages per role; the demo has fewer (the assessor reaches each of the ~400 documents of their queues)


def crawl(client) -> dict[str, int]:
    """Status of every page reached from the home page (redirects followed), by address."""
    seen: dict[str, int] = {}
    todo = ["/"]
    while todo and len(seen) < MOST:
        address = todo.pop()
        if address in seen:
            continue
        response = client.get(address, follow=True)
        seen[address] = response.status_code
        if response.status_code != 200 or not response["Content-Type"].startswith("text/html"):
            continue
        for href in LINK.findall(response.content.decode()):
            target = urldefrag(unescape(href))[0]
            parts = urlsplit(target)
            if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith(SKIP):
                continue
            todo.append(target)
    return seen


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["organizer", "assessor", "participant"])
def test_every_link_shown_to_a_role_leads_to_a_page_or_a_download(client, role):
    call_command("load_demo", stdout=io.StringIO())
    client.force_login(get_user_model().objects.get(username=role))
    seen = crawl(client)
    broken = {address: status for address, status in seen.items() if status != 200}
    assert broken == {}
    assert len(seen) < MOST
    assert len(seen) > {"organizer": 40, "assessor": 5, "participant": 10}[role], sorted(seen)


# --------------------------------------------------------------------------------------------
# The documentation's own links: README.md, docs/*.md and bench/README.md

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "bench" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKDOWN_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", flags=re.S | re.M)


def anchors(page: Path) -> set[str]:
    """The anchors GitHub makes for a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    text = FENCE.sub("", page.read_text())
    found = set()
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        base, n = slug, 1
        while slug in found:
            slug, n = f"{base}-{n}", n + 1
        found.add(slug)
    return found


def relative_links(page: Path) -> list[str]:
    """The relative link targets of a page, code blocks and inline code left aside."""
    text = re.sub(r"`[^`\n]*`", "", FENCE.sub("", page.read_text()))
    return [t for t in MARKDOWN_LINK.findall(text) if not urlsplit(t).scheme and not t.startswith("mailto:")]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_of_the_documentation_resolves(page):
    broken = []
    for target in relative_links(page):
        path, _, fragment = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif fragment and file.suffix == ".md" and fragment not in anchors(file):
            broken.append(f"{target}: no heading #{fragment} in {file.relative_to(ROOT)}")
    assert broken == []


def test_the_documentation_pages_are_linked_from_the_readme():
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in relative_links(ROOT / "README.md")}
    assert set(PAGES[1:]) - linked == set()


DOC_REFERENCE = re.compile(r"\b(docs/[\w-]+\.md)(?:#([\w-]+))?")


def test_every_page_the_code_points_to_exists_with_its_heading():
    """Docstrings and comments name the page (and heading) that explains them: ``docs/evaluation.md#sampling-designs``."""
    broken = []
    for source in sorted(p for app in ("evaluation", "judging", "config") for p in (ROOT / app).rglob("*.py")):
        for path, fragment in DOC_REFERENCE.findall(source.read_text()):
            page = ROOT / path
            if not page.exists() or (fragment and fragment not in anchors(page)):
                broken.append(f"{source.relative_to(ROOT)}: {path}{'#' + fragment if fragment else ''}")
    assert broken == []
