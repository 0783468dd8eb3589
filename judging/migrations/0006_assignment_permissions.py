from django.db import migrations


def grant_assignment_permissions(apps, schema_editor):
    from campaigns.roles import sync_role_groups

    sync_role_groups(apps)


class Migration(migrations.Migration):
    dependencies = [("judging", "0005_assignments")]
    operations = [migrations.RunPython(grant_assignment_permissions, migrations.RunPython.noop)]
