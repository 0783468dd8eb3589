"""Chromium screenshots of the pages people read, at TREC-8 size: to look at them as a user would.

The campaign of ``bench/bench_pages.py`` (50 topics, 129 runs, a depth-100 stratified pool,
20 assessors with ~40,000 judgments) is built if it is missing, a robustness report with a few
draws is computed for it, and the app is served by ``manage.py runserver`` on that database. A
headless Chromium (Debian's ``chromium``) signs in as the benchmark's organizer and saves a
full-page PNG of each page below into ``artifacts/screenshots/trec8-size/`` (git-ignored, beside
the screenshots the browser tests save), then prints each file with its size in pixels.

Pages: the pool, the leaderboard (xinfAP and AP), a run's page, the agreement page, the
robustness report, the pool bias and a run's appendix.

Usage::

    .venv/bin/python bench/screenshots.py [--database postgres://…] [--out artifacts/screenshots/trec8-size] [--port 8771]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_pages import OUT as PAGES_DIR  # noqa: E402
from bench.bench_pages import load_campaign  # noqa: E402
from bench.bench_judging_load import ensure_database  # noqa: E402

PASSWORD = "bench-screenshots"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", help="postgres://… (default: the SQLite file of bench_pages.py)")
    parser.add_argument("--out", type=Path, default=ROOT / "artifacts" / "screenshots" / "trec8-size")
    parser.add_argument("--port", type=int, default=8771)
    args = parser.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("chromium is not installed: apt-get install chromium (bin/test installs it)")
    env = dict(os.environ)
    env.pop("REDIS_URL", None)  # background work in-process, as on the embedded default
    if args.database:
        ensure_database(args.database)
        env["DATABASE_URL"] = args.database
    else:
        env.pop("DATABASE_URL", None)
        PAGES_DIR.mkdir(parents=True, exist_ok=True)
        env["VAR_DIR"] = str(PAGES_DIR)
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    campaign = load_campaign(False)
    organizer = prepare(campaign)
    args.out.mkdir(parents=True, exist_ok=True)
    server = subprocess.Popen([sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{args.port}"],
                              cwd=ROOT, env=env | {"ALLOWED_HOSTS": "127.0.0.1"},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{args.port}"
        wait_for_server(base)
        shoot(chromium, base, organizer, pages(campaign), args.out)
    finally:
        server.terminate()
        server.wait()


def prepare(campaign):
    """The organizer's password, and one robustness report computed (3 draws) if none is done."""
    from django.contrib.auth import get_user_model

    from evaluation import robustness_reports
    from evaluation.models import RobustnessReport

    organizer = get_user_model().objects.get(username="bench-organizer")
    organizer.set_password(PASSWORD)
    organizer.save(update_fields=["password"])
    if not RobustnessReport.objects.filter(campaign=campaign, status=RobustnessReport.Status.DONE).exists():
        step = time.perf_counter()
        report = robustness_reports.start_report(
            campaign, list(robustness_reports.DEFAULT_MEASURES),
            robustness_reports.parse_reductions(robustness_reports.DEFAULT_REDUCTIONS), draws=3, seed=0)
        robustness_reports.run_report(report.pk)
        print(f"robustness report computed in {time.perf_counter() - step:.0f} s", flush=True)
    return organizer


def pages(campaign) -> list[tuple[str, str]]:
    """(file name, path) of each page."""
    from django.urls import reverse

    from evaluation.models import RobustnessReport

    slug = campaign.slug
    report = RobustnessReport.objects.filter(campaign=campaign, status=RobustnessReport.Status.DONE).latest("pk")
    return [
        ("pool", reverse("pool", args=[slug])),
        ("leaderboard-xinfAP", reverse("leaderboard", args=[slug])),
        ("leaderboard-AP", reverse("leaderboard", args=[slug]) + "?measure=AP"),
        ("run", reverse("run_scores", args=[slug, "run001"])),
        ("agreement", reverse("agreement", args=[slug])),
        ("robustness-report", reverse("robustness_report", args=[slug, report.pk])),
        ("pool-bias", reverse("pool_bias", args=[slug])),
        ("appendix", reverse("run_appendix", args=[slug, "run001"])),
    ]


def wait_for_server(base: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(base + "/accounts/login/", timeout=5)
            return
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit("the server did not answer within 60 s") from None
            time.sleep(0.5)


def shoot(chromium: str, base: str, organizer, targets: list[tuple[str, str]], out: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
        page.set_default_timeout(120_000)
        page.goto(base + "/accounts/login/")
        page.fill("input[name=username]", organizer.get_username())
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_load_state()
        for name, path in targets:
            page.goto(base + path)
            while page.locator(".stored-status.computing, .stored-status.updating").count():
                page.wait_for_timeout(1000)  # a stored page computing: it reloads itself when stored
                page.wait_for_load_state()
            file = out / f"{name}.png"
            page.screenshot(path=str(file), full_page=True)
            size = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            print(f"{file.relative_to(ROOT) if file.is_relative_to(ROOT) else file}: {size[0]} × {size[1]} px", flush=True)
        browser.close()


if __name__ == "__main__":
    main()
