"""Celery on Redis, and the embedded alternative: the app and its settings (``app``), the
tasks (``tasks``), sending matches to them by name (``send``), playing them in-process and on
a pool of processes when no Redis is configured (``pool``), running a tournament and following
it to its end (``follow``), and the supervisors that heal lost matches (``supervisor``,
``embedded_supervisor``). Imported only by the layers that wire the arena together (the CLI,
the server)."""
