"""``arena web``: the web face (pages and the JSON API) served by uvicorn."""

from __future__ import annotations

import argparse

from arena.settings import ArenaSettings, load

from .options import host_port


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("web", help="serve the web pages and the JSON API")
    parser.add_argument("--address", default=None,
                        help="host:port to listen on (default ARENA_WEB_ADDRESS or "
                        f"{ArenaSettings.model_fields['web_address'].default})")
    parser.add_argument("--database", default=None, help="store URL (default ARENA_DATABASE_URL)")
    parser.add_argument("--log-level", default="info")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from arena.web.app import create_app
    from arena.web.settings import WebSettings

    settings = WebSettings.from_settings(load())
    host, port = host_port(args.address or settings.address, "--address")
    print(f"arena web on http://{host}:{port}/ (API at /api/v1/, schema at /api/v1/openapi.json)", flush=True)
    uvicorn.run(create_app(args.database, settings=settings), host=host, port=port, log_level=args.log_level)
    return 0
