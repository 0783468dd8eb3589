"""The organizer's people page: a campaign's assessors, teams and organizers, and their invitations.

Pages that show an invitation link are sent ``Cache-Control: no-store`` (``never_cache``): a
link is a password for a new account until it is used.
"""

from __future__ import annotations

import smtplib

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from campaigns import people
from campaigns.access import campaign_for_organizer
from campaigns.models import Campaign, Membership
from judging.forms import PeopleForm


def _page(request: HttpRequest, campaign: Campaign, *, links=(), summary="", forms=None,
          status=200) -> HttpResponse:
    forms = {name: PeopleForm(prefix=name) for name in people.ROLES} | (forms or {})
    links = [{"user": link.user, "team": link.membership.team, "created": link.created,
              "url": request.build_absolute_uri(people.join_path(link.token))} for link in links if link.token]
    context = {"campaign": campaign, "forms": forms, "links": links, "summary": summary,
               "link_days": people.link_days(), "mail": people.mail_enabled(), **people.campaign_people(campaign)}
    return render(request, "judging/people.html", context, status=status)


@never_cache
@login_required
@require_GET
def people_page(request: HttpRequest, slug: str) -> HttpResponse:
    return _page(request, campaign_for_organizer(request, slug))


@never_cache
@login_required
@require_POST
def people_add(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    """Invite the pasted accounts (all or none); show the links of new accounts, and mail the
    invitations when the server sends mail."""
    campaign = campaign_for_organizer(request, slug)
    if kind not in people.ROLES:
        raise Http404(f"no people of kind {kind!r}")
    form = PeopleForm(request.POST, prefix=kind)
    if form.is_valid():
        try:
            lines = people.parse_people(form.cleaned_data["lines"], teams=kind == "participants")
            invited = people.invite(campaign, lines, people.ROLES[kind], request.user)
        except people.PeopleError as exc:
            form.add_error("lines", str(exc))
    if not form.is_valid():
        return _page(request, campaign, forms={kind: form}, status=400)
    created = sum(i.created for i in invited)
    already = sum(i.already for i in invited)
    summary = (f"{len(invited) - already} invited: {created} new account{'s' if created != 1 else ''} "
               f"(with a link to choose a password), {len(invited) - already - created} existing "
               f"(they accept on their invitations page once logged in)"
               + (f"; {already} already member{'s' if already != 1 else ''}." if already else "."))
    _mail(request, campaign, invited)
    return _page(request, campaign, links=invited, summary=summary)


def _mail(request: HttpRequest, campaign: Campaign, invited: list[people.Invited]) -> None:
    """Mail the invitations when the server sends mail. The invitations are stored already: a
    mail that fails is said, and the links stay on the page to copy."""
    if not people.mail_enabled() or not any(not i.already for i in invited):
        return
    try:
        mailed = people.mail_invitations(campaign, invited, request.build_absolute_uri)
    except (people.MailError, OSError, smtplib.SMTPException) as exc:
        messages.error(request, f"The invitations are stored, but nothing was mailed: {exc}. Copy the links "
                                f"below, or tell the people invited to accept on their invitations page.")
        return
    if mailed.sent:
        messages.success(request, f"Mailed the invitation to {', '.join(mailed.sent)}.")
    if mailed.without_email:
        messages.warning(request, f"No email address, nothing mailed: {', '.join(mailed.without_email)}.")
    for name, reason in mailed.failed.items():
        messages.error(request, f"The mail server refused the mail to {name}: {reason} (the invitation is stored).")


def _membership_here(campaign: Campaign, user_id: int, kind: str) -> Membership:
    if kind not in people.ROLES:
        raise Http404(f"no people of kind {kind!r}")
    return get_object_or_404(Membership.objects.select_related("user", "team"), campaign=campaign, user_id=user_id,
                             role=people.ROLES[kind])


@never_cache
@login_required
@require_POST
def people_renew(request: HttpRequest, slug: str, user_id: int, kind: str) -> HttpResponse:
    """Renew one invitation of this campaign: its clock restarts, a new account gets a new link
    (the old one stops working), and it is mailed again when the server sends mail."""
    campaign = campaign_for_organizer(request, slug)
    membership = _membership_here(campaign, user_id, kind)
    if membership.is_active:
        raise Http404("an active member has no invitation to renew")
    invitation = people.renew(membership, request.user)
    _mail(request, campaign, [invitation])
    summary = f"The invitation of {membership.user.get_username()} is renewed for {people.link_days():g} days."
    return _page(request, campaign, links=[invitation], summary=summary)


@login_required
@require_POST
def people_remove(request: HttpRequest, slug: str, user_id: int, kind: str) -> HttpResponse:
    """End one person's membership of this campaign in one role, or revoke their invitation."""
    campaign = campaign_for_organizer(request, slug)
    if kind not in people.ROLES:
        raise Http404(f"no people of kind {kind!r}")
    user = get_object_or_404(get_user_model(), pk=user_id)
    try:
        done = people.remove(campaign, user, people.ROLES[kind])
    except LookupError:
        raise Http404("no such member here") from None
    except ValueError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, done + " (the account and what it did stay).")
    return redirect("people", slug=campaign.slug)
