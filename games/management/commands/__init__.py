"""``python manage.py simulate`` and other games commands."""
