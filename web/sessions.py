"""The server's state, without HTTP: live tables, replays, and the hub that holds them.

A :class:`Table` is one game being played: the rules state, a bot or a human at each seat, the game
record (every action, chance outcomes included) and a move log. Humans act through a per-seat token;
bots move when the table is looked at, one decision per ``bot_delay`` seconds, so a person watching
sees each move. A :class:`Replay` is a validated record stepped through. The :class:`Hub` holds both,
isolated from each other, and drops whatever has been idle longer than its timeout.

What a seat is told (the one rule of this module): the public text and the public picture of the
game (``str(state)`` and the rgb renderer, public by the seat-view contract), its own private part
(``game.seat_private``), the legal moves only when it is to move, and a log where a move's name is
shown only to the seats that can tell it apart from the mover's other choices (:func:`known_to`).
Bots play through ``core.bots.choose`` and so see only a ``resample_hidden`` view.
"""

from __future__ import annotations

import io
import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from boardzoo.envs import CHANCE, TERMINAL, BoardZooError, ConfigError, IllegalActionError, StateError, make_game
from boardzoo.envs.core.bots import choose
from boardzoo.envs.core.game import Game, State, as_action
from boardzoo.envs.core.records import check_record, replay

HUMAN = "human"
WITHHELD = (
    "(withheld: this game's public render would show a hidden card or choice to the players; "
    "the game must fix its render_text/render_rgb, see tests/conformance/test_seat_views.py)"
)
MAX_MCTS = 2000  # simulations per decision a table may ask of the server
MAX_ROLLOUT = 16  # heuristic playouts per candidate action a table may ask of the server
MAX_ALTERNATIVES = 64  # moves compared when deciding who can tell a move apart (see known_to)
MAX_REPLAY_STEPS = 20_000  # actions an uploaded record may hold
MAX_STEPS_PER_LOOK = 5_000  # bot/chance steps one request may run (a game longer than this just continues)


class WebError(BoardZooError):
    """A request the server refuses; ``status`` is the HTTP status (4xx) and nothing was changed."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def known_to(state: State, action: Any) -> frozenset[int]:
    """The seats that learn which move ``action`` was when it is applied in ``state`` (the mover
    included): seat ``v`` learns it when its observation after ``action`` differs from its
    observation after every other legal choice (or chance outcome). A secret bid or bet, a hidden
    card drawn, leaves the others' observations equal, so only the mover (nobody, for chance) sees
    its name. At most :data:`MAX_ALTERNATIVES` alternatives are compared; a chance node with more
    outcomes than that counts as hidden from everyone."""
    n = state.num_players
    mover = state.current_player()
    if state.is_chance_node():
        alts = [o for o, _ in state.chance_outcomes()]
        if len(alts) > MAX_ALTERNATIVES:
            return frozenset()
    else:
        alts = np.flatnonzero(state.legal_mask()).tolist()
    watchers = {v for v in range(n) if v != mover}
    after = state.clone()
    after.apply_action(action)
    seen = {v: after.observation(v) for v in watchers}
    for alt in alts[: MAX_ALTERNATIVES + 1]:
        if not watchers:
            break
        if alt == action:
            continue
        other = state.clone()
        other.apply_action(alt)
        watchers = {v for v in watchers if not np.array_equal(other.observation(v), seen[v])}
    return frozenset(watchers | ({mover} if mover >= 0 else set()))


def _name(state: State, action: Any) -> str:
    try:
        return state.action_to_string(action)
    except Exception:  # naming must never break a request
        return str(action)


def _json_safe(value: Any) -> Any:
    """A chance outcome as the JSON value a record stores (tuples as lists)."""
    return json.loads(json.dumps(as_action(value), default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)))


def png_bytes(rgb: np.ndarray) -> bytes:
    from PIL import Image  # the render extra

    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def check_seats(seats: Any, n: int) -> list[str]:
    """Validate a seat line-up: ``n`` entries, each ``human`` or a bot spec (random, heuristic,
    mcts[:N] with N <= MAX_MCTS, rollout[:N] with N <= MAX_ROLLOUT, neural[:PATH] only as ``neural``:
    the shipped bot)."""
    from boardzoo.training.bots import check_spec

    if not isinstance(seats, list) or len(seats) != n:
        raise WebError(400, f"seats: expected a list of {n} entries (human or a bot), got {seats!r}"[:300])
    out = []
    for i, s in enumerate(seats):
        if s == HUMAN:
            out.append(s)
            continue
        try:
            check_spec(s, key=f"seats[{i}]")
        except ConfigError as e:
            raise WebError(400, f"{e} (or {HUMAN})") from None
        kind, _, arg = s.partition(":")
        if kind == "neural" and arg:
            raise WebError(400, f"seats[{i}]: {s!r}: the server plays only the shipped bot ('neural')")
        if kind == "mcts" and arg and int(arg) > MAX_MCTS:
            raise WebError(400, f"seats[{i}]: {s!r}: at most {MAX_MCTS} MCTS simulations per decision here")
        if kind == "rollout" and arg and int(arg) > MAX_ROLLOUT:
            raise WebError(400, f"seats[{i}]: {s!r}: at most {MAX_ROLLOUT} playouts per candidate here")
        out.append(s)
    return out


@dataclass
class LogEntry:
    move: int  # number of actions before this one
    seat: int  # the mover, or CHANCE
    name: str
    known: frozenset[int]


@dataclass
class Table:
    """One live game (see the module docstring). Not thread-safe by itself: the hub locks it."""

    game: Game
    num_players: int
    seats: list[str]
    seed: int
    bot_delay: float
    tokens: dict[int, str] = field(default_factory=dict)
    state: State = field(init=False)
    rng: np.random.Generator = field(init=False)
    actions: list[Any] = field(default_factory=list)
    log: list[LogEntry] = field(default_factory=list)
    next_bot_at: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)
    _bots: dict[int, Any] = field(default_factory=dict)
    _png: tuple[int, bytes] | None = None
    _text: tuple[tuple[int, int | None], str] | None = None

    def __post_init__(self) -> None:
        from boardzoo.training.bots import make_bot

        self.rng = np.random.default_rng(self.seed)
        self._guard_rng = np.random.default_rng(self.seed + 2**32)
        self.state = self.game.new_initial_state(self.num_players)
        for s, kind in enumerate(self.seats):
            if kind == HUMAN:
                self.tokens[s] = secrets.token_urlsafe(12)
            else:
                try:
                    self._bots[s] = make_bot(kind, self.game, s, self.seed + 1 + s)
                except BoardZooError as e:
                    raise WebError(400, f"seats[{s}]: {kind}: {e}") from None
                except ImportError as e:
                    raise WebError(400, f"seats[{s}]: {kind} needs the bots extra (torch): {e}") from None

    # ------------------------------------------------------------ playing
    @property
    def humans(self) -> list[int]:
        return sorted(self.tokens)

    def _apply(self, action: Any) -> None:
        st = self.state
        entry = LogEntry(len(self.actions), st.current_player(), _name(st, action), known_to(st, action))
        st.apply_action(action)
        self.actions.append(_json_safe(action))
        self.log.append(entry)

    def advance(self, now: float) -> None:
        """Apply chance outcomes at once and bot moves one per ``bot_delay`` seconds, until a human
        is to move, the game is over or the next bot move is not due yet."""
        st = self.state
        for _ in range(MAX_STEPS_PER_LOOK):
            p = st.current_player()
            if p == TERMINAL:
                return
            if p == CHANCE:
                self._apply(st.sample_chance(self.rng))
                continue
            if p in self.tokens or now < self.next_bot_at:
                return
            self._apply(choose(self._bots[p], st, p, self.rng))
            self.next_bot_at = now + self.bot_delay

    def move(self, seat: int, token: str, action: Any, expect: Any, now: float) -> None:
        """A human's move. Refused (WebError, nothing changed) for a wrong token, a stale view
        (``expect`` is not the number of moves played), a seat not to move or an illegal action."""
        self.check_token(seat, token)
        if expect.__class__ is not int or expect != len(self.actions):
            raise WebError(
                409, f"stale move: your view is at move {expect!r}, the game is at move {len(self.actions)}; reload"
            )
        st = self.state
        if st.is_terminal():
            raise WebError(409, "the game is over")
        if st.current_player() != seat:
            raise WebError(409, f"it is not seat {seat}'s turn (to move: {self._to_move_text()})")
        if action.__class__ is not int or not st.is_legal(action):
            legal = np.flatnonzero(st.legal_mask()).tolist()
            raise WebError(422, f"illegal move {action!r} in phase {st.phase()!r}; legal moves: {legal[:40]}")
        try:
            self._apply(action)
        except IllegalActionError as e:  # is_legal said yes; the rules say no: still a clean refusal
            raise WebError(422, str(e)) from None
        self.next_bot_at = now + self.bot_delay

    def check_token(self, seat: Any, token: Any) -> None:
        if seat.__class__ is not int or seat not in self.tokens:
            raise WebError(403, f"seat {seat!r} is not a human seat of this game (human seats: {self.humans})")
        if not isinstance(token, str) or not secrets.compare_digest(token, self.tokens[seat]):
            raise WebError(403, f"wrong token for seat {seat}")

    def _to_move_text(self) -> str:
        p = self.state.current_player()
        return "nobody (game over)" if p == TERMINAL else ("chance" if p == CHANCE else f"seat {p}")

    # ------------------------------------------------------------ what a viewer gets
    def view(self, seat: int | None) -> dict:
        """What ``seat`` (already authenticated; None = a spectator) may see now."""
        st, g = self.state, self.game
        p = st.current_player()
        over = st.is_terminal()
        out: dict[str, Any] = {
            "kind": "table",
            "env_id": g.env_id,
            "name": g.name or g.env_id,
            "num_players": self.num_players,
            "options": dict(g.options),
            "seats": list(self.seats),
            "you": seat,
            "move": len(self.actions),
            "to_move": p,
            "deciders": st.deciders(),
            "phase": st.phase(),
            "over": over,
            "public_text": self._public_text(seat),
            "private_text": g.seat_private(st, seat) if seat is not None else "",
            "legal": [],
            "log": [self._log_line(e, seat) for e in self.log[-200:] if self._shown(e, seat)],
            "bot_thinking": (not over) and p >= 0 and p not in self.tokens,
            "record_allowed": self.record_allowed(),
        }
        if seat is not None and p == seat and not over:
            out["legal"] = [{"action": a, "name": _name(st, a)} for a in np.flatnonzero(st.legal_mask()).tolist()]
        if over:
            out["scores"] = [float(x) for x in st.scores()]
            out["winners"] = st.winners()
        return out

    def _leaks(self, show: Callable[[State], Any], judges: list[int]) -> bool:
        """Whether ``show(state)`` changes when the hidden part of a judge's view is re-dealt (a
        game whose public render breaks the seat-view contract; see tests/conformance/test_seat_views.py)."""
        st = self.state
        if st.is_terminal():
            return False
        mine = show(st)
        for h in judges:
            other = show(st.resample_hidden(h, self._guard_rng))
            if not np.array_equal(other, mine) if isinstance(mine, np.ndarray) else other != mine:
                return True
        return False

    def _public_text(self, seat: int | None) -> str:
        """``str(state)``, withheld from a table with humans when it would tell them a hidden part."""
        key = (len(self.actions), seat)
        if self._text is None or self._text[0] != key:
            judges = self.humans if seat is None else [seat]
            leaks = self._leaks(str, judges)
            self._text = (key, WITHHELD if leaks else str(self.state))
        return self._text[1]

    def _shown(self, e: LogEntry, seat: int | None) -> bool:
        return e.seat >= 0 or self._knows(e, seat)  # hidden chance events are left out

    def _knows(self, e: LogEntry, seat: int | None) -> bool:
        if seat is None:
            return len(e.known) == self.num_players
        return seat in e.known

    def _log_line(self, e: LogEntry, seat: int | None) -> dict:
        who = "chance" if e.seat < 0 else f"P{e.seat} ({self.seats[e.seat]})"
        text = e.name if self._knows(e, seat) else "(a secret choice)"
        return {"move": e.move, "seat": e.seat, "text": f"{who}: {text}"}

    def record_allowed(self) -> bool:
        """The record holds every hidden card and commit: given out once the game is over, or at any
        time for a game without a human seat (nobody at the table to learn from it)."""
        return self.state.is_terminal() or not self.tokens

    def record(self) -> dict:
        g = self.game
        return {
            "env_id": g.env_id,
            "version": g.version,
            "options": dict(g.options),
            "num_players": self.num_players,
            "seed": self.seed,
            "actions": list(self.actions),
        }

    def board_png(self) -> bytes:
        render = self.game.renderer()
        if render is None:
            raise WebError(404, f"{self.game.env_id} has no picture (no rgb renderer); the text view has it all")
        if self._png is None or self._png[0] != len(self.actions):
            if self._leaks(render, self.humans):
                raise WebError(403, WITHHELD)
            self._png = (len(self.actions), png_bytes(render(self.state)))
        return self._png[1]


@dataclass
class Replay:
    """A validated record and every state it passes through."""

    game: Game
    record: dict
    states: list[State]
    names: list[str]
    lock: threading.Lock = field(default_factory=threading.Lock)
    _png: dict[int, bytes] = field(default_factory=dict)

    @classmethod
    def load(cls, record: Any) -> Replay:
        """Validate ``record`` like ``records.replay`` does and step through it (WebError 400 names
        what is wrong; nothing is written anywhere)."""
        try:
            game = check_record(record)
            if len(record["actions"]) > MAX_REPLAY_STEPS:
                raise WebError(400, f"record field 'actions': more than {MAX_REPLAY_STEPS} actions")
            states: list[State] = []
            names: list[str] = []
            for i, st in enumerate(replay(record)):
                if i > 0:
                    before = states[-1]
                    who = before.current_player()
                    label = "chance" if who < 0 else f"P{who}"
                    names.append(f"{label}: {_name(before, record['actions'][i - 1])}")
                states.append(st)
        except IllegalActionError as e:
            raise WebError(400, f"record field 'actions[{len(states) - 1}]': {e}") from None
        except BoardZooError as e:
            if isinstance(e, WebError):
                raise
            raise WebError(400, f"bad record: {e}") from None
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as e:  # a record the rules trip over
            raise WebError(400, f"bad record ({type(e).__name__}: {e})") from None
        return cls(game, record, states, names)

    def step(self, k: Any) -> State:
        if k.__class__ is not int or not 0 <= k < len(self.states):
            raise WebError(400, f"step {k!r} is outside 0..{len(self.states) - 1}")
        return self.states[k]

    def view(self, k: int, seat: int | None) -> dict:
        st = self.step(k)
        g = self.game
        if seat is not None and not 0 <= seat < st.num_players:
            raise WebError(400, f"seat {seat!r} is outside 0..{st.num_players - 1}")
        out = {
            "kind": "replay",
            "env_id": g.env_id,
            "name": g.name or g.env_id,
            "num_players": st.num_players,
            "step": k,
            "steps": len(self.states) - 1,
            "phase": st.phase(),
            "to_move": st.current_player(),
            "public_text": str(st),
            # a record holds every secret, so a replay may show any seat's own view
            "private_text": g.seat_private(st, seat) if seat is not None else "",
            "last": self.names[k - 1] if k > 0 else "",
            "over": st.is_terminal(),
            "names": self.names,
        }
        if st.is_terminal():
            out["scores"] = [float(x) for x in st.scores()]
            out["winners"] = st.winners()
        return out

    def board_png(self, k: int) -> bytes:
        render = self.game.renderer()
        if render is None:
            raise WebError(404, f"{self.game.env_id} has no picture (no rgb renderer)")
        st = self.step(k)
        if k not in self._png:
            if len(self._png) > 64:
                self._png.clear()
            self._png[k] = png_bytes(render(st))
        return self._png[k]


class Hub:
    """Every table and replay of one server, by id; idle ones (not looked at for ``idle_timeout``
    seconds) are dropped on the next request, and at most ``max_items`` are kept."""

    def __init__(
        self,
        idle_timeout: float = 1800.0,
        bot_delay: float = 0.6,
        max_items: int = 64,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.idle_timeout = idle_timeout
        self.bot_delay = bot_delay
        self.max_items = max_items
        self.clock = clock
        self._items: dict[str, tuple[Table | Replay, float]] = {}
        self._lock = threading.Lock()

    def sweep(self) -> None:
        now = self.clock()
        with self._lock:
            for key in [k for k, (_, seen) in self._items.items() if now - seen > self.idle_timeout]:
                del self._items[key]

    def _add(self, item: Table | Replay) -> str:
        self.sweep()
        with self._lock:
            if len(self._items) >= self.max_items:
                raise WebError(429, f"the server holds {self.max_items} games and replays; try again later")
            key = secrets.token_urlsafe(9)
            self._items[key] = (item, self.clock())
        return key

    def _get(self, key: str, cls: type) -> Any:
        self.sweep()
        with self._lock:
            got = self._items.get(key)
            if got is None or not isinstance(got[0], cls):
                what = "game" if cls is Table else "replay"
                raise WebError(404, f"no {what} {key!r} here (finished long ago, dropped when idle, or never made)")
            self._items[key] = (got[0], self.clock())
            return got[0]

    def __len__(self) -> int:
        return len(self._items)

    # ------------------------------------------------------------ tables
    def new_table(
        self,
        env_id: Any,
        num_players: Any,
        seats: Any,
        options: Any = None,
        seed: Any = None,
        bot_delay: Any = None,
    ) -> tuple[str, Table]:
        from boardzoo.envs import names
        from boardzoo.training.bots import default_options

        if not isinstance(env_id, str) or env_id not in names():
            raise WebError(404, f"unknown game {env_id!r}; games here: {names()}")
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise WebError(400, "options: expected an object of game options")
        try:
            make_game(env_id).check_players(num_players)
        except BoardZooError as e:
            raise WebError(400, str(e)) from None
        lineup = check_seats(seats, num_players)
        try:  # a shipped bot brings the options it was trained with; the user's own options win
            game = make_game(env_id, **{**default_options(env_id, lineup), **options})
        except BoardZooError as e:
            raise WebError(400, str(e)) from None
        if seed is None:
            seed = secrets.randbelow(2**31)
        if seed.__class__ is not int or not 0 <= seed < 2**63:
            raise WebError(400, f"seed: expected a non-negative int, got {seed!r}")
        delay = self.bot_delay if bot_delay is None else bot_delay
        if delay.__class__ not in (int, float) or not 0 <= delay <= 10:
            raise WebError(400, f"bot_delay: expected seconds in 0..10, got {delay!r}")
        table = Table(game, num_players, lineup, seed, float(delay))
        table.next_bot_at = self.clock() + table.bot_delay
        return self._add(table), table

    def table(self, key: str) -> Table:
        return self._get(key, Table)

    # ------------------------------------------------------------ replays
    def new_replay(self, record: Any) -> tuple[str, Replay]:
        rep = Replay.load(record)
        return self._add(rep), rep

    def replay(self, key: str) -> Replay:
        return self._get(key, Replay)


def parse_json(body: bytes, limit: int) -> Any:
    """A request body as JSON (WebError 413 past ``limit`` bytes, 400 when it is not JSON)."""
    if len(body) > limit:
        raise WebError(413, f"the request body is {len(body)} bytes; at most {limit} are accepted")
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as e:
        raise WebError(400, f"the request body is not JSON: {e}") from None


__all__ = ["HUMAN", "Hub", "Replay", "StateError", "Table", "WebError", "known_to", "parse_json"]
