"""config/auth.py: the backend reads the request's user as Django's ModelBackend would, with one query."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from config.auth import ModelBackend

pytestmark = pytest.mark.django_db


def test_the_user_read_is_the_orms_and_inactive_or_unknown_users_are_none():
    user = User.objects.create_user("una", password="pw-una", first_name="Una")
    read = ModelBackend().get_user(str(user.pk))  # the session keeps the id as text
    assert [getattr(read, f.attname) for f in User._meta.concrete_fields] == \
           [getattr(user, f.attname) for f in User._meta.concrete_fields]
    assert ModelBackend().get_user(str(user.pk + 1)) is None and ModelBackend().get_user("x") is None
    user.is_active = False
    user.save()
    assert ModelBackend().get_user(str(user.pk)) is None


def test_logging_in_uses_it_and_a_password_change_still_ends_other_sessions(client):
    user = User.objects.create_user("una", password="pw-una")
    assert client.post(reverse("login"), {"username": "una", "password": "pw-una"}).status_code == 302
    assert client.get(reverse("assess_home")).status_code == 200
    user.set_password("another-pw-una")
    user.save()
    assert client.get(reverse("assess_home")).status_code == 302  # to the login page
