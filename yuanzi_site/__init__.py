"""原子 online project package. Importing it loads the Celery app."""

from yuanzi_site.celery import app as celery_app

__all__ = ("celery_app",)
