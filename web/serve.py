"""``boardzoo serve``: run the app with uvicorn on a local address and print its URL."""

from __future__ import annotations

from boardzoo.envs import BoardZooError


def serve(
    host: str = "127.0.0.1", port: int = 8000, bot_delay: float = 0.6, idle_minutes: float = 30.0, max_games: int = 64
) -> None:
    """Serve the lobby, tables and replays until interrupted.

    Args:
        host: the address to listen on (the default, 127.0.0.1, is this machine only).
        port: the TCP port (0: any free port).
        bot_delay: seconds between two bot moves, so that a person sees each one.
        idle_minutes: a game or replay nobody has looked at for this long is dropped.
        max_games: games and replays held at once.
    """
    try:
        import uvicorn

        from .app import create_app
        from .sessions import Hub
    except ImportError as e:
        raise BoardZooError(f"boardzoo serve needs the web extra: pip install 'boardzoo[web]' ({e})") from None
    if not 0 <= port <= 65535:
        raise BoardZooError(f"--port {port} is not a TCP port")
    if bot_delay < 0 or idle_minutes <= 0 or max_games < 1:
        raise BoardZooError("--bot-delay must be >= 0, --idle-minutes > 0 and --max-games >= 1")
    app = create_app(Hub(idle_timeout=idle_minutes * 60, bot_delay=bot_delay, max_items=max_games))
    config = uvicorn.Config(app, host=host, port=port, log_level="warning")
    server = uvicorn.Server(config)
    _announce(server, host, port)
    server.run()


def _announce(server, host: str, port: int) -> None:
    """Print the URL once uvicorn is listening (the real port when ``port`` is 0)."""
    startup = server.startup

    async def startup_and_print(sockets=None):
        await startup(sockets=sockets)
        real = port
        for s in getattr(server, "servers", []):
            for sock in s.sockets:
                real = sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        print(f"BoardZoo is serving at http://{shown}:{real}/  (Ctrl+C stops it)", flush=True)

    server.startup = startup_and_print
