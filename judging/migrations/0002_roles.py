from django.db import migrations


def create_role_groups(apps, schema_editor):
    from django.contrib.auth.management import create_permissions

    from judging.roles import PERMISSIONS

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
            group.permissions.add(Permission.objects.get(content_type__app_label=app_label, codename=codename))


class Migration(migrations.Migration):
    dependencies = [
        ("judging", "0001_initial"),
        ("evaluation", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]
    operations = [migrations.RunPython(create_role_groups, migrations.RunPython.noop)]
