"""config/auth.py: the backend reads the request's user as Django's ModelBackend would, with one query."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.urls import reverse

from config.auth import ModelBackend



@pytest.mark.django_db
def test_the_user_read_is_the_orms_and_inactive_or_unknown_users_are_none():
    user = User.objects.create_user("una", password="pw-una", first_name="Una")
    read = ModelBackend().get_user(str(user.pk))  # the session keeps the id as text
    assert [getattr(read, f.attname) for f in User._meta.concrete_fields] == \
           [getattr(user, f.attname) for f in User._meta.concrete_fields]
    assert ModelBackend().get_user(str(user.pk + 1)) is None and ModelBackend().get_user("x") is None
    user.is_active = False
    user.save()
    assert ModelBackend().get_user(str(user.pk)) is None


@pytest.mark.django_db
def test_logging_in_uses_it_and_a_password_change_still_ends_other_sessions(client):
    user = User.objects.create_user("una", password="pw-una")
    assert client.post(reverse("login"), {"username": "una", "password": "pw-una"}).status_code == 302
    assert client.get(reverse("assess_home")).status_code == 200
    user.set_password("another-pw-una")
    user.save()
    assert client.get(reverse("assess_home")).status_code == 302  # to the login page


@pytest.mark.django_db(transaction=True)
def test_a_column_another_release_adds_to_the_user_table_does_not_break_open_connections(client):
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's")
    import psycopg

    User.objects.create_user("una", password="pw-una")
    client.post(reverse("login"), {"username": "una", "password": "pw-una"})
    for _ in range(3):  # the user read is now prepared on this connection
        assert client.get(reverse("assess_home")).status_code == 200
    db = connection.settings_dict
    other = psycopg.connect(dbname=db["NAME"], user=db["USER"], password=db["PASSWORD"], host=db["HOST"],
                            port=db["PORT"], autocommit=True)  # fmt: skip
    try:  # a migration run from elsewhere while this process serves
        other.execute(f"ALTER TABLE {User._meta.db_table} ADD COLUMN added_later integer")
        assert client.get(reverse("assess_home")).status_code == 200
    finally:
        other.execute(f"ALTER TABLE {User._meta.db_table} DROP COLUMN IF EXISTS added_later")
        other.close()
