"""Set-password links mailed from the people page, through a real SMTP server (aiosmtpd on 127.0.0.1)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from evaluation.models import Scoreboard
from campaigns.models import Topic
from judging.models import Assignment
from campaigns.roles import ASSESSOR, has_role
from tests.judging.conftest import MAIL_FROM, free_port

pytestmark = pytest.mark.django_db

URL = re.compile(r"http://testserver/accounts/set-password/\S+")


def add(client, campaign, kind, lines):
    return client.post(reverse("people_add", args=[campaign.slug, kind]), {f"{kind}-lines": lines})


def mail(client, campaign, *users):
    return client.post(reverse("people_mail", args=[campaign.slug]), {"user": [u.pk for u in users]}, follow=True)


def notices(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_added_assessors_are_mailed_links_that_let_them_in(client, organizer, campaign, role_groups, inbox):
    client.force_login(organizer)
    page = add(client, campaign, "assessors", "ann, ann@example.org\nbob").content.decode()
    ann, bob = User.objects.get(username="ann"), User.objects.get(username="bob")
    assert "Links can be mailed" in page and "Mail each a new link" in page
    links_card = page[page.index('id="links-heading"') : page.index("</section>")]
    assert re.findall(r'name="user" value="(\d+)"', links_card) == [str(ann.pk), str(bob.pk)]

    [notice] = inbox.messages  # the link was shown: its owner is told
    assert (notice["To"], notice["Subject"]) == ("ann@example.org", f"A set-password link for your account in {campaign.name}")
    assert "olga, an organizer of CDS 2015, has just made a set-password link for your account, which was created " \
           "for you as an assessor." in notice.get_content() and not URL.findall(notice.get_content())

    response = mail(client, campaign, ann, bob)
    assert notices(response) == ["Mailed a set-password link to ann.", "No email address, nothing mailed: bob."]
    message = inbox.messages[1]  # the mailed link tells its owner by itself: no other mail
    assert len(inbox.messages) == 2
    assert (message["To"], message["From"], message["Subject"]) == ("ann@example.org", MAIL_FROM,
                                                                    f"Your account for {campaign.name}")
    body = message.get_content()
    assert f"you have an account in {campaign.name}, as an assessor." in body and "Your username is ann." in body
    [link] = URL.findall(body)

    client.logout()
    form = client.get(link, follow=True)
    assert b"Account <strong>ann</strong>" in form.content
    client.post(form.redirect_chain[-1][0], {"new_password1": "tide-pool-42", "new_password2": "tide-pool-42"})
    assert client.get(reverse("assess_home")).status_code == 200
    assert User.objects.get(username="ann").check_password("tide-pool-42") and has_role(ann, ASSESSOR)


def test_a_participant_is_told_their_team_and_an_address_the_server_refuses_is_named(client, organizer, campaign,
                                                                                     inbox):
    client.force_login(organizer)
    page = add(client, campaign, "participants", "Aurora, pia, pia@refused.example\nAurora, ada, ada@example.org")
    page = page.content.decode()
    assert "No link is shown for pia: the mail server refused the mail telling them" in page  # pia was not told
    assert "Set-password link of ada" in page and "Set-password link of pia" not in page
    pia, ada = User.objects.get(username="pia"), User.objects.get(username="ada")
    response = mail(client, campaign, pia, ada)
    assert notices(response) == [
        "Mailed a set-password link to ada.",
        "The mail server refused the mail to pia: {'pia@refused.example': (550, b'5.1.1 <pia@refused.example>: "
        "no such mailbox')}",
    ]
    told, message = inbox.messages
    assert told["To"] == message["To"] == "ada@example.org" and "participant in team Aurora" in told.get_content()
    assert f"you have an account in {campaign.name}, as a participant in team Aurora." in message.get_content()


def test_one_person_is_mailed_from_their_row(client, organizer, campaign, named_assessor, inbox):
    ann = named_assessor("ann")
    named_assessor("bob")  # no email address: no mail button in his row
    ann.email = "ann@example.org"
    ann.set_unusable_password()
    ann.save()
    client.force_login(organizer)
    page = client.get(reverse("people", args=[campaign.slug])).content.decode()
    assert "Mail a new set-password link to ann" in page and "Mail a new set-password link to bob" not in page
    assert notices(mail(client, campaign, ann)) == ["Mailed a set-password link to ann."]
    assert [m["To"] for m in inbox.messages] == ["ann@example.org"]


def test_an_unreachable_mail_server_mails_nothing_and_says_so(client, organizer, campaign, named_assessor, settings,
                                                              inbox):
    ann = named_assessor("ann")
    ann.email = "ann@example.org"
    ann.set_unusable_password()
    ann.save()
    settings.EMAIL_PORT = free_port()  # nobody listens there
    client.force_login(organizer)
    [notice] = notices(mail(client, campaign, ann))
    assert notice == (f"Nothing was mailed: could not reach the mail server 127.0.0.1:{settings.EMAIL_PORT}: "
                      "[Errno 111] Connection refused.")
    # Nor is a link shown: its owner could not be told.
    page = client.post(reverse("people_link", args=[campaign.slug, ann.pk])).content.decode()
    assert "No link is shown for ann: their owners could not be told (could not reach the mail server" in page
    assert "Set-password link of ann" not in page
    assert inbox.messages == []


def test_only_the_campaigns_people_are_mailed_and_only_by_its_organizers(client, organizer, campaign, named_assessor,
                                                                         assessor, inbox):
    ann = named_assessor("ann")
    ann.email = "ann@example.org"
    ann.save()
    stranger = User.objects.create_user("stranger", email="stranger@example.org")
    client.force_login(organizer)
    assert mail(client, campaign, stranger).status_code == 404
    organizer.email = "organizer@example.org"
    organizer.save()
    organizer.groups.add(ann.groups.get())  # an organizer who also judges gets no link from here
    assert mail(client, campaign, organizer).status_code == 404
    assert client.post(reverse("people_mail", args=[campaign.slug]), {"user": ["x"]}).status_code == 400
    assert client.post(reverse("people_mail", args=[campaign.slug])).status_code == 400
    client.force_login(assessor)
    assert mail(client, campaign, ann).status_code == 403
    assert inbox.messages == []


def test_without_an_email_url_no_mail_is_offered_or_sent(client, organizer, campaign, named_assessor, settings):
    ann = named_assessor("ann")
    ann.email = "ann@example.org"
    ann.set_unusable_password()
    ann.save()
    settings.EMAIL_URL = ""
    client.force_login(organizer)
    page = client.post(reverse("people_link", args=[campaign.slug, ann.pk])).content.decode()
    assert "This server sends no mail" in page and "Mail each a new link" not in page and "Mail a new" not in page
    assert mail(client, campaign, ann).status_code == 404


def test_the_owner_of_an_account_with_a_password_is_told_of_a_new_link(client, organizer, campaign, named_assessor,
                                                                        inbox):
    """An assessor of this campaign who forgot their password: the organizer makes a link, and the
    owner learns of it, with what to do if they did not ask for it."""
    ann = named_assessor("ann")
    ann.email = "ann@example.org"
    ann.save()
    Assignment.objects.create(campaign=campaign, topic=Topic.objects.create(campaign=campaign, identifier="1"),
                              assessor=ann)
    client.force_login(organizer)
    page = client.post(reverse("people_link", args=[campaign.slug, ann.pk])).content.decode()
    assert "Set-password link of ann" in page
    [notice] = inbox.messages
    body = notice.get_content().replace("\r\n", "\n")
    assert notice["To"] == "ann@example.org" and not URL.findall(body)
    assert "olga, an organizer of CDS 2015, has just made a set-password link for your account." in body
    assert "log in with your password now (a login makes every link made\nbefore it stop working)" in body


def test_no_mail_and_no_link_for_another_campaigns_assessor(client, organizer, campaign, named_assessor, inbox):
    ann = named_assessor("ann")  # has a password, and nothing to do with this campaign
    ann.email = "ann@example.org"
    ann.save()
    client.force_login(organizer)
    assert client.post(reverse("people_link", args=[campaign.slug, ann.pk])).status_code == 404
    assert mail(client, campaign, ann).status_code == 404
    assert inbox.messages == []


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
