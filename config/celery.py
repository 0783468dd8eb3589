"""The Celery application: reads every ``CELERY_*`` Django setting and finds ``<app>/tasks.py``."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# The default app in every thread too (runserver and live_server threads), not only the importing one.
app.set_default()
