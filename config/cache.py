"""Django's Redis cache backend, with one Redis client per connection pool instead of one per call.

Django's ``RedisCacheClient`` builds a new ``redis.Redis`` for every cache operation; redis-py
spends longer building one (its table of response callbacks) than the GET it then sends, and
sessions are read through this cache on every request. A ``redis.Redis`` on a connection pool
is safe to share between threads.
"""

from __future__ import annotations

from django.core.cache.backends import redis


class RedisCacheClient(redis.RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))  # pools live as long as this object: ids stay theirs
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(redis.RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = RedisCacheClient
