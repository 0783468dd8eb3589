"""Django's PostgreSQL backend, with a health check that costs no round trip when the connection is quiet.

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
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
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
