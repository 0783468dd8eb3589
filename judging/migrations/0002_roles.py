from django.db import migrations


def create_role_groups(apps, schema_editor):
    from campaigns.roles import sync_role_groups

    sync_role_groups(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("judging", "0001_initial"),
        ("evaluation", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]
    operations = [migrations.RunPython(create_role_groups, migrations.RunPython.noop)]
