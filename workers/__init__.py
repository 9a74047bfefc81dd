"""Celery on Redis: the app and its settings (``app``), the tasks (``tasks``) and sending
work to them, or running it in-process when no Redis is configured (``dispatch``)."""
