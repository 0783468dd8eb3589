"""Answering an invitation (``campaigns.people``): a new person's one-time link, where they choose
a password; an existing account's invitations page, where its owner, logged in, accepts or declines."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import SetPasswordForm
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaigns import people
from campaigns.models import Membership


@never_cache
@require_http_methods(["GET", "POST"])
def invitation_join(request: HttpRequest, token: str) -> HttpResponse:
    """A new account's invitation link: choose a password, become an active member, be logged in.

    404 for a link that does not open an invitation (wrong, used, expired, renewed, or its account
    has meanwhile a password, a login or another campaign), whoever asks.
    """
    invitation = people.invitation_of_link(token)
    if invitation is None:
        return render(request, "registration/set_password.html", {"validlink": False}, status=404)
    form = SetPasswordForm(invitation.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            try:
                people.accept(invitation)
            except ValueError:
                raise Http404("this invitation is no longer open") from None
            user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome to {invitation.campaign.name}: your password is set.")
        return redirect("home")
    status = 400 if request.method == "POST" else 200
    context = {"validlink": True, "form": form, "invitation": invitation}
    return render(request, "registration/set_password.html", context, status=status)


@login_required
@require_GET
def invitations(request: HttpRequest) -> HttpResponse:
    """The logged-in user's open invitations, to accept or decline."""
    pending = Membership.objects.pending().filter(user=request.user).select_related("campaign", "team", "invited_by")
    return render(request, "judging/invitations.html", {"invitations": pending.order_by("-invited_at")})


@login_required
@require_POST
def invitation_answer(request: HttpRequest, membership_id: int, answer: str) -> HttpResponse:
    """Accept or decline one of the user's own open invitations; anyone else's answers 404."""
    if answer not in ("accept", "decline"):
        raise Http404(f"no answer {answer!r}")
    membership = get_object_or_404(Membership.objects.pending().select_related("campaign"), pk=membership_id,
                                   user=request.user)
    if answer == "decline":
        membership.delete()
        messages.success(request, f"You declined the invitation to {membership.campaign.name}.")
        return redirect("invitations")
    try:
        people.accept(membership)
    except ValueError as exc:
        messages.error(request, str(exc))
        return redirect("invitations")
    messages.success(request, f"You are now {membership.get_role_display()} of {membership.campaign.name}.")
    return redirect("home")
