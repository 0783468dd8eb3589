"""The moved models' content types follow them (with their permissions and admin log entries), once
no app's state holds the old copies; the role groups get the permissions under their new names."""

from django.db import migrations

MOVED = {
    "judging": ["campaign", "topic", "document"],
    "evaluation": ["team", "run", "uploadattempt", "rankedlist"],
}


def content_types(apps, schema_editor, forward=True):
    """Move the models' content types (and with them their permissions and admin log entries)."""
    from campaigns.roles import sync_role_groups

    ContentType = apps.get_model("contenttypes", "ContentType")
    for old_app, models_ in MOVED.items():
        source, target = ("campaigns", old_app) if not forward else (old_app, "campaigns")
        for model in models_:
            if not ContentType.objects.filter(app_label=target, model=model).exists():
                ContentType.objects.filter(app_label=source, model=model).update(app_label=target)
    ContentType.objects.clear_cache()
    if forward:
        sync_role_groups(apps)


def content_types_back(apps, schema_editor):
    content_types(apps, schema_editor, forward=False)


class Migration(migrations.Migration):

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('campaigns', '0001_initial'),
        ('judging', '0021_campaign_data_moved'),
        ('evaluation', '0014_campaign_data_moved_away'),
    ]

    operations = [
        migrations.RunPython(content_types, content_types_back),
    ]
