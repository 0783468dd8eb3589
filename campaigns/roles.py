"""The three roles of the app, as Django groups, and the question every view asks of them.

The ``organizer`` group no longer grants any campaign: it means "may create campaigns"
(``campaigns.access.may_create_campaigns``). Organizing, assessing and taking part are memberships
of each campaign (``campaigns.models.Membership``), asked through ``campaigns.access``; the
``assessor`` and ``participant`` groups answer no question about a campaign. The group's model permissions below are those the admin would grant;
the admin admits superusers only (``config/urls.py``), so today they grant nothing.
"""

from __future__ import annotations

from django.utils.functional import SimpleLazyObject

ORGANIZER = "organizer"
ASSESSOR = "assessor"
PARTICIPANT = "participant"
ROLES = (ORGANIZER, ASSESSOR, PARTICIPANT)

# Model permissions each role's group carries (app_label.codename); used by the admin.
PERMISSIONS = {
    ORGANIZER: [
        f"{app}.{action}_{model}"
        for app, models in {
            "campaigns": ["campaign", "topic", "document", "team", "run", "rankedlist"],
            "judging": [
                "pool", "poolentry", "poolstratum", "poolrun", "poolbuild", "judgment", "judgmentchange", "assignment",
            ],
            "evaluation": ["scoreboard"],
        }.items()
        for model in models
        for action in ("add", "change", "delete", "view")
        if not (model == "judgmentchange" and action in ("change", "delete"))
    ],
    ASSESSOR: ["campaigns.view_topic", "campaigns.view_document", "judging.add_judgment", "judging.change_judgment"],
    PARTICIPANT: ["campaigns.view_topic", "campaigns.view_team", "campaigns.add_run", "campaigns.view_run"],
}


def sync_role_groups(apps) -> None:
    """Create the role groups and give them PERMISSIONS (run from migrations, with their apps).

    Idempotent, and it grants only permissions whose models exist at that migration: a later
    migration calls it again after models are added.
    """
    from django.contrib.auth.management import create_permissions

    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for role, names in PERMISSIONS.items():
        group, _ = Group.objects.get_or_create(name=role)
        for name in names:
            app_label, codename = name.split(".")
            permission = Permission.objects.filter(content_type__app_label=app_label, codename=codename).first()
            if permission is not None:
                group.permissions.add(permission)


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


def navigation(request) -> dict:
    """Context processor: the top bar links to "My topics" for assessors only (the assessor group,
    an active assessor membership of some campaign, or topics held), read when a page shows it.
    The link shows the user's own topics: it opens nothing of any campaign."""
    def is_assessor() -> bool:
        user = request.user
        return has_role(user, ASSESSOR) or (user.is_authenticated and user.is_active and (
            user.memberships.filter(role=ASSESSOR, state="active").exists() or user.assignments.exists()))

    return {"is_assessor": SimpleLazyObject(is_assessor)}


# Adjudication: organizers record official grades and read their history; rows are append-only.
PERMISSIONS[ORGANIZER] += ["judging.add_adjudication", "judging.view_adjudication"]
