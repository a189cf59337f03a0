"""The Celery application.

Configuration comes from Django settings prefixed ``CELERY_`` (broker, result
backend, eager mode; see ``yuanzi_site.settings``). Tasks are discovered in each
installed app's ``tasks.py``. Worker: ``celery -A yuanzi_site worker``.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yuanzi_site.settings")

app = Celery("yuanzi_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
