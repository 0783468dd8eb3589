"""A campaign's settings and life, for its organizers: edit it, move it through its states, clone
its setup, delete it. The admin stays for site administrators."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from campaigns.access import campaign_for_organizer, may_create_campaigns
from campaigns.models import Campaign, Topic
from campaigns.signals import announce_judgments_changed
from judging.forms import CampaignSettingsForm, CloneForm, TopicForm

#: Settings whose change changes scores: every topic is recomputed after one of them changes.
SCORED = {"scale", "relevant_from", "depth"}


@login_required
@require_http_methods(["GET", "POST"])
def campaign_settings(request: HttpRequest, slug: str) -> HttpResponse:
    """Edit the settings (refused while archived); the state, clone and delete forms post elsewhere."""
    campaign = campaign_for_organizer(request, slug)
    form = CampaignSettingsForm(request.POST or None, instance=campaign)
    if request.method == "POST" and form.is_valid():
        form.save()
        rescored = bool(SCORED & set(form.changed_data))
        if rescored:
            announce_judgments_changed(campaign.pk, campaign.topics.values_list("pk", flat=True))
        messages.success(request, "Settings saved." + (" The scores are recomputed." if rescored else ""))
        return redirect("campaign_settings", slug=slug)
    return _render(request, campaign, form, CloneForm(prefix="clone"), status=400 if request.method == "POST" else 200)


@login_required
@require_POST
def campaign_state(request: HttpRequest, slug: str) -> HttpResponse:
    """Move the campaign to the posted ``state`` (archiving and reopening included)."""
    campaign = campaign_for_organizer(request, slug, while_archived=True)
    try:
        campaign.move_to(request.POST.get("state", ""))
    except ValueError as exc:
        messages.error(request, f"{exc}.")
    else:
        messages.success(request, f"The campaign is now {campaign.get_state_display().lower()}: "
                                  f"{campaign.state_meaning}")
    return redirect("campaign_settings", slug=slug)


@login_required
@require_POST
def campaign_clone(request: HttpRequest, slug: str) -> HttpResponse:
    """A new campaign with this one's settings, topics and organizers, for whoever may create campaigns."""
    campaign = campaign_for_organizer(request, slug, while_archived=True)
    if not may_create_campaigns(request.user):
        raise PermissionDenied("only site administrators and the organizer group create campaigns")
    form = CloneForm(request.POST, prefix="clone")
    if not form.is_valid():
        return _render(request, campaign, CampaignSettingsForm(instance=campaign), form, status=400)
    copy = campaign.clone(name=form.cleaned_data["name"], slug=form.cleaned_data["slug"], by=request.user)
    messages.success(request, f"Created {copy.name} with the settings and {copy.topics.count()} topics of {campaign.name}.")
    return redirect(copy)


@login_required
@require_POST
def campaign_delete(request: HttpRequest, slug: str) -> HttpResponse:
    """Delete the campaign and everything in it, once its address is typed to confirm."""
    campaign = campaign_for_organizer(request, slug, while_archived=True)
    if request.POST.get("confirm", "").strip() != campaign.slug:
        messages.error(request, f"Nothing was deleted: type {campaign.slug} to confirm.")
        return redirect("campaign_settings", slug=slug)
    name = campaign.name
    campaign.delete()
    messages.success(request, f"Deleted {name}, with its topics, documents, runs, judgments and scores.")
    return redirect("home")


@login_required
@require_http_methods(["GET", "POST"])
def topic_edit(request: HttpRequest, slug: str, topic: str) -> HttpResponse:
    """Edit a topic's title, description and narrative, as participants and assessors read them."""
    campaign = campaign_for_organizer(request, slug)
    found = get_object_or_404(Topic, campaign=campaign, identifier=topic)
    form = TopicForm(request.POST or None, instance=found)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, f"Topic {found.identifier} saved.")
        return redirect(reverse("topics", args=[slug]) + f"#topic-{found.identifier}")
    context = {"campaign": campaign, "topic": found, "form": form}
    return render(request, "judging/topic_edit.html", context, status=400 if request.method == "POST" else 200)


def _render(request: HttpRequest, campaign: Campaign, form, clone_form, *, status: int) -> HttpResponse:
    context = {
        "campaign": campaign, "form": form, "clone_form": clone_form,
        "meanings": [(value, label, Campaign.STATE_MEANINGS[value]) for value, label in Campaign.State.choices],
        "next_states": [(state, Campaign.State(state).label) for state in campaign.next_states()],
        "may_clone": may_create_campaigns(request.user),
    }
    return render(request, "judging/campaign_settings.html", context, status=status)
