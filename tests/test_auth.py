"""Signing in: Django's ModelBackend behind the login throttle (config/settings.py AUTHENTICATION_BACKENDS)."""

from __future__ import annotations

import pytest
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.db import connection
from django.urls import reverse


@pytest.mark.django_db
def test_logging_in_works_and_a_password_change_ends_other_sessions(client):
    user = User.objects.create_user("una", password="pw-una")
    assert client.post(reverse("login"), {"username": "una", "password": "pw-una"}).status_code == 302
    assert client.get(reverse("assess_home")).status_code == 200
    user.set_password("another-pw-una")
    user.save()
    assert client.get(reverse("assess_home")).status_code == 302  # to the login page


@pytest.mark.django_db
def test_a_session_signed_in_through_the_retired_config_auth_backend_ends_with_a_way_back_to_sign_in(client):
    """Sessions made before config/auth.py was removed name it as their backend: Django then
    treats the request as signed out (no error), the page sends the user to the login page, and
    signing in again works."""
    user = User.objects.create_user("una", password="pw-una")
    session = client.session
    session.update({SESSION_KEY: str(user.pk), BACKEND_SESSION_KEY: "config.auth.ModelBackend",
                    HASH_SESSION_KEY: user.get_session_auth_hash()})
    session.save()
    client.cookies["sessionid"] = session.session_key
    response = client.get(reverse("assess_home"))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    assert client.post(reverse("login"), {"username": "una", "password": "pw-una"}).status_code == 302
    assert client.get(reverse("assess_home")).status_code == 200


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
