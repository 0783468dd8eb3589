"""Security headers, login throttling, session lifetime and what a run upload tells a participant.

Every page carries the Content-Security-Policy and none has inline code it would block; HSTS
is sent over HTTPS when SECURE_HTTPS is set; ``check --deploy`` finds nothing to say about
production settings; failed logins lock an account out (per address) for the cool-off, the right
password included, after 5 failures or, from an address past its own limit, after one, while
the address itself is never locked out (a lab behind one NAT); a participant is not told another team's run tags, neither by an
upload nor by a run page or the API (404 whether the tag is another team's or nobody's).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db.models import F
from django.test import Client, override_settings
from django.urls import reverse

from campaigns.models import Run
from tests.test_access import demo, urls  # noqa: F401 (demo is a fixture)

ROOT = Path(__file__).resolve().parents[1]
POLICY = {
    "default-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}
# What the policy would block in a page: inline scripts, style elements and attributes, event
# handler attributes, htmx's hx-on (evaluated code), javascript: URLs.
INLINE = re.compile(r"<script(?![^>]*\ssrc=)[^>]*>|<style[\s>]|<[^>]*\s(style|on[a-z]+|hx-on[:\w-]*)\s*=|javascript:", re.I)
FAST_HASHER = override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])


def policy(response) -> dict[str, str]:
    header = response.get("Content-Security-Policy")
    assert header, f"no Content-Security-Policy on {response.request['PATH_INFO']}"
    return dict(part.strip().split(" ", 1) for part in header.split(";") if part.strip())


def fresh_process(tmp_path, code: str, *args: str, **env) -> subprocess.CompletedProcess:
    """Run Python (or manage.py with ``code=""``) with only the given environment on top of a clean one."""
    clean = {k: v for k, v in os.environ.items()
             if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY", "SECURE_HTTPS", "ALLOWED_HOSTS",
                          "SESSION_COOKIE_AGE", "SECURE_HSTS_SECONDS", "SECURE_PROXY_SSL_HEADER",
                          "DJANGO_ALLOW_ASYNC_UNSAFE"}}  # set by the browser tests' fixture
    clean.update(DJANGO_SETTINGS_MODULE="config.settings", VAR_DIR=str(tmp_path), **env)
    command = [sys.executable, "manage.py", *args] if not code else [sys.executable, "-c", code]
    return subprocess.run(command, cwd=ROOT, env=clean, capture_output=True, text=True)


# --------------------------------------------------------------------------------------------
# Content-Security-Policy


def test_every_route_answers_every_role_with_the_policy_and_no_inline_code_it_would_block(demo):  # noqa: F811
    superuser = User.objects.create_superuser("root", password="pw-root")
    users = [None, superuser] + [User.objects.get(username=name) for name in ("organizer", "assessor", "participant")]
    account_pages = [reverse("login"), reverse("password_change"), reverse("password_changed"), "/admin/", "/healthz"]
    pages = 0
    for user in users:
        client = Client()
        if user is not None:
            client.force_login(user)
        for name, url in [*urls(demo["demo"]), *((page, page) for page in account_pages)]:
            response = client.get(url)
            assert policy(response) == POLICY, (name, user)
            if response.status_code == 200 and response["Content-Type"].startswith("text/html"):
                page = response.content.decode()
                found = INLINE.search(page)
                assert found is None, (name, user, page[max(found.start() - 200, 0):found.end() + 100])
                pages += 1
    assert pages > 40  # the walk reached real pages, not only refusals and redirects


def test_htmx_runs_without_eval_and_without_injecting_its_indicator_styles(client, demo):  # noqa: F811
    client.force_login(User.objects.get(username="assessor"))
    page = client.get(reverse("assess_home")).content.decode()
    assert '"allowEval": false, "includeIndicatorStyles": false' in page
    css = (ROOT / "static/app.css").read_text()
    assert ".htmx-request .htmx-indicator" in css and ".htmx-indicator { opacity: 0; }" in css


def test_the_agreement_heatmap_is_shaded_by_classes_not_style_attributes():
    import numpy as np

    from judging.agreement_charts import heatmap

    rows = heatmap(np.array([[10, 2], [0, 5]]), ["0", "1"])
    assert [[(c["level"], c["agree"]) for c in row["cells"]] for row in rows] == [[(10, True), (2, False)],
                                                                                  [(0, False), (5, True)]]
    css = (ROOT / "static/judging/agreement.css").read_text()
    assert all(f"td.level-{n} {{ background:" in css and f"td.agree.level-{n} {{ background:" in css for n in range(11))


# --------------------------------------------------------------------------------------------
# HTTPS: HSTS, the proxy's header, check --deploy


def production(**extra) -> dict[str, str]:
    return {"SECURE_HTTPS": "true", "SECRET_KEY": "k" * 30 + "-production-only-" + "z" * 30, "DEBUG": "false",
            "ALLOWED_HOSTS": "assess.example.org,testserver", **extra}


HEADERS = (
    "from django.test import Client; import django; django.setup(); "
    "r = Client().get('/accounts/login/', secure={secure}, **{extra}); "
    "print(r.status_code, r.get('Strict-Transport-Security'), sep='|')"
)


def test_hsts_comes_with_secure_https_over_https_only(tmp_path):
    def headers(secure=True, extra="{}", **env):
        result = fresh_process(tmp_path, HEADERS.format(secure=secure, extra=extra), **env)
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    assert headers(**production()) == "200|max-age=31536000"
    assert headers(secure=False, **production()) == "301|None"  # plain HTTP: redirected, no HSTS
    assert headers(**production(SECURE_HSTS_SECONDS="600", SECURE_HSTS_INCLUDE_SUBDOMAINS="yes",
                                SECURE_HSTS_PRELOAD="yes")) == "200|max-age=600; includeSubDomains; preload"
    assert headers(SECRET_KEY="x" * 50, ALLOWED_HOSTS="testserver") == "200|None"  # no SECURE_HTTPS: never
    # Behind a TLS proxy gunicorn does not trust: its header marks the request secure, and only it.
    proxied = production(SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto")
    assert headers(secure=False, extra="{'HTTP_X_FORWARDED_PROTO': 'https'}", **proxied) == "200|max-age=31536000"
    assert headers(secure=False, **proxied) == "301|None"
    refused = fresh_process(tmp_path, HEADERS.format(secure=True, extra="{}"), SECURE_PROXY_SSL_HEADER="X Proto")
    assert "SECURE_PROXY_SSL_HEADER='X Proto' is not a header name" in refused.stderr


def test_check_deploy_finds_nothing_to_say_about_production_settings(tmp_path):
    result = fresh_process(tmp_path, "", "check", "--deploy", "--fail-level", "WARNING", **production())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout + result.stderr
    # ... and without SECURE_HTTPS it does: the same check is watching.
    result = fresh_process(tmp_path, "", "check", "--deploy", "--fail-level", "WARNING",
                           **production(SECURE_HTTPS="false"))
    assert result.returncode != 0 and "security.W004" in result.stdout + result.stderr


# --------------------------------------------------------------------------------------------
# Sessions


def test_the_session_lifetime_comes_from_the_environment(tmp_path):
    code = "import django; django.setup(); from django.conf import settings; print(settings.SESSION_COOKIE_AGE)"
    assert fresh_process(tmp_path, code).stdout.strip() == str(14 * 24 * 3600)
    assert fresh_process(tmp_path, code, SESSION_COOKIE_AGE="28800").stdout.strip() == "28800"
    for value, problem in (("8h", "SESSION_COOKIE_AGE='8h' is not an integer"), ("0", "SESSION_COOKIE_AGE=0 is under a minute")):
        assert problem in fresh_process(tmp_path, code, SESSION_COOKIE_AGE=value).stderr


@pytest.mark.django_db
@FAST_HASHER
@override_settings(SESSION_COOKIE_AGE=28800)
def test_a_login_session_lasts_session_cookie_age(client):
    User.objects.create_user("una", password="pw-una")
    response = client.post(reverse("login"), {"username": "una", "password": "pw-una"})
    assert response.status_code == 302 and response.cookies["sessionid"]["max-age"] == 28800
    assert abs(client.session.get_expiry_age() - 28800) <= 5


# --------------------------------------------------------------------------------------------
# Login throttling


def log_in(client, username, password, address):
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address)


def signed_in(client) -> bool:
    return client.get(reverse("assess_home")).status_code == 200


@pytest.mark.django_db
@FAST_HASHER
def test_failed_logins_lock_the_account_from_that_address_until_the_cool_off_ends(role_groups, settings):
    assert (settings.AXES_FAILURE_LIMIT, settings.AXES_COOLOFF_TIME) == (5, timedelta(minutes=15))  # the defaults
    User.objects.create_user("una", password="pw-una")
    User.objects.create_user("ole", password="pw-ole")
    attacker = Client()
    answers = [log_in(attacker, "una", f"guess-{n}", "203.0.113.7") for n in range(20)]
    assert [r.status_code for r in answers] == [200] * 4 + [429] * 16
    page = answers[-1].content.decode()
    assert "Too many failed logins" in page and "paused for 15 minutes" in page and 'name="password"' in page
    assert "Please enter a correct username and password" in answers[0].content.decode()

    refused = log_in(attacker, "una", "pw-una", "203.0.113.7")  # the right password, during the lockout
    assert refused.status_code == 429 and not signed_in(attacker)
    # As designed: the same account from another address, and another account from this one, log in.
    assert log_in(Client(), "una", "pw-una", "198.51.100.9").status_code == 302
    assert log_in(other := Client(), "ole", "pw-ole", "203.0.113.7").status_code == 302 and signed_in(other)

    # Attempts during the lockout were not counted, so it ends 15 minutes after the fifth failure.
    assert AccessAttempt.objects.get(username="una", ip_address="203.0.113.7").failures_since_start == 5
    AccessAttempt.objects.update(attempt_time=F("attempt_time") - timedelta(minutes=15, seconds=1))
    assert log_in(attacker, "una", "pw-una", "203.0.113.7").status_code == 302 and signed_in(attacker)
    assert not AccessAttempt.objects.filter(username="una", ip_address="203.0.113.7").exists()  # cleared on success


@pytest.mark.django_db
@FAST_HASHER
@override_settings(LOGIN_FAILURES_PER_ADDRESS=8)
def test_past_the_addresss_limit_each_account_that_fails_there_is_locked_after_one_failure(role_groups):
    User.objects.create_user("una", password="pw-una")
    client = Client()
    answers = [log_in(client, f"user{n}", "guess", "203.0.113.7").status_code for n in range(4) for _ in range(2)]
    assert answers == [200] * 7 + [429]  # no account reached 5; the address reached 8 and user3 had failed there
    assert log_in(client, "user0", "guess", "203.0.113.7").status_code == 429  # failed there before: locked
    assert log_in(client, "user9", "guess", "203.0.113.7").status_code == 429  # one guess at each new account
    assert log_in(client, "user9", "pw", "203.0.113.7").status_code == 429
    assert log_in(una_here := Client(), "una", "pw-una", "203.0.113.7").status_code == 302 and signed_in(una_here)


@pytest.mark.django_db
@FAST_HASHER
def test_one_address_failing_at_one_account_does_not_lock_another_account_there(role_groups):
    User.objects.create_user("xavier", password="pw-x")
    User.objects.create_user("yvonne", password="pw-y")
    attacker = Client()
    assert [log_in(attacker, "xavier", f"guess-{n}", "203.0.113.7").status_code for n in range(100)] == [200] * 4 + [429] * 96
    assert log_in(Client(), "xavier", "pw-x", "203.0.113.7").status_code == 429  # brute force on one account: stopped
    assert log_in(yvonne := Client(), "yvonne", "pw-y", "203.0.113.7").status_code == 302 and signed_in(yvonne)


@pytest.mark.django_db
@FAST_HASHER
def test_a_lab_of_200_behind_one_address_logs_in_after_someone_there_failed_at_60_accounts(role_groups):
    """One person at the lab's NAT address tries 60 accounts (past the limit of 50): the other 200 log in."""
    User.objects.bulk_create([User(username=f"lab{n:03d}", password=make_password(f"pw-{n}")) for n in range(200)])
    prankster = Client()
    for n in range(60):
        log_in(prankster, f"guess{n}", "wrong", "203.0.113.7")
    assert AccessAttempt.objects.filter(ip_address="203.0.113.7").count() == 60
    answers = [log_in(Client(), f"lab{n:03d}", f"pw-{n}", "203.0.113.7").status_code for n in range(200)]
    assert answers == [302] * 200


@pytest.mark.django_db
@FAST_HASHER
def test_the_admin_login_is_throttled_too(role_groups):
    User.objects.create_superuser("root", password="pw-root")
    client = Client()
    for n in range(5):
        client.post("/admin/login/", {"username": "root", "password": f"guess-{n}"}, REMOTE_ADDR="203.0.113.7")
    response = client.post("/admin/login/", {"username": "root", "password": "pw-root"}, REMOTE_ADDR="203.0.113.7")
    assert response.status_code == 429 and "Too many failed logins" in response.content.decode()


@pytest.mark.django_db
def test_behind_a_proxy_the_address_is_the_one_it_appended(settings):
    from django.test import RequestFactory

    from config.login_throttle import client_address

    def address(forwarded_for=None):
        extra = {"HTTP_X_FORWARDED_FOR": forwarded_for} if forwarded_for is not None else {}
        return client_address(RequestFactory().get("/", REMOTE_ADDR="127.0.0.1", **extra))

    assert address("198.51.100.9, 203.0.113.7") == "127.0.0.1"  # no proxy configured: the header is ignored
    settings.FORWARDED_PROXY_COUNT = 1
    assert address("198.51.100.9, 203.0.113.7") == "203.0.113.7"  # the client wrote the first entry, nginx the last
    assert address("203.0.113.7") == "203.0.113.7"
    assert address() == "127.0.0.1" and address("not-an-address") == "127.0.0.1"
    settings.FORWARDED_PROXY_COUNT = 2
    assert address("198.51.100.9, 203.0.113.7, 10.0.0.2") == "203.0.113.7"


@pytest.mark.django_db
@FAST_HASHER
@override_settings(FORWARDED_PROXY_COUNT=1)
def test_behind_a_proxy_a_forged_forwarded_for_does_not_escape_the_lockout(role_groups):
    User.objects.create_user("una", password="pw-una")
    client = Client()
    for n in range(5):  # through nginx: 127.0.0.1 connects, appending the client's address
        client.post(reverse("login"), {"username": "una", "password": f"guess-{n}"}, REMOTE_ADDR="127.0.0.1",
                    HTTP_X_FORWARDED_FOR=f"10.9.9.{n}, 203.0.113.7")
    response = client.post(reverse("login"), {"username": "una", "password": "pw-una"}, REMOTE_ADDR="127.0.0.1",
                           HTTP_X_FORWARDED_FOR="198.51.100.1, 203.0.113.7")
    assert response.status_code == 429


@pytest.mark.django_db
@FAST_HASHER
def test_invitation_links_and_password_changes_still_work_during_a_lockout(role_groups):
    from campaigns import people
    from campaigns.models import Campaign

    campaign = Campaign.objects.create(name="T", slug="t", scale=[])
    [invited] = people.invite(campaign, people.parse_people("una", teams=False), "assessor", None)
    client = Client(REMOTE_ADDR="203.0.113.7")
    for n in range(5):
        log_in(client, "una", f"guess-{n}", "203.0.113.7")
    assert log_in(client, "una", "guess-5", "203.0.113.7").status_code == 429
    # The invitation's link logs its new owner in (it needs no password to check).
    response = client.post(reverse("invitation_join", args=[invited.token]),
                           {"new_password1": "a new passphrase 7", "new_password2": "a new passphrase 7"})
    assert response.status_code == 302 and signed_in(client)
    response = client.post(reverse("password_change"), {"old_password": "a new passphrase 7", "new_password1": "another passphrase 8",
                                                        "new_password2": "another passphrase 8"})
    assert response.status_code == 302 and response["Location"] == reverse("password_changed")


def test_authenticate_without_a_request_is_not_throttled_and_still_checks_the_password(django_user_model, db):
    from django.contrib.auth import authenticate

    django_user_model.objects.create_user("una", password="pw-una")
    assert authenticate(username="una", password="pw-una").username == "una"  # manage.py shell, scripts
    assert authenticate(username="una", password="wrong") is None


def test_throttling_limits_come_from_the_environment_and_refuse_nonsense(tmp_path):
    code = ("import django; django.setup(); from django.conf import settings as s; "
            "print(s.AXES_FAILURE_LIMIT, s.LOGIN_FAILURES_PER_ADDRESS, s.AXES_COOLOFF_TIME, s.FORWARDED_PROXY_COUNT)")
    assert fresh_process(tmp_path, code).stdout.split() == ["5", "50", "0:15:00", "0"]
    out = fresh_process(tmp_path, code, LOGIN_FAILURES_PER_ACCOUNT="10", LOGIN_FAILURES_PER_ADDRESS="200",
                        LOGIN_COOLOFF_MINUTES="60", FORWARDED_PROXY_COUNT="1")
    assert out.stdout.split() == ["10", "200", "1:00:00", "1"]
    assert "LOGIN_COOLOFF_MINUTES=0 is not a positive number" in fresh_process(tmp_path, code, LOGIN_COOLOFF_MINUTES="0").stderr


# --------------------------------------------------------------------------------------------
# Run tags before the release


def run_file(tag: str) -> bytes:
    return "".join(f"101 Q0 doc{n} {n} {10 - n} {tag}\n" for n in range(1, 4)).encode()


def test_a_participant_is_not_told_that_another_team_has_a_tag(demo):  # noqa: F811
    participant = User.objects.get(username="participant")  # team Aurora; birch1 is team Birch's
    client = Client()
    client.force_login(participant)
    response = client.post(reverse("team_runs", args=["demo"]), {"file": SimpleUploadedFile("mine.txt", run_file("birch1")),
                                                                  "priority": 1})
    page = response.content.decode()
    assert response.status_code == 400
    assert "run tag &#x27;birch1&#x27; is not available in this campaign; choose another" in page
    assert "already taken" not in page
    assert Run.objects.filter(campaign__slug="demo", tag="birch1").count() == 1


def test_organizers_are_told_the_tag_is_taken(demo, tmp_path):  # noqa: F811
    client = Client()
    client.force_login(User.objects.get(username="organizer"))
    response = client.post(reverse("campaign_import_kind", args=["demo", "runs"]),
                           {"file": SimpleUploadedFile("late.txt", run_file("birch1"))})
    assert "run tag &#x27;birch1&#x27; is already taken in this campaign" in response.content.decode()
    path = tmp_path / "late.txt"
    path.write_bytes(run_file("birch1"))
    with pytest.raises(CommandError, match="run tag 'birch1' is already taken in this campaign"):
        call_command("import_runs", "--campaign", "demo", str(path))


@pytest.mark.parametrize("route", ["run_scores", "run_compare", "run_appendix", "run_download"])
def test_another_teams_run_tag_is_not_found_exactly_like_a_tag_nobody_has(demo, route):  # noqa: F811
    client = Client()
    client.force_login(User.objects.get(username="participant"))  # team Aurora; birch1 is team Birch's, unreleased
    theirs, nobodys = (client.get(reverse(route, args=["demo", tag])) for tag in ("birch1", "birch9"))
    assert (theirs.status_code, nobodys.status_code) == (404, 404)
    def shape(response, tag):  # the page without its tag and its (masked, so every time other) CSRF token
        return re.sub(r'(CSRFToken": "|csrfmiddlewaretoken" value=")[^"]+', "", response.content.decode()).replace(tag, "TAG")

    assert shape(theirs, "birch1") == shape(nobodys, "birch9")
    downloads = [client.get(reverse("run_scores_download", args=["demo", tag, "csv"])) for tag in ("birch1", "birch9")]
    assert [r.status_code for r in downloads] == [404, 404]


def test_the_api_answers_another_teams_run_tag_exactly_like_a_tag_nobody_has(demo):  # noqa: F811
    from campaigns.models import Team, TeamToken

    token = TeamToken.issue(Team.objects.get(campaign__slug="demo", name="Aurora"), User.objects.get(username="organizer"))[1]
    answers = [Client().get(f"/api/campaigns/demo/runs/{tag}/scores", HTTP_AUTHORIZATION=f"Bearer {token}")
               for tag in ("birch1", "birch9")]
    assert [r.status_code for r in answers] == [404, 404]
    assert answers[0].json() == {"detail": "no run 'birch1' whose scores you may see", "reason": "not_found"}
    assert answers[1].json() == {"detail": "no run 'birch9' whose scores you may see", "reason": "not_found"}
    own = Client().get("/api/campaigns/demo/runs/aurora1/scores", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert own.status_code == 200


# --------------------------------------------------------------------------------------------
# One-time links and the CSRF cookie


@pytest.mark.django_db
@FAST_HASHER
def test_the_csrf_cookie_is_http_only_and_pages_still_carry_the_token(role_groups):
    client = Client(enforce_csrf_checks=True)
    page = client.get(reverse("login"))
    cookie = page.cookies["csrftoken"]
    assert cookie["httponly"] is True
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode()).group(1)
    User.objects.create_user("una", password="pw-una")
    response = client.post(reverse("login"), {"username": "una", "password": "pw-una", "csrfmiddlewaretoken": token},
                           REMOTE_ADDR="198.51.100.9")
    assert response.status_code == 302  # the form's token, no script reading the cookie
    assert re.search(r'<body hx-headers=\'\{"X-CSRFToken": "[^"]+"\}\'', client.get(reverse("home")).content.decode())


@pytest.mark.django_db
def test_the_invitation_link_page_and_the_token_page_are_never_stored(role_groups, demo):  # noqa: F811
    from campaigns import people
    from campaigns.models import Campaign

    campaign = Campaign.objects.get(slug="demo")
    invited, = people.invite(campaign, people.parse_people("una", teams=False), "assessor",
                             by=User.objects.get(username="organizer"))
    client = Client()
    form = client.get(reverse("invitation_join", args=[invited.token]))  # the one-time link itself
    assert form.status_code == 200 and 'name="new_password1"' in form.content.decode()
    assert "no-store" in form["Cache-Control"]
    client.force_login(User.objects.get(username="participant"))
    from campaigns.models import Team, TeamToken
    TeamToken.issue(Team.objects.get(campaign__slug="demo", name="Aurora"), User.objects.get(username="organizer"))
    shown = client.post(reverse("api_token_rotate", args=["demo"]))
    assert shown.status_code == 200 and "no-store" in shown["Cache-Control"]
