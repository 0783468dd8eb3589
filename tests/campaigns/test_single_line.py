"""A campaign's name stays on one line: forms, the clone form and the admin refuse a line break or a
control character, and a mail subject built from a name stored before is one line anyway."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.exceptions import ValidationError
from django.urls import reverse

from campaigns import people
from campaigns.models import Campaign, Team
from campaigns.single_line import single_line, validate_single_line
from tests.admin_forms import _FormFields

HOSTILE = "Robust 2026\nBcc: everyone@example.org"


@pytest.mark.parametrize("name", [HOSTILE, "a\rb", "a\tb", "a\x00b", "a\x1b[31mb", "a\u2028b", "a\x85b"])
def test_a_name_with_a_line_break_or_a_control_character_is_refused(name):
    with pytest.raises(ValidationError, match="no line breaks or control characters"):
        validate_single_line(name)


@pytest.mark.parametrize("name", ["Robust 2026", "TREC — Précis (ü) 机器", "a  b", ""])
def test_ordinary_names_pass(name):
    validate_single_line(name)


def test_a_subject_is_made_one_line():
    assert single_line("Scores of " + HOSTILE + "\r\n\u2028 end") == "Scores of Robust 2026 Bcc: everyone@example.org end"


@pytest.mark.django_db
def test_the_new_campaign_settings_and_clone_forms_refuse_a_newline(client, organizer, campaign):
    client.force_login(organizer)
    new = client.post(reverse("campaign_new"), {"name": HOSTILE, "slug": "robust", "scale": "binary",
                                                "relevant_from": 1, "depth": 1000})
    settings_page = client.post(reverse("campaign_settings", args=[campaign.slug]),
                                {"name": HOSTILE, "scale": "binary", "relevant_from": 1, "depth": 1000,
                                 "runs_per_team": 5})
    clone = client.post(reverse("campaign_clone", args=[campaign.slug]), {"clone-name": HOSTILE, "clone-slug": "robust2"})
    for response in (new, settings_page, clone):
        assert response.status_code == 400 and "no line breaks or control characters" in response.content.decode()
    assert sorted(Campaign.objects.values_list("name", flat=True)) == [campaign.name]


@pytest.mark.django_db
def test_the_admin_refuses_a_newline(admin_client, campaign):
    url = reverse("admin:campaigns_campaign_change", args=[campaign.pk])
    form = _FormFields()
    form.feed(admin_client.get(url).content.decode())
    data = {name: value for name, value in form.data.items() if name != "csrfmiddlewaretoken"}
    response = admin_client.post(url, {**data, "name": HOSTILE, "_save": "Save"})
    assert response.status_code == 200 and "no line breaks or control characters" in response.content.decode()
    campaign.refresh_from_db()
    assert "\n" not in campaign.name


@pytest.mark.django_db
def test_a_name_stored_with_a_newline_before_still_mails_a_one_line_subject(campaign, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    Campaign.objects.filter(pk=campaign.pk).update(name=HOSTILE)
    campaign.refresh_from_db()
    team = Team.objects.create(campaign=campaign, name="Aurora")
    team.members.add(User.objects.create_user("pia", email="pia@example.org"))
    mailed = people.tell_participants_released(campaign, "http://testserver/c/x/scores/")
    assert mailed.sent == ["pia"]
    assert [m.subject for m in mail.outbox] == ["Scores of Robust 2026 Bcc: everyone@example.org are released"]
