"""The WSGI application (``gunicorn config.wsgi``), loaded whole and then frozen for the collector.

Python's cyclic garbage collector runs a full collection every few seconds in a busy worker,
and a full collection walks every tracked object in the process while it holds the GIL, so
every thread of that worker waits. Nearly all of those objects are the loaded code (Django, the
apps, numpy, pyarrow, nh3: about 100,000), which lives as long as the process. So the
application is loaded here with its URLconf, which imports every view and what they import
(otherwise the first request would import them), then ``gc.collect()`` drops the loading's
cyclic garbage and ``gc.freeze()`` moves everything left to the permanent generation, which the
collector no longer walks: frozen, a full collection walks only the objects created since
(caches filled by requests, the broker's client), and no longer stalls a whole worker long
enough to set the tail latency of the judging requests (``bench/bench_judging_load.py``).
"""

import gc
import os
from importlib import import_module

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()
import_module(settings.ROOT_URLCONF)
gc.collect()
gc.freeze()
