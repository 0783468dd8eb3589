"""The WSGI application (``gunicorn config.wsgi``), loaded whole and then frozen for the collector.

Python's cyclic garbage collector runs a full collection every few seconds in a busy worker,
and a full collection walks every tracked object in the process while it holds the GIL, so
every thread of that worker waits. Nearly all of those objects are the loaded code (Django, the
apps, numpy, pyarrow, nh3: about 100,000), which lives as long as the process. So the
application is loaded here with its URLconf, which imports every view and what they import
(otherwise the first request would import them), then ``gc.collect()`` drops the loading's
cyclic garbage and ``gc.freeze()`` moves everything left to the permanent generation, which the
collector no longer walks. Measured with ``bench/bench_judging_load.py`` (50 assessors,
325 judgments/s offered, gunicorn 2 × 8 on 2 cores, the machine on a fast spell): unfrozen, a
full collection walked about 130,000 objects in 50-120 ms, stalled a whole worker, and set p99
at 69-106 ms; frozen, it walks the 25,000 or so created since (caches filled by requests, the
broker's client), and p99 was 24-34 ms. On slower spells the requests themselves cost more and
p99 stays above that (README, judging load).
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
