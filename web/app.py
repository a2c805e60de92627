"""The HTTP layer: a Starlette/FastAPI app over a :class:`~boardzoo.web.sessions.Hub`.

Pages (plain HTML/JS/SVG from ``static/``, no build step): ``/`` is the lobby, the table, the
watch view and the replay viewer (one page, switched by the URL's ``#`` part).

API (JSON; every refusal is a 4xx ``{"error": "..."}`` and changes nothing):

``GET  /api/envs``                         the games: players, options, bots
``GET  /api/envs/{env_id}/rules``          the game's RULES.md (text)
``POST /api/games``                        ``{env_id, num_players, seats, options?, seed?, bot_delay?}``
                                           -> the game id and a token per human seat
``GET  /api/games/{id}?seat=S&token=T``    what seat S may see (no seat: a spectator's view)
``POST /api/games/{id}/move``              ``{seat, token, action, move}`` (``move``: the move count
                                           the player saw; another count is a stale move, 409)
``GET  /api/games/{id}/board.png``         the public picture
``GET  /api/games/{id}/record``            the game record (once over, or a bots-only game)
``POST /api/games/{id}/replay``            open the finished game as a replay
``POST /api/replays``                      upload a record (JSON body) -> a replay id
``GET  /api/replays/{id}?step=K&seat=S``   step K, with seat S's private view (a record hides nothing)
``GET  /api/replays/{id}/board.png?step=K`` and ``/api/replays/{id}/record``
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from boardzoo.envs import BoardZooError, game_class, names
from boardzoo.training.bots import KINDS

from .sessions import HUMAN, Hub, Table, WebError, parse_json

STATIC = Path(__file__).parent / "static"
MAX_BODY = 4_000_000  # bytes of a request body (an uploaded record included)


def _env_entry(env_id: str) -> dict:
    try:
        g = game_class(env_id)
    except Exception as e:  # a game that does not import is listed as unavailable, the rest still work
        return {"env_id": env_id, "error": f"{type(e).__name__}: {e}"}
    options = {}
    for key, opt in g.options_spec.items():
        kind = opt.type if opt.type is not None else type(opt.default)
        options[key] = {
            "default": opt.default,
            "help": opt.help,
            "choices": list(opt.choices) if opt.choices is not None else None,
            "type": getattr(kind, "__name__", str(kind)),
        }
    return {
        "env_id": env_id,
        "name": g.name or env_id,
        "players": [g.min_players, g.max_players],
        "default_players": g.default_players,
        "options": options,
        "bots": [HUMAN, *KINDS],
        "neural": _has_shipped_bot(env_id),
        "picture": g._spec is not None and g._spec.renderer is not None,
    }


def _has_shipped_bot(env_id: str) -> bool:
    try:
        from boardzoo.training.botformat import resolve

        resolve(env_id)
        return True
    except Exception:  # no shipped bot (or the bots extra is missing): the lobby offers none
        return False


def _rules_text(env_id: str) -> str:
    if env_id not in names():
        raise WebError(404, f"unknown game {env_id!r}; games here: {names()}")
    package = game_class(env_id).__module__.rpartition(".")[0]
    try:
        return importlib.resources.files(package).joinpath("RULES.md").read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError):
        raise WebError(404, f"{env_id} ships no RULES.md") from None


def _int(value: str | None, what: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise WebError(400, f"{what}: expected an integer, got {value!r}") from None


def create_app(hub: Hub | None = None) -> FastAPI:
    """The app; ``hub`` holds its games (a fresh one with the defaults when None)."""
    hub = hub if hub is not None else Hub()
    app = FastAPI(title="BoardZoo", docs_url="/api/docs", redoc_url=None)
    app.state.hub = hub

    @app.exception_handler(WebError)
    async def _web_error(_: Request, e: WebError) -> JSONResponse:
        return JSONResponse({"error": str(e)}, status_code=e.status)

    @app.exception_handler(BoardZooError)
    async def _bz_error(_: Request, e: BoardZooError) -> JSONResponse:
        return JSONResponse({"error": str(e)}, status_code=400)

    @app.exception_handler(Exception)
    async def _internal(_: Request, e: Exception) -> JSONResponse:  # a bug of ours: say so, keep serving
        return JSONResponse({"error": f"internal error ({type(e).__name__}: {e})"[:500]}, status_code=500)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(_: Request, e: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": f"bad request: {e.errors()}"[:500]}, status_code=400)

    async def body(request: Request) -> Any:
        size = request.headers.get("content-length")
        if size is not None and size.isdigit() and int(size) > MAX_BODY:
            raise WebError(413, f"the request body is {size} bytes; at most {MAX_BODY} are accepted")
        data = b""
        async for chunk in request.stream():
            data += chunk
            if len(data) > MAX_BODY:
                raise WebError(413, f"the request body is over {MAX_BODY} bytes")
        return parse_json(data, MAX_BODY)

    def table_view(table: Table, seat: int | None, token: str | None) -> dict:
        with table.lock:
            table.advance(hub.clock())
            if seat is not None:
                table.check_token(seat, token)
            return table.view(seat)

    # ---------------------------------------------------------------- pages
    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # ---------------------------------------------------------------- games
    @app.get("/api/envs")
    def envs() -> list[dict]:
        return [_env_entry(e) for e in names()]

    @app.get("/api/envs/{env_id}/rules", response_class=PlainTextResponse)
    def rules(env_id: str) -> str:
        return _rules_text(env_id)

    @app.post("/api/games", status_code=201)
    async def new_game(request: Request) -> dict:
        data = await body(request)
        if not isinstance(data, dict):
            raise WebError(400, "expected a JSON object {env_id, num_players, seats, options?, seed?, bot_delay?}")
        unknown = sorted(set(data) - {"env_id", "num_players", "seats", "options", "seed", "bot_delay"})
        if unknown:
            raise WebError(400, f"unknown field(s) {unknown}")

        def make() -> dict:
            key, table = hub.new_table(
                data.get("env_id"),
                data.get("num_players"),
                data.get("seats"),
                data.get("options"),
                data.get("seed"),
                data.get("bot_delay"),
            )
            view = table_view(table, None, None)
            return {"game_id": key, "tokens": {str(s): t for s, t in table.tokens.items()}, "view": view}

        return await run_in_threadpool(make)

    @app.get("/api/games/{game_id}")
    def game(game_id: str, seat: str | None = None, token: str | None = None) -> dict:
        return table_view(hub.table(game_id), _int(seat, "seat"), token)

    @app.post("/api/games/{game_id}/move")
    async def move(game_id: str, request: Request) -> dict:
        data = await body(request)
        if not isinstance(data, dict) or not {"seat", "token", "action", "move"} <= set(data):
            raise WebError(400, 'expected a JSON object {"seat", "token", "action", "move"}')

        def play() -> dict:
            table = hub.table(game_id)
            with table.lock:
                table.advance(hub.clock())
                table.move(data["seat"], data["token"], data["action"], data["move"], hub.clock())
                table.advance(hub.clock())
                return table.view(data["seat"])

        return await run_in_threadpool(play)

    @app.get("/api/games/{game_id}/board.png")
    def board(game_id: str) -> Response:
        table = hub.table(game_id)
        with table.lock:
            return Response(table.board_png(), media_type="image/png", headers={"Cache-Control": "no-store"})

    @app.get("/api/games/{game_id}/record")
    def record(game_id: str) -> JSONResponse:
        table = hub.table(game_id)
        with table.lock:
            if not table.record_allowed():
                raise WebError(403, "the record shows every hidden card and choice: it is given once the game is over")
            rec = table.record()
        return JSONResponse(rec, headers={"Content-Disposition": f'attachment; filename="{rec["env_id"]}_record.json"'})

    @app.post("/api/games/{game_id}/replay", status_code=201)
    def replay_game(game_id: str) -> dict:
        table = hub.table(game_id)
        with table.lock:
            if not table.state.is_terminal():
                raise WebError(409, "the game is not over yet")
            rec = table.record()
        key, rep = hub.new_replay(rec)
        return {"replay_id": key, "steps": len(rep.states) - 1}

    # ---------------------------------------------------------------- replays
    @app.post("/api/replays", status_code=201)
    async def upload(request: Request) -> dict:
        data = await body(request)
        key, rep = await run_in_threadpool(hub.new_replay, data)
        return {"replay_id": key, "steps": len(rep.states) - 1}

    @app.get("/api/replays/{replay_id}")
    def replay_view(replay_id: str, step: str | None = None, seat: str | None = None) -> dict:
        rep = hub.replay(replay_id)
        k = _int(step, "step")
        with rep.lock:
            return rep.view(len(rep.states) - 1 if k is None else k, _int(seat, "seat"))

    @app.get("/api/replays/{replay_id}/board.png")
    def replay_board(replay_id: str, step: str | None = None) -> Response:
        rep = hub.replay(replay_id)
        k = _int(step, "step")
        with rep.lock:
            png = rep.board_png(len(rep.states) - 1 if k is None else k)
        return Response(png, media_type="image/png")

    @app.get("/api/replays/{replay_id}/record")
    def replay_record(replay_id: str) -> JSONResponse:
        rep = hub.replay(replay_id)
        return JSONResponse(rep.record)

    return app
