"""The organizer's people page: assessors, teams and organizers of a campaign, accounts, set-password links."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.db.models import Prefetch
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from campaigns.models import Team
from campaigns import people
from campaigns.access import campaign_for_organizer
from judging.forms import PeopleForm
from campaigns.models import Campaign
from campaigns.roles import ASSESSOR

KINDS = ("assessors", "participants", "organizers")


def _page(request: HttpRequest, campaign: Campaign, *, links=(), kind="", summary="", forms=None,
          status=200) -> HttpResponse:
    forms = {name: PeopleForm(prefix=name) for name in KINDS} | (forms or {})
    links = [{"user": link.user, "team": link.team, "created": link.created,
              "url": request.build_absolute_uri(people.set_password_path(link.user))} for link in links]
    context = {"campaign": campaign, "forms": forms, "links": links, "kind": kind, "summary": summary,
               "link_days": people.link_days(), "mail": people.mail_enabled(), **people.campaign_people(campaign)}
    return render(request, "judging/people.html", context, status=status)


@login_required
@require_GET
def people_page(request: HttpRequest, slug: str) -> HttpResponse:
    return _page(request, campaign_for_organizer(request, slug))


@login_required
@require_POST
def people_add(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    """Add the pasted accounts (all or none) and show the set-password links of those without a password."""
    campaign = campaign_for_organizer(request, slug)
    if kind not in KINDS:
        raise Http404(f"no people of kind {kind!r}")
    form = PeopleForm(request.POST, prefix=kind)
    if form.is_valid():
        try:
            lines = people.parse_people(form.cleaned_data["lines"], teams=kind == "participants")
            added = (people.add_participants(campaign, lines) if kind == "participants"
                     else people.add_organizers(campaign, lines) if kind == "organizers"
                     else people.add_assessors(lines))
        except people.PeopleError as exc:
            form.add_error("lines", str(exc))
    if not form.is_valid():
        return _page(request, campaign, forms={kind: form}, status=400)
    created = sum(a.created for a in added)
    summary = (f"{len(added)} {kind[:-1] if len(added) == 1 else kind} added: {created} new "
               f"account{'s' if created != 1 else ''}, {len(added) - created} existing.")
    rule = people.LinkRule(campaign)
    links = [a for a in added if not a.user.has_usable_password() and rule.allows(a.user)]
    return _page(request, campaign, links=_told(request, campaign, links), kind=kind, summary=summary)


def _told(request: HttpRequest, campaign: Campaign, links: list[people.Added]) -> list[people.Added]:
    """The links that may be shown: when the server sends mail, each owner with an address is told
    first (``people.tell_owners``), and a link whose owner could not be told is not shown."""
    if not links or not people.mail_enabled():
        return links
    try:
        told = people.tell_owners(campaign, links, request.user)
    except people.MailError as exc:
        shown = [a for a in links if not a.user.email]
        messages.error(request, f"No link is shown for {', '.join(a.user.get_username() for a in links if a.user.email)}:"
                                f" their owners could not be told ({exc}). Make them again when the mail server answers.")
        return shown
    for name, reason in told.failed.items():
        messages.error(request, f"No link is shown for {name}: the mail server refused the mail telling them: {reason}")
    return [a for a in links if a.user.get_username() not in told.failed]


def _people_here(campaign: Campaign, user_ids: list[int]) -> list[people.Added]:
    """The campaign's people with these ids, each of whom may get a set-password link, in the
    order given; 404 if one is not. Three queries, however many."""
    teams_here = Prefetch("teams", queryset=Team.objects.filter(campaign=campaign), to_attr="teams_here")
    users = get_user_model().objects.filter(pk__in=user_ids).prefetch_related("groups", teams_here)
    found = {user.pk: user for user in users}
    rule = people.LinkRule(campaign)
    chosen = []
    for user_id in user_ids:
        user = found.get(user_id)
        team = user.teams_here[0] if user is not None and user.teams_here else None
        organizer = user_id in rule.organizes_here
        is_here = user is not None and (team is not None or organizer
                                        or any(g.name == ASSESSOR for g in user.groups.all()))
        if not is_here or not rule.allows(user):
            raise Http404("no such assessor, participant or organizer here")
        chosen.append(people.Added(user, created=False, team=team.name if team else "", organizer=organizer))
    return chosen


@login_required
@require_POST
def people_link(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    """A new set-password link for one of the campaign's people (a lost link, a forgotten password);
    its owner is told by mail (``_told``)."""
    campaign = campaign_for_organizer(request, slug)
    [link] = _people_here(campaign, [user_id])
    return _page(request, campaign, links=_told(request, campaign, [link]), kind=link.role + "s")


@login_required
@require_POST
def people_mail(request: HttpRequest, slug: str) -> HttpResponse:
    """Mail new set-password links to the chosen people (``user`` ids) at their email addresses."""
    campaign = campaign_for_organizer(request, slug)
    if not people.mail_enabled():
        raise Http404("this server sends no mail (EMAIL_URL is not set)")
    ids = request.POST.getlist("user")
    if not ids or len(ids) > people.MAX_LINES or not all(i.isdigit() for i in ids):
        return HttpResponseBadRequest("choose the accounts to mail: user ids, at most one per line added")
    chosen = _people_here(campaign, list(dict.fromkeys(int(i) for i in ids)))
    try:
        mailed = people.mail_links(campaign, chosen, request.build_absolute_uri)
    except people.MailError as exc:
        messages.error(request, f"Nothing was mailed: {exc}.")
        return redirect("people", slug=campaign.slug)
    if mailed.sent:
        messages.success(request, f"Mailed a set-password link to {', '.join(mailed.sent)}.")
    if mailed.without_email:
        messages.warning(request, f"No email address, nothing mailed: {', '.join(mailed.without_email)}.")
    for name, reason in mailed.failed.items():
        messages.error(request, f"The mail server refused the mail to {name}: {reason}")
    return redirect("people", slug=campaign.slug)


@login_required
@require_POST
def people_remove(request: HttpRequest, slug: str, user_id: int, kind: str) -> HttpResponse:
    """Take a participant out of their team here, or an assessor's role away (refused while they hold topics)."""
    campaign = campaign_for_organizer(request, slug)
    user = get_object_or_404(get_user_model(), pk=user_id)
    name = user.get_username()
    if kind == "participants" and user.teams.filter(campaign=campaign).exists():
        deleted, done = people.remove_participant(campaign, user), f"{name} is no longer in a team of {campaign.name}"
    elif (kind == "assessors" and user.groups.filter(name=ASSESSOR).exists() and user.is_active
          and not people.has_powers(user)):
        try:
            deleted, done = people.remove_assessor(user), f"{name} is no longer an assessor"
        except ValueError as exc:
            messages.error(request, str(exc))
            return redirect("people", slug=campaign.slug)
    else:
        raise Http404("no such assessor or participant here")
    messages.success(request, done + (" (the account was never used, and is deleted)." if deleted else "."))
    return redirect("people", slug=campaign.slug)
