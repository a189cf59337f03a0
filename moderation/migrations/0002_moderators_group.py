"""The ``moderators`` group with the moderation permissions."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

PERMISSIONS = ("use_console", "sanction_users", "manage_tables", "grant_coins")


def create_group(apps, schema_editor):
    # permissions are normally created after migrate; make them now
    for config in apps.get_app_configs():
        config.models_module = True
        create_permissions(config, verbosity=0, apps=apps)
        config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name="moderators")
    group.permissions.add(*Permission.objects.filter(
        content_type__app_label="moderation", codename__in=PERMISSIONS))


def remove_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name="moderators").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("moderation", "0001_moderation"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_group, remove_group)]
