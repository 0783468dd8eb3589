"""Django's PostgreSQL backend, with batches that fit the protocol's limit of 65,535 parameters a statement.

With server-side binding (``DATABASE_PREPARED_STATEMENTS``, the default) every value travels as
a parameter of the statement, and the protocol counts them in 16 bits: a statement with more
than 65,535 fails ("number of parameters must be between 0 and 65535"). Django batches by
``bulk_batch_size``, which for PostgreSQL is unbounded (client-side binding has no such limit):
deleting a campaign with more than 65,535 documents failed, because the deletion collector looks
up each table that refers to documents ``WHERE document_id IN (…)`` with every id at once, and so
would a ``bulk_update`` of as many rows. Here every batch fits.
"""

from __future__ import annotations

from django.db.backends.postgresql import base, operations

#: Most parameters one statement can carry with server-side binding (a 16-bit count).
MAX_PARAMETERS = 65535


class DatabaseOperations(operations.DatabaseOperations):
    def bulk_batch_size(self, fields, objs):
        """With server-side binding, as many objects as surely fit in one statement; all of them otherwise.

        Two parameters per field and object, the most any caller takes: a ``bulk_update`` of
        F fields passes ``[pk, pk] + fields`` and takes 2F + 1 (a ``WHEN pk = %s THEN %s`` per
        field, and the pk in its ``IN``); the deletion collector's lookups take one per related
        field; a ``bulk_create`` (Django inserts with ``UNNEST``, an array a field) needs no
        limit, and its batches of thousands of rows cost a statement each.
        """
        if not self.connection.settings_dict["OPTIONS"].get("server_side_binding"):
            return super().bulk_batch_size(fields, objs)
        return max(min(len(objs), MAX_PARAMETERS // (2 * max(len(fields), 1))), 1)


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
