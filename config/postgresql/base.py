"""Django's PostgreSQL backend, with a health check that costs no round trip when the connection is quiet,
and batches that fit the protocol's limit of 65,535 parameters a statement.

With ``CONN_HEALTH_CHECKS`` Django sends ``SELECT 1`` before the first query of every request on
a reused connection: on the judge-save path, one round trip (and one statement for PostgreSQL
to run) in six. A connection the server has closed (a restart, ``pg_terminate_backend``, an
idle timeout) has said so before it closes: PostgreSQL sends a FATAL error message, then the
socket's end of file, and either makes the socket readable. An idle connection in autocommit
gets nothing unasked otherwise (no LISTEN here; a notice is rare). So the check here polls the
socket without waiting: nothing to read, the connection is kept with no query sent; anything to
read, or a connection psycopg already knows is broken, gets Django's ``SELECT 1``, which closes
it if the server is gone. A connection cut without a word (a dropped network path) passes the
poll and fails its first query, as it would with no health checks at all; Django then closes it
at the end of that request.

With server-side binding (``DATABASE_PREPARED_STATEMENTS``, the default) every value travels as
a parameter of the statement, and the protocol counts them in 16 bits: a statement with more
than 65,535 fails ("number of parameters must be between 0 and 65535"). Django batches by
``bulk_batch_size``, which for PostgreSQL is unbounded (client-side binding has no such limit):
deleting a campaign with more than 65,535 documents failed, because the deletion collector looks
up each table that refers to documents ``WHERE document_id IN (…)`` with every id at once, and so
would a ``bulk_update`` of as many rows. Here every batch fits.
"""

from __future__ import annotations

import select

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

    def close_if_health_check_failed(self):
        if self.connection is None or not self.health_check_enabled or self.health_check_done or self.pool:
            return
        if self._quiet():
            self.health_check_done = True
            return
        super().close_if_health_check_failed()

    def _quiet(self) -> bool:
        """Open, not known broken, and nothing waiting on the socket (a poll with no timeout: one system call)."""
        connection = self.connection
        if connection.closed or connection.broken:
            return False
        poll = select.poll()
        poll.register(connection.pgconn.socket, select.POLLIN)
        return not poll.poll(0)  # POLLIN, or POLLHUP / POLLERR, always reported
