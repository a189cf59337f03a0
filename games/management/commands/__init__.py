"""``python manage.py botmatch``, ``runsite`` and other games commands."""
