"""Invitations mailed from the people page, through a real SMTP server (aiosmtpd on 127.0.0.1), and
what happens when the server cannot be reached: the invitations are stored all the same, the page
says so and shows the links; never a server error with half the rows stored."""

from __future__ import annotations

import re
import socket
import threading

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from evaluation.models import Scoreboard
from campaigns import people
from campaigns.models import Campaign, Membership
from tests.judging.conftest import MAIL_FROM, free_port

pytestmark = pytest.mark.django_db

URL = re.compile(r"http://testserver/join/\S+")
SHOWN = re.compile(r'value="(http://testserver/join/[^"]+)"')


def add(client, campaign, kind, lines):
    return client.post(reverse("people_add", args=[campaign.slug, kind]), {f"{kind}-lines": lines})


def notices(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_invited_new_assessors_are_mailed_their_links_which_let_them_in(client, organizer, campaign, inbox):
    client.force_login(organizer)
    response = add(client, campaign, "assessors", "ann, ann@example.org\nbob")
    assert notices(response) == ["Mailed the invitation to ann.", "No email address, nothing mailed: bob."]
    [message] = inbox.messages
    assert (message["To"], message["From"], message["Subject"]) == ("ann@example.org", MAIL_FROM,
                                                                    f"Your invitation to {campaign.name}")
    body = message.get_content()
    assert f"olga invites you to {campaign.name} as assessor." in body and "Your username is ann." in body
    [link] = URL.findall(body)
    assert link in SHOWN.findall(response.content.decode())  # also shown, to copy

    client.logout()
    response = client.post(link, {"new_password1": "tide-pool-42", "new_password2": "tide-pool-42"})
    assert response.status_code == 302 and client.get(reverse("home")).status_code == 200
    assert list(people.assessors_of(campaign).values_list("username", flat=True)) == ["ann"]


def test_an_existing_account_is_mailed_how_to_accept_and_no_link(client, organizer, campaign, participant, inbox):
    participant.email = "pia@example.org"
    participant.save()
    client.force_login(organizer)
    response = add(client, campaign, "participants", "Aurora, pia\nAurora, ada, ada@refused.example")
    assert notices(response) == [
        "Mailed the invitation to pia.",
        "The mail server refused the mail to ada: {'ada@refused.example': (550, b'5.1.1 <ada@refused.example>: "
        "no such mailbox')} (the invitation is stored).",
    ]
    [message] = inbox.messages
    body = message.get_content()
    assert "as a participant in team Aurora" in body and "accept or decline the invitation here" in body
    assert "http://testserver/invitations/" in body and not URL.findall(body)
    assert Membership.objects.filter(state="invited").count() == 2  # ada's too: her link is on the page
    assert re.findall(r"Invitation link of (\w+)", response.content.decode()) == ["ada"]


@pytest.mark.parametrize("server", ["nobody listening", "hangs up"])
def test_an_unreachable_mail_server_leaves_the_invitations_stored_and_the_links_shown(client, organizer, campaign,
                                                                                   settings, inbox, server):
    if server == "nobody listening":
        settings.EMAIL_PORT = free_port()
    else:
        listener = socket.create_server(("127.0.0.1", 0))
        settings.EMAIL_PORT = listener.getsockname()[1]

        def hang_up():
            connection, _ = listener.accept()
            connection.close()

        threading.Thread(target=hang_up, daemon=True).start()
    client.force_login(organizer)
    response = add(client, campaign, "assessors", "ann, ann@example.org\nbob, bob@example.org")
    assert response.status_code == 200
    [notice] = notices(response)
    assert notice.startswith(f"The invitations are stored, but nothing was mailed: could not reach the mail server "
                             f"127.0.0.1:{settings.EMAIL_PORT}: ") and "Copy the links below" in notice
    assert len(SHOWN.findall(response.content.decode())) == 2
    assert Membership.objects.filter(campaign=campaign, state="invited").count() == 2 and inbox.messages == []
    ann = User.objects.get(username="ann")
    response = client.post(reverse("people_renew", args=[campaign.slug, ann.pk, "assessors"]))
    assert response.status_code == 200 and len(SHOWN.findall(response.content.decode())) == 1
    assert notices(response)[0].startswith("The invitations are stored, but nothing was mailed")
    if server == "hangs up":
        listener.close()


def test_renewing_mails_the_invitation_again_with_a_new_link(client, organizer, campaign, inbox):
    client.force_login(organizer)
    add(client, campaign, "assessors", "ann, ann@example.org")
    ann = User.objects.get(username="ann")
    page = client.get(reverse("people", args=[campaign.slug])).content.decode()
    assert "Renew the invitation of ann" in page and "renew and mail" in page
    response = client.post(reverse("people_renew", args=[campaign.slug, ann.pk, "assessors"]))
    assert notices(response) == ["Mailed the invitation to ann."]
    first, second = (URL.findall(m.get_content())[0] for m in inbox.messages)
    assert first != second and client.get(first).status_code == 404 and client.get(second).status_code == 200


def test_nothing_is_mailed_to_another_campaigns_people(client, organizer, campaign, named_assessor, inbox):
    other = Campaign.objects.create(name="Other", slug="other", scale=campaign.scale)
    ann = named_assessor("ann")
    ann.email = "ann@example.org"
    ann.save()
    Membership.objects.create(campaign=other, user=ann, role="assessor")
    client.force_login(organizer)
    for kind in people.ROLES:
        assert client.post(reverse("people_renew", args=[campaign.slug, ann.pk, kind])).status_code == 404
    assert inbox.messages == []


def test_without_an_email_url_nothing_is_mailed_and_the_links_are_shown(client, organizer, campaign, settings):
    settings.EMAIL_URL = ""
    client.force_login(organizer)
    response = add(client, campaign, "assessors", "ann, ann@example.org")
    page = response.content.decode()
    assert "This server sends no mail" in page and len(SHOWN.findall(page)) == 1 and notices(response) == []


def test_participants_are_told_by_mail_once_when_the_scores_are_released(client, organizer, campaign, participant, inbox):
    team = campaign.teams.create(name="TUW")
    participant.email = "pia@example.org"
    participant.save()
    team.members.add(participant, User.objects.create(username="nomail"))
    campaign.teams.create(name="empty")
    client.force_login(organizer)
    release = reverse("scores_release", args=[campaign.slug])
    response = client.post(release, {"release": "1"}, follow=True)
    assert notices(response) == ["Scores released to all participants.", "Told 1 participant(s) by mail. No email address: nomail."]
    [message] = inbox.messages
    assert (message["To"], message["From"], message["Subject"]) == ("pia@example.org", MAIL_FROM,
                                                                    f"Scores of {campaign.name} are released")
    body = message.get_content()
    assert "Hello pia," in body and "(team TUW)" in body
    assert f"http://testserver{reverse('leaderboard', args=[campaign.slug])}" in body
    client.post(release, {"release": "1"})  # released already: nobody is told twice
    client.post(release, {"release": "0"})  # withdrawn: no mail either
    assert len(inbox.messages) == 1


def test_a_release_is_not_held_up_by_an_unreachable_mail_server(client, organizer, campaign, participant, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_URL = f"smtp://127.0.0.1:{free_port()}"  # nothing listens there
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", int(settings.EMAIL_URL.rsplit(":", 1)[1])
    campaign.teams.create(name="TUW").members.add(participant)
    client.force_login(organizer)
    response = client.post(reverse("scores_release", args=[campaign.slug]), {"release": "1"}, follow=True)
    assert notices(response)[0] == "Scores released to all participants."
    assert notices(response)[1].startswith("Participants were not told by mail: could not reach the mail server 127.0.0.1:")
    assert Scoreboard.of(campaign.pk).released
