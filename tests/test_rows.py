"""config/rows.py: instances built from written-out rows equal the ORM's, every column converted as it converts it."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import DEFAULT_DB_ALIAS, connections

from config.rows import columns, instance
from campaigns.models import Campaign

pytestmark = pytest.mark.django_db


def read(model, pk):
    db = connections[DEFAULT_DB_ALIAS]
    with db.cursor() as cursor:
        cursor.execute(f"SELECT {columns(db, 'x', model)} FROM {model._meta.db_table} x WHERE x.id = %s", [pk])
        return instance(db, model, iter(cursor.fetchone()))


def fields(obj):
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


def test_a_campaign_with_its_json_scale_and_dates_reads_as_the_orm_reads_it(campaign):
    orm = Campaign.objects.get(pk=campaign.pk)
    built = read(Campaign, campaign.pk)
    assert fields(built) == fields(orm)
    assert built.scale[2] == {"grade": 2, "label": "Definitely relevant"}  # JSON, not its text
    assert built._state.adding is False and built._state.db == DEFAULT_DB_ALIAS  # saves as an update


def test_a_user_reads_with_datetimes_and_booleans_as_python_values(db):
    user = User.objects.create_user("una", first_name="Una", is_staff=True)
    built = read(User, user.pk)
    assert fields(built) == fields(User.objects.get(pk=user.pk))
    assert built.is_staff is True and built.date_joined.tzinfo is not None


def test_two_rows_of_one_model_side_by_side_are_read_in_turn(db):
    una, ole = User.objects.create_user("una"), User.objects.create_user("ole")
    db_ = connections[DEFAULT_DB_ALIAS]
    with db_.cursor() as cursor:
        cursor.execute(f"SELECT {columns(db_, 'a', User)}, {columns(db_, 'b', User)} FROM auth_user a, auth_user b "
                       "WHERE a.id = %s AND b.id = %s", [una.pk, ole.pk])
        values = iter(cursor.fetchone())
        first, second = instance(db_, User, values), instance(db_, User, values)
    assert (first.username, second.username) == ("una", "ole")
