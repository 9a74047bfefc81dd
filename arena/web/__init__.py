"""The arena's web face: server-rendered pages and a JSON API over the store.

``arena.web.app.create_app()`` builds the ASGI application; ``arena web`` serves it with
uvicorn. The web process only reads (``arena.store.db.read``) and never migrates."""
