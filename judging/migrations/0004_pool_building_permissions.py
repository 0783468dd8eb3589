from django.db import migrations


def grant_pool_building_permissions(apps, schema_editor):
    from campaigns.roles import sync_role_groups

    sync_role_groups(apps)


class Migration(migrations.Migration):
    dependencies = [("judging", "0003_pool_building")]
    operations = [migrations.RunPython(grant_pool_building_permissions, migrations.RunPython.noop)]
