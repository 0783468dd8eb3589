"""The three roles of the app, as Django groups, and the question every view asks of them."""

from __future__ import annotations

ORGANIZER = "organizer"
ASSESSOR = "assessor"
PARTICIPANT = "participant"
ROLES = (ORGANIZER, ASSESSOR, PARTICIPANT)

# Model permissions each role's group carries (app_label.codename); used by the admin.
PERMISSIONS = {
    ORGANIZER: [
        f"{app}.{action}_{model}"
        for app, models in {
            "judging": ["campaign", "topic", "document", "pool", "poolentry", "judgment", "judgmentchange"],
            "evaluation": ["team", "run", "rankedlist"],
        }.items()
        for model in models
        for action in ("add", "change", "delete", "view")
        if not (model == "judgmentchange" and action in ("change", "delete"))
    ],
    ASSESSOR: ["judging.view_topic", "judging.view_document", "judging.add_judgment", "judging.change_judgment"],
    PARTICIPANT: ["judging.view_topic", "evaluation.view_team", "evaluation.add_run", "evaluation.view_run"],
}


def has_role(user, role: str) -> bool:
    """True if the user is active and in the role's group (superusers hold every role)."""
    if not user.is_authenticated or not user.is_active:
        return False
    if user.is_superuser:
        return True
    cached = getattr(user, "_role_names", None)
    if cached is None:
        cached = set(user.groups.values_list("name", flat=True))
        user._role_names = cached
    return role in cached


def is_organizer(user) -> bool:
    return has_role(user, ORGANIZER)
