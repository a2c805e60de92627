"""The web API through the framework's test client (``boardzoo.web``, the web extra): lobby, games,
moves (legal, illegal, stale, out of turn), what each seat is told, idle games, replays and bad
records. Every refusal is a 4xx with a message and changes nothing."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")

with warnings.catch_warnings():  # starlette's test client now prefers httpx2; httpx still works
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from boardzoo.envs import make, names  # noqa: E402
from boardzoo.web.app import create_app  # noqa: E402
from boardzoo.web.sessions import Hub  # noqa: E402


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture()
def clock():
    return Clock()


@pytest.fixture()
def hub(clock):
    return Hub(idle_timeout=60, bot_delay=0, max_items=8, clock=clock)


@pytest.fixture()
def client(hub):
    return TestClient(create_app(hub))


def new_game(client, env_id="hydropolis_v0", seats=("human", "random"), seed=3, **extra):
    r = client.post(
        "/api/games", json={"env_id": env_id, "num_players": len(seats), "seats": list(seats), "seed": seed, **extra}
    )
    assert r.status_code == 201, r.text
    d = r.json()
    return d["game_id"], {int(k): v for k, v in d["tokens"].items()}


def view(client, gid, seat=None, token=None):
    params = {} if seat is None else {"seat": seat, "token": token}
    r = client.get(f"/api/games/{gid}", params=params)
    assert r.status_code == 200, r.text
    return r.json()


def move(client, gid, seat, token, action, at):
    return client.post(f"/api/games/{gid}/move", json={"seat": seat, "token": token, "action": action, "move": at})


def refused(r, status, words):
    assert r.status_code == status, r.text
    msg = r.json()["error"]
    assert words.lower() in msg.lower(), msg
    return msg


def play_out(client, gid, tokens, rng):
    """Play every human seat at random until the end; returns the last view."""
    while True:
        views = [view(client, gid, s, t) for s, t in tokens.items()]
        v = next((x for x in views if x["legal"]), views[0])
        if v["over"]:
            return v
        a = v["legal"][int(rng.integers(len(v["legal"])))]["action"]
        r = move(client, gid, v["you"], tokens[v["you"]], a, v["move"])
        assert r.status_code == 200, r.text


# ------------------------------------------------------------------ lobby
def test_lobby_lists_every_game_with_players_options_and_bots(client):
    r = client.get("/")
    assert r.status_code == 200 and "<title>BoardZoo</title>" in r.text
    assert client.get("/static/app.js").status_code == 200
    envs = {e["env_id"]: e for e in client.get("/api/envs").json()}
    assert set(envs) == set(names())
    hy = envs["hydropolis_v0"]
    assert hy["players"][0] <= 2 <= hy["players"][1]
    assert {"human", "random", "heuristic", "mcts", "neural"} <= set(hy["bots"])
    assert hy["neural"] is True and hy["options"]
    assert "Hydropolis" in client.get("/api/envs/hydropolis_v0/rules").text
    refused(client.get("/api/envs/nope_v0/rules"), 404, "unknown game")


# ------------------------------------------------------------------ new games
@pytest.mark.parametrize(
    "body,status,words",
    [
        ({"env_id": "nope_v0", "num_players": 2, "seats": ["human", "random"]}, 404, "unknown game"),
        ({"env_id": "hydropolis_v0", "num_players": 2, "seats": ["human"]}, 400, "seats"),
        ({"env_id": "hydropolis_v0", "num_players": 2, "seats": ["human", "wizard"]}, 400, "unknown bot"),
        ({"env_id": "hydropolis_v0", "num_players": 2, "seats": ["human", "mcts:99999"]}, 400, "at most"),
        ({"env_id": "hydropolis_v0", "num_players": 2, "seats": ["human", "neural:/etc"]}, 400, "shipped bot"),
        ({"env_id": "hydropolis_v0", "num_players": 99, "seats": ["human"] * 99}, 400, "num_players"),
        (
            {"env_id": "hydropolis_v0", "num_players": 2, "seats": ["human", "random"], "options": {"x": 1}},
            400,
            "unknown option",
        ),
        ({"env_id": "hydropolis_v0", "num_players": 2, "seats": ["human", "random"], "seed": -4}, 400, "seed"),
        ({"env_id": "hydropolis_v0", "num_players": 2, "seats": ["human", "random"], "evil": 1}, 400, "unknown field"),
        ([1, 2], 400, "expected a JSON object"),
    ],
)
def test_bad_new_game_is_refused_and_makes_nothing(client, hub, body, status, words):
    refused(client.post("/api/games", json=body), status, words)
    assert len(hub) == 0


def test_malformed_json_and_oversized_bodies_are_refused(client, hub):
    refused(client.post("/api/games", content=b"{not json"), 400, "not JSON")
    refused(client.post("/api/replays", content=b"[" * 5_000_001), 413, "at most")
    assert len(hub) == 0


def test_unknown_game_id_is_404(client):
    refused(client.get("/api/games/nope"), 404, "no game")
    refused(move(client, "nope", 0, "t", 1, 0), 404, "no game")
    refused(client.get("/api/replays/nope"), 404, "no replay")


# ------------------------------------------------------------------ moves
def test_legal_move_is_applied_and_logged(client):
    gid, tokens = new_game(client)
    v = view(client, gid, 0, tokens[0])
    assert v["to_move"] == 0 and v["legal"], "seed 3: seat 0 starts"
    a = v["legal"][0]
    r = move(client, gid, 0, tokens[0], a["action"], v["move"])
    assert r.status_code == 200, r.text
    after = r.json()
    assert after["move"] > v["move"]
    assert any(a["name"] in e["text"] for e in after["log"])


def test_illegal_out_of_turn_wrong_token_and_stale_moves_change_nothing(client, hub):
    gid, tokens = new_game(client, seats=("human", "human"))
    v = view(client, gid, 0, tokens[0])
    p = v["to_move"]
    q = 1 - p
    before = hub.table(gid).state.to_dict()
    legal = {m["action"] for m in view(client, gid, p, tokens[p])["legal"]}
    bad = next(a for a in range(10_000) if a not in legal)
    refused(move(client, gid, p, tokens[p], bad, v["move"]), 422, "illegal move")
    refused(move(client, gid, p, tokens[p], "1", v["move"]), 422, "illegal move")
    refused(move(client, gid, p, tokens[p], 1.0, v["move"]), 422, "illegal move")
    refused(move(client, gid, q, tokens[q], min(legal), v["move"]), 409, "not seat")
    refused(move(client, gid, p, tokens[q], min(legal), v["move"]), 403, "wrong token")
    refused(move(client, gid, 7, tokens[p], min(legal), v["move"]), 403, "not a human seat")
    refused(move(client, gid, p, tokens[p], min(legal), v["move"] - 1), 409, "stale")
    refused(client.post(f"/api/games/{gid}/move", json={"seat": p}), 400, "expected")
    refused(client.get(f"/api/games/{gid}", params={"seat": p, "token": "guess"}), 403, "wrong token")
    refused(client.get(f"/api/games/{gid}", params={"seat": "x"}), 400, "integer")
    assert hub.table(gid).state.to_dict() == before
    assert view(client, gid)["move"] == v["move"]
    # the same move, made once, is then stale for a second click
    assert move(client, gid, p, tokens[p], min(legal), v["move"]).status_code == 200
    refused(move(client, gid, p, tokens[p], min(legal), v["move"]), 409, "stale")


def test_bots_move_one_per_delay(clock):
    hub = Hub(bot_delay=5.0, clock=clock)
    client = TestClient(create_app(hub))
    gid, _ = new_game(client, env_id="hidden_castle_v0", seats=("random", "random"))
    m0 = view(client, gid)["move"]
    assert view(client, gid)["move"] == m0, "no bot move before the delay"
    clock.t += 5.0
    m1 = view(client, gid)["move"]
    assert m1 > m0
    assert view(client, gid)["move"] == m1


def test_games_are_isolated_and_idle_ones_are_dropped(client, clock, hub):
    a, ta = new_game(client, seats=("human", "human"), seed=1)
    b, tb = new_game(client, seats=("human", "human"), seed=1)
    va, vb = view(client, a), view(client, b)
    p = va["to_move"]
    act = view(client, a, p, ta[p])["legal"][0]["action"]
    assert move(client, a, p, ta[p], act, va["move"]).status_code == 200
    assert view(client, b) == vb, "a move in one game leaves the other alone"
    refused(move(client, b, p, ta[p], act, vb["move"]), 403, "wrong token")  # tokens are per game
    clock.t += 45
    view(client, b)  # b is looked at, a is not
    clock.t += 30
    refused(client.get(f"/api/games/{a}"), 404, "no game")
    assert view(client, b)["move"] == vb["move"]


def test_the_server_holds_a_bounded_number_of_games(client, hub):
    for _ in range(hub.max_items):
        new_game(client, seats=("random", "random"), bot_delay=5)
    body = {"env_id": "hydropolis_v0", "num_players": 2, "seats": ["random", "random"], "bot_delay": 5}
    r = client.post("/api/games", json=body)
    refused(r, 429, "try again later")


# ------------------------------------------------------------------ hidden information
def test_a_seat_never_receives_another_seats_hand(client, hub):
    gid, tokens = new_game(client, seats=("human", "human"), seed=5)
    v0, v1, spectator = view(client, gid, 0, tokens[0]), view(client, gid, 1, tokens[1]), view(client, gid)
    st = hub.table(gid).state
    assert v0["private_text"].startswith("your hand (player 0") and v1["private_text"].startswith("your hand (player 1")
    assert v0["private_text"] not in json.dumps(v1) and v0["private_text"] not in json.dumps(spectator)
    assert v1["private_text"] not in json.dumps(v0)
    assert spectator["private_text"] == ""
    # the deal: each seat sees the names of its own cards drawn, never the other's
    deck = st.game.deck
    for v, me in ((v0, 0), (v1, 1)):
        drawn = [e["text"] for e in v["log"] if e["seat"] == -1 and e["text"].startswith("chance: draw")]
        assert len(drawn) == int(st.hand_sizes[me]) + 1, "own cards and the public start card"
    assert not any("chance: draw" in e["text"] for e in spectator["log"][:-1] if e["move"] < 6)
    # what seat 1 is sent does not change when seat 0's hand (and the pile) are re-dealt
    table = hub.table(gid)
    real = table.state
    for seed in range(5):
        table.state = real.resample_hidden(1, np.random.default_rng(seed))
        table._text = None
        again = table.view(1)
        assert again["public_text"] == v1["public_text"] and again["private_text"] == v1["private_text"]
    table.state = real
    assert deck is not None
    refused(client.get(f"/api/games/{gid}/record"), 403, "once the game is over")


def test_secret_choices_show_only_to_their_maker_until_revealed(client):
    """Voll verplant: the seats choose in secret (VV-R10); the log names a choice only to its maker."""
    gid, tokens = new_game(client, env_id="voll_verplant_v0", seats=("human", "human"), seed=2)
    v0 = view(client, gid, 0, tokens[0])
    assert v0["to_move"] == 0 and v0["legal"]
    a = v0["legal"][0]
    after = move(client, gid, 0, tokens[0], a["action"], v0["move"]).json()
    v1 = view(client, gid, 1, tokens[1])
    assert after["log"][-1]["text"] == f"P0 (human): {a['name']}"
    assert v1["log"][-1]["text"] == "P0 (human): (a secret choice)"
    assert a["name"] not in json.dumps(v1["log"])
    assert "secret" in view(client, gid)["log"][-1]["text"]  # a spectator neither


# ------------------------------------------------------------------ whole games, records and replays
@pytest.mark.parametrize("env_id", ["hidden_castle_v0", "get_on_board_v0"])
def test_full_game_then_record_then_replay(client, env_id):
    gid, tokens = new_game(client, env_id=env_id, seats=("human", "heuristic"), seed=4)
    last = play_out(client, gid, tokens, np.random.default_rng(0))
    assert last["over"] and last["winners"] and len(last["scores"]) == 2
    png = client.get(f"/api/games/{gid}/board.png")
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
    rec = client.get(f"/api/games/{gid}/record").json()
    assert rec["env_id"] == env_id and len(rec["actions"]) == last["move"]
    r = client.post("/api/replays", json=rec)
    assert r.status_code == 201, r.text
    rid, steps = r.json()["replay_id"], r.json()["steps"]
    assert steps == last["move"]
    end = client.get(f"/api/replays/{rid}").json()
    assert end["over"] and end["winners"] == last["winners"] and end["scores"] == last["scores"]
    start = client.get(f"/api/replays/{rid}", params={"step": 0, "seat": 1}).json()
    assert start["step"] == 0 and not start["over"]
    assert client.get(f"/api/replays/{rid}/board.png", params={"step": 3}).content.startswith(b"\x89PNG")
    refused(client.get(f"/api/replays/{rid}", params={"step": steps + 1}), 400, "outside")
    refused(client.get(f"/api/replays/{rid}", params={"seat": 5}), 400, "outside")
    assert client.post(f"/api/games/{gid}/replay").status_code == 201


def test_replay_of_an_env_record(client):
    env = make("hydropolis_v0", num_players=2)
    env.reset(seed=11)
    rng = np.random.default_rng(1)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    rec = env.unwrapped.save_record()
    r = client.post("/api/replays", json=rec)
    assert r.status_code == 201, r.text
    v = client.get(f"/api/replays/{r.json()['replay_id']}").json()
    assert v["over"] and v["steps"] == len(rec["actions"]) and len(v["names"]) == v["steps"]


def _good_record():
    return {"env_id": "hidden_castle_v0", "version": 0, "options": {}, "num_players": 2, "seed": 1, "actions": []}


@pytest.mark.parametrize(
    "mutate,words",
    [
        (lambda r: [r], "JSON object"),
        (lambda r: {k: v for k, v in r.items() if k != "actions"}, "actions"),
        (lambda r: {**r, "env_id": "nope_v0"}, "not a registered env"),
        (lambda r: {**r, "version": 99}, "version"),
        (lambda r: {**r, "num_players": 40}, "num_players"),
        (lambda r: {**r, "options": {"bogus": True}}, "option"),
        (lambda r: {**r, "actions": [10_000]}, "actions[0]"),
        (lambda r: {**r, "actions": [[[[[[[[[[[1]]]]]]]]]]]}, "nested"),
        (lambda r: {**r, "start": {"env_id": "hidden_castle_v0"}}, "start"),
        (lambda r: {**r, "actions": [0] * 20_001}, "actions"),
    ],
)
def test_bad_records_are_refused_and_make_nothing(client, hub, tmp_path, monkeypatch, mutate, words):
    monkeypatch.chdir(tmp_path)
    refused(client.post("/api/replays", json=mutate(_good_record())), 400, words)
    assert len(hub) == 0
    assert list(tmp_path.iterdir()) == [], "an upload is never written to disk"


def test_record_of_a_bots_only_game_is_given_at_any_time(client):
    gid, _ = new_game(client, seats=("random", "random"), bot_delay=5)
    assert client.get(f"/api/games/{gid}/record").status_code == 200
    refused(client.post(f"/api/games/{gid}/replay"), 409, "not over")


def test_downforce_bids_stay_secret_until_the_reveal(client, hub):
    """Downforce: one-card bids are secret until every seat has bid; another seat's view never names
    the card, the spectator's neither, and the bidder's own view does."""
    gid, tokens = new_game(client, env_id="downforce_v0", seats=("human", "human"), seed=6)
    while True:
        v = next(x for x in (view(client, gid, s, t) for s, t in tokens.items()) if x["legal"] or x["over"])
        if v["phase"] == "auction" and len(hub.table(gid).state.deciders()) == 2:
            break
        a = v["legal"][0]["action"]
        assert move(client, gid, v["you"], tokens[v["you"]], a, v["move"]).status_code == 200
    p, q = v["you"], 1 - v["you"]
    bid = v["legal"][-1]
    mine = move(client, gid, p, tokens[p], bid["action"], v["move"]).json()
    other, spectator = view(client, gid, q, tokens[q]), view(client, gid)
    assert bid["name"].startswith("BID") and mine["log"][-1]["text"] == f"P{p} (human): {bid['name']}"
    card = bid["name"].split(" ", 1)[1]  # "#46 [Orange8]"
    assert f"your secret bid: {card}" in mine["private_text"], "the bidder's own seat view"
    for seen in (other, spectator):
        assert seen["log"][-1]["text"] == f"P{p} (human): (a secret choice)"
        assert card not in json.dumps(seen), "another seat learns the secret bid"


def test_a_neural_seat_plays_under_its_cards_options(client):
    pytest.importorskip("torch", reason="the shipped bot needs the bots extra (torch)")
    gid, tokens = new_game(client, env_id="hydropolis_v0", seats=("human", "neural"), seed=3)
    v = view(client, gid, 0, tokens[0])
    assert v["options"]["action_features"] is True, "the shipped bot's card options"
    for _ in range(6):  # seed 3: seat 0 starts; after its turn (select, lay) the bot answers
        if any(e["seat"] == 1 for e in v["log"]):
            break
        v = move(client, gid, 0, tokens[0], v["legal"][0]["action"], v["move"]).json()
    assert any(e["seat"] == 1 for e in v["log"]), "the neural bot moved"
