"""config/cache.py: the Redis cache (sessions are read through it) keeps one client per connection pool."""

from __future__ import annotations

import os
import secrets

from config.cache import RedisCache

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/3")


def test_the_redis_cache_reuses_its_client_and_round_trips_values():
    cache = RedisCache(REDIS_URL, {"KEY_PREFIX": "test-cache-" + secrets.token_hex(4)})
    try:
        cache.set("session", {"user": "7"}, 30)
        assert cache.get("session") == {"user": "7"}
        assert cache._cache.get_client("session") is cache._cache.get_client("other", write=True)
        cache.delete("session")
        assert cache.get("session") is None
    finally:
        cache.close()
