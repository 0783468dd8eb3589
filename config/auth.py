"""Django's ModelBackend, with the user that every request of a logged-in user reads written out.

``django.contrib.auth.get_user`` reads the user row on every request. The ORM's ``get(pk=…)``
spends about twice as long building and compiling that one-row query as the database takes to
run it, and ``raw()`` still resolves per call how to build the instance. Here the statement is written
out and the instance built by :mod:`config.rows`, as the ORM builds it. Logging in, permissions
and everything else stay Django's.
"""

from __future__ import annotations

from django.contrib.auth import backends, get_user_model
from django.core.exceptions import ValidationError
from django.db import DEFAULT_DB_ALIAS, connections

from config.rows import columns, instance


class ModelBackend(backends.ModelBackend):
    def get_user(self, user_id):
        model = get_user_model()
        try:
            pk = model._meta.pk.to_python(user_id)
        except ValidationError:
            return None
        db = connections[DEFAULT_DB_ALIAS]
        # The model's columns by name, not *: PostgreSQL prepares this statement on each
        # connection, and a prepared "SELECT *" fails once a migration adds a column.
        with db.cursor() as cursor:
            cursor.execute(f"SELECT {columns(db, 'u', model)} FROM {db.ops.quote_name(model._meta.db_table)} u "
                           f"WHERE u.{db.ops.quote_name(model._meta.pk.column)} = %s", [pk])
            row = cursor.fetchone()
        user = None if row is None else instance(db, model, iter(row))
        return user if user is not None and self.user_can_authenticate(user) else None
