"""Rule tests of Challengers! (``challengers_v0``), one or more per rule ID of the spec (CH-R*, CH-V*),
built from readable positions through the public API: actions, chance outcomes named by card, and
``state_from_dict`` for decks given by card names (every saved state is checked by the game's
invariants when it loads)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from boardzoo.envs import ConfigError, make
from boardzoo.envs.challengers import ChallengersGame
from boardzoo.envs.challengers.rules import (
    A_PICK,
    A_REDRAW,
    A_REMOVE,
    A_STOP,
    REMOVED,
    Phase,
    pairings,
)

GAME = ChallengersGame()


def tid(name: str, game: ChallengersGame = GAME) -> int:
    return game.type_names.index(name)


def idle(st, rng=None, stop_at=None):
    """Play on: chance sampled, every decision the cheapest (option 1, stop, done) until
    ``stop_at(st)`` holds or the game ends."""
    rng = rng or np.random.default_rng(0)
    g = st.game
    while not st.is_terminal() and not (stop_at and stop_at(st)):
        if st.is_chance_node():
            st.apply_action(st.sample_chance(rng))
        elif st.phase_id == Phase.CHOOSE:
            st.apply_action(0)
        elif st.phase_id == Phase.PICK:
            st.apply_action(A_STOP)
        else:
            st.apply_action(g.a_done)
    return st


def at_first_match(n=2, game=GAME, seed=0):
    st = game.new_initial_state(n)
    return idle(st, np.random.default_rng(seed), stop_at=lambda s: s.phase_id in (Phase.STARTER, Phase.REVEAL))


def with_decks(st, decks: dict[int, dict[str, int]]):
    """The same position with participants' decks replaced (pool cards taken from their piles)."""
    g = st.game
    d = json.loads(st.to_json())
    T = g.num_types
    for p, cards in decks.items():
        deck = [0] * g.all_types
        for name, c in cards.items():
            deck[tid(name, g)] += c
        old = d["decks"][p]
        for t in range(T):
            if g.level[t] != 0:
                d["pile"][t] -= deck[t] - old[t]
        for t in range(T, g.all_types):
            deck[t] = old[t]
        d["decks"][p] = deck
        if p < st.num_players:
            d["public"][p] = deck[:T]
    if d["phase"] in (Phase.STARTER, Phase.REVEAL):
        a, b = st.pairs()[st.match]
        d["undrawn"] = [list(d["decks"][a]), list(d["decks"][b])]
    return g.state_from_dict(d)


def reveal(st, names):
    for name in names:
        assert st.phase_id == Phase.REVEAL, st.phase()
        st.apply_action(tid(name, st.game))


def seat_of_side(st, side):
    return st.pairs()[st.match][side]


# ---------------------------------------------------------------------------- deck phase
def test_CH_R1_deck_phases_in_turn_from_the_round_seat():
    st = GAME.new_initial_state(3)
    idle(st, stop_at=lambda s: s.current_player() >= 0)
    assert st.round == 1 and st.current_player() == 0
    order = []
    while st.round == 1 or st.current_player() < 0:
        if st.current_player() >= 0 and (not order or order[-1] != st.current_player()):
            order.append(st.current_player())
        if st.is_chance_node():
            st.apply_action(st.sample_chance(np.random.default_rng(1)))
        elif st.phase_id == Phase.PICK:
            st.apply_action(A_STOP)
        else:
            st.apply_action(st.game.a_done)
    assert order == [0, 1, 2]
    assert st.round == 2 and st.current_player() == 1  # round 2 starts with seat (2-1) mod 3


def test_CH_R2_two_options_chosen_before_drawing():
    st = GAME.new_initial_state(2)
    idle(st, stop_at=lambda s: s.round == 3 and s.current_player() >= 0)
    assert st.phase_id == Phase.CHOOSE
    assert np.flatnonzero(st.legal_mask()).tolist() == [0, 1]
    st.apply_action(1)  # B x1
    assert st.is_chance_node() and st.phase_id == Phase.DRAW
    assert all(GAME.level[t] == 2 for t, _ in st.chance_outcomes())
    # a one-option round draws at once
    st2 = GAME.new_initial_state(2)
    idle(st2, stop_at=lambda s: s.phase_id == Phase.DRAW)
    assert st2.round == 1 and st2.option == 0


def test_CH_R3_five_cards_and_the_discard_under_a_short_pile():
    st = GAME.new_initial_state(2)
    idle(st, stop_at=lambda s: s.phase_id == Phase.DRAW)
    outs = dict(st.chance_outcomes())
    assert outs[tid("Star Pup")] == pytest.approx(5 / 49) and outs[tid("Rookie")] == pytest.approx(4 / 49)
    for name in ("Rookie", "Medic", "Ghost", "Clown", "Rookie"):
        st.apply_action(tid(name))
    assert [GAME.type_names[t] for t in st.display] == ["Rookie", "Medic", "Ghost", "Clown", "Rookie"]
    assert st.phase_id == Phase.PICK
    # a short pile: only 2 A cards left, 3 in the discard; the discard goes under the pile
    d = json.loads(GAME.new_initial_state(2).to_json())
    a_types = GAME.level_types[1]
    for t in a_types:
        d["discard"][t], d["pile"][t] = 0, 0
    d["pile"][tid("Rookie")] = 2
    d["discard"][tid("Ghost")] = 3
    for t in a_types:  # the other A cards are out in a deck (seat 0)
        rest = GAME.count[t] - d["pile"][t] - d["discard"][t]
        d["decks"][0][t] += rest
        d["public"][0][t] += rest
    st = GAME.state_from_dict(d)
    idle(st, stop_at=lambda s: s.phase_id == Phase.DRAW)
    assert st.chance_outcomes() == [(tid("Rookie"), 1.0)]
    st.apply_action(tid("Rookie"))
    st.apply_action(tid("Rookie"))
    assert st.chance_outcomes() == [(tid("Ghost"), 1.0)]  # the discard, shuffled under
    for _ in range(3):
        st.apply_action(tid("Ghost"))
    assert st.phase_id == Phase.PICK and sum(st.pile) - sum(st.pile[t] for t in a_types) == sum(st.pile)


def test_CH_R3_fewer_cards_when_pile_and_discard_are_short():
    d = json.loads(GAME.new_initial_state(2).to_json())
    for t in GAME.level_types[1]:
        d["decks"][0][t] += d["pile"][t]
        d["public"][0][t] += d["pile"][t]
        d["pile"][t] = 0
    d["decks"][0][tid("Rookie")] -= 1
    d["public"][0][tid("Rookie")] -= 1
    d["pile"][tid("Rookie")] = 1
    st = idle(GAME.state_from_dict(d), stop_at=lambda s: s.phase_id == Phase.DRAW)
    st.apply_action(tid("Rookie"))
    assert st.phase_id == Phase.PICK and [t for t in st.display if t >= 0] == [tid("Rookie")]


def _at_pick(n=2):
    st = GAME.new_initial_state(n)
    idle(st, stop_at=lambda s: s.phase_id == Phase.DRAW)
    for name in ("Rookie", "Medic", "Ghost", "Clown", "Juggler"):
        st.apply_action(tid(name))
    return st


def test_CH_R4_pick_up_to_k_then_stop_or_end_by_itself():
    st = _at_pick()
    seat = st.current_player()
    m = st.legal_mask()
    assert [a for a in range(A_PICK, A_PICK + 5) if m[a]] == list(range(A_PICK, A_PICK + 5)) and m[A_STOP]
    st.apply_action(A_PICK + 0)
    assert st.decks[seat][tid("Rookie")] == 1 and st.display[0] == -1 and st.phase_id == Phase.PICK
    assert not st.legal_mask()[A_PICK + 0]
    st.apply_action(A_PICK + 2)  # the second pick of A x2 ends picking
    assert st.phase_id == Phase.REMOVE and st.decks[seat][tid("Ghost")] == 1


def test_CH_R5_redraw_once_into_the_unpicked_slots():
    st = _at_pick()
    st.apply_action(A_PICK + 1)  # Medic picked; slot 1 stays empty
    assert st.legal_mask()[A_REDRAW]
    disc = list(st.discard)
    st.apply_action(A_REDRAW)
    for name in ("Rookie", "Ghost", "Clown", "Juggler"):
        assert st.discard[tid(name)] == disc[tid(name)] + 1
    assert st.phase_id == Phase.DRAW and st.fill == [0, 2, 3, 4]
    for name in ("Star Pup", "Alien Kid", "Strongman", "Caretaker"):
        st.apply_action(tid(name))
    assert [GAME.type_names[t] if t >= 0 else None for t in st.display] == [
        "Star Pup",
        None,
        "Alien Kid",
        "Strongman",
        "Caretaker",
    ]
    assert st.phase_id == Phase.PICK and not st.legal_mask()[A_REDRAW]  # once per deck phase


def test_CH_R6_unpicked_cards_go_to_the_discard():
    st = _at_pick()
    disc = list(st.discard)
    st.apply_action(A_PICK + 4)
    st.apply_action(A_STOP)
    for name in ("Rookie", "Medic", "Ghost", "Clown"):
        assert st.discard[tid(name)] == disc[tid(name)] + 1
    assert st.display == [-1] * 5 and st.phase_id == Phase.REMOVE


def test_CH_R7_selected_effects_resolve_when_picked():
    st = GAME.new_initial_state(2)
    idle(st, stop_at=lambda s: s.phase_id == Phase.DRAW)
    seat = st.seat
    for name in ("Scout Drone", "Rookie", "Rookie", "Rookie", "Rookie"):
        st.apply_action(tid(name))
    st.apply_action(A_PICK + 0)  # RECRUIT: the top A card joins the deck too
    assert st.phase_id == Phase.RECRUIT and st.is_chance_node()
    st.apply_action(tid("Scout Drone"))  # a recruited Scout Drone recruits nothing
    assert st.decks[seat][tid("Scout Drone")] == 2 and st.phase_id == Phase.PICK
    # Comet: Selected FANS 1 (a B card, round 4)
    st = GAME.new_initial_state(2)
    idle(st, stop_at=lambda s: s.round == 4 and s.phase_id == Phase.DRAW)
    seat = st.seat
    tokens = st.tokens[seat]
    for name in ("Comet", "Veteran", "Veteran", "Veteran", "Veteran"):
        st.apply_action(tid(name))
    st.apply_action(A_PICK + 0)
    assert st.tokens[seat] == tokens + 1


def test_CH_R8_removals_keep_one_card_starters_leave_the_game():
    st = _at_pick()
    seat = st.seat
    st.apply_action(A_PICK + 0)  # Rookie
    st.apply_action(A_STOP)
    disc = list(st.discard)
    st.apply_action(A_REMOVE + tid("Newcomer"))
    assert st.decks[seat][tid("Newcomer")] == 2 and st.discard == disc  # left the game
    st.apply_action(A_REMOVE + tid("Rookie"))
    assert st.discard[tid("Rookie")] == disc[tid("Rookie")] + 1  # to its level's discard
    while sum(st.decks[seat]) > 1:
        st.apply_action(int(np.flatnonzero(st.legal_mask()[A_REMOVE : GAME.a_done])[0]) + A_REMOVE)
    m = st.legal_mask()
    assert np.flatnonzero(m).tolist() == [GAME.a_done]  # at least 1 card stays


# ---------------------------------------------------------------------------- matches
def test_CH_R9_one_match_per_participant_per_round():
    for p in (2, 4, 6, 8):
        for r in range(1, 8):
            seats = [s for pair in pairings(p, r, "circle") for s in pair]
            assert sorted(seats) == list(range(p))
    met = {frozenset(pair) for r in range(1, 8) for pair in pairings(8, r, "circle")}
    assert len(met) == 28  # 8 participants: everyone meets everyone once
    assert pairings(2, 5, "circle") == [(1, 0)]
    assert pairings(4, 1, "circle") == [(3, 0), (1, 2)]
    st = at_first_match(3)  # 3 players + the bot: two matches in round 1
    assert st.pairs() == [(3, 0), (1, 2)] and st.bot == 3


def test_CH_R10_match_starts_with_shuffled_decks_and_empty_benches():
    st = at_first_match()
    a, b = st.pairs()[0]
    assert st.undrawn == [st.decks[a], st.decks[b]]
    assert all(t == -1 for bench in st.bench for t, _ in bench) and st.flag == -1
    st.apply_action(0)
    assert dict(st.chance_outcomes()) == {
        tid("Newcomer"): 0.5,
        tid("Talent"): 1 / 6,
        tid("Dog"): 1 / 6,
        tid("Champion"): 1 / 6,
    }


def test_CH_R11_the_later_trophy_starts_else_random():
    st = at_first_match()
    assert st.phase_id == Phase.STARTER and st.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    st = idle(st, np.random.default_rng(3), stop_at=lambda s: s.round == 2 and s.phase_id == Phase.REVEAL)
    a, b = st.pairs()[0]
    winner = a if st.trophies[0].count(a) else b
    assert st.starter == (0 if winner == a else 1)  # no random starter: the round-1 winner starts


def test_CH_R12_the_starter_reveals_the_flag_card_and_its_effect_resolves():
    st = with_decks(at_first_match(), {0: {"Clown": 1, "Rookie": 1}, 1: {"Rookie": 2}})
    st.apply_action(1)  # side 1 (seat 0) starts
    assert seat_of_side(st, 1) == 0
    reveal(st, ["Clown"])
    assert st.flag == 1 and st.stack == [[tid("Clown"), 0]] and st.tokens[0] == 1


def test_CH_R13_CH_R17_attack_card_by_card_until_the_total_reaches_the_defence():
    st = with_decks(at_first_match(), {0: {"Champion": 1, "Rookie": 1}, 1: {"Newcomer": 3, "Dog": 1}})
    st.apply_action(1)  # seat 0 starts with Champion (4)
    reveal(st, ["Champion", "Newcomer"])
    assert st.attack_total() == 1 and st.flag == 1
    reveal(st, ["Newcomer"])
    assert st.attack_total() == 2 and st.flag == 1
    reveal(st, ["Newcomer"])  # 3 < 4
    assert st.flag == 1
    reveal(st, ["Dog"])  # 6 >= 4: the attack succeeds
    assert st.flag == 0 and [t for t, _ in st.stack][-1] == tid("Dog")


def test_CH_R14_swarm_adds_per_other_card_in_the_attack():
    st = with_decks(at_first_match(), {0: {"Superstar": 1}, 1: {"Cheerleader": 1, "Newcomer": 3}})
    st.apply_action(1)
    reveal(st, ["Superstar", "Newcomer", "Cheerleader"])
    assert st.attack_total() == 1 + 2 + 1  # Cheerleader: SWARM 1 for the one other card
    reveal(st, ["Newcomer"])
    assert st.attack_total() == 1 + 2 + 1 + 2


def test_CH_R15_defence_is_the_flag_card_alone():
    st = with_decks(at_first_match(), {0: {"Newcomer": 2, "Rookie": 2}, 1: {"Champion": 1, "Rookie": 1}})
    st.apply_action(1)  # seat 0 starts
    reveal(st, ["Newcomer", "Champion"])  # side 0 takes the flag with Champion
    assert st.flag == 0 and st.defence() == 4
    reveal(st, ["Newcomer", "Rookie"])  # 1 + 3 = 4 >= 4
    assert st.flag == 1 and [t for t, _ in st.stack] == [tid("Newcomer"), tid("Rookie")]
    assert st.defence() == 3  # the Rookie on top; the Newcomer beneath does not count


def test_CH_R16_current_power_boost_aura_guard_weaken():
    # GUARD: Captain 5 + 3 while holding the flag
    st = with_decks(at_first_match(), {0: {"Captain": 1}, 1: {"Newcomer": 2, "Poltergeist": 1}})
    st.apply_action(1)
    reveal(st, ["Captain"])
    assert st.defence() == 8
    reveal(st, ["Poltergeist"])  # WEAKEN 1 on the opposing flag card
    assert st.weaken == 1 and st.defence() == 7
    # AURA from the bench: a benched Coach gives +1 to its owner's active City cards
    st = with_decks(at_first_match(), {0: {"Coach": 2, "Superstar": 1}, 1: {"Rookie": 2, "Alien Kid": 2}})
    st.apply_action(1)  # seat 0 starts
    reveal(st, ["Coach", "Rookie"])  # Coach (3) taken: to seat 0's bench
    assert st.bench[1][0] == [tid("Coach"), 1]
    reveal(st, ["Superstar"])  # City: 8 + 1 from the benched Coach
    assert st.flag == 1 and st.defence() == 9
    # BOOST +1 per occupied seat on the own bench, kept when the card defends
    st = with_decks(
        at_first_match(), {0: {"Newcomer": 1, "Acrobat": 1, "Talent": 1}, 1: {"Alien Kid": 2, "Superstar": 1}}
    )
    st.apply_action(1)  # seat 0 starts
    reveal(st, ["Newcomer", "Alien Kid"])  # seat 0's Newcomer benched: 1 occupied seat
    assert st.bench[1][0] == [tid("Newcomer"), 1]
    reveal(st, ["Acrobat"])  # 4 + 1 = 5 >= 3
    assert st.flag == 1 and st.stack[-1] == [tid("Acrobat"), 1] and st.defence() == 5


def test_CH_R18_CH_R19_capture_order_and_roles_swap():
    st = with_decks(at_first_match(), {0: {"Ghost": 1, "Rookie": 2}, 1: {"Newcomer": 1, "Alien Kid": 2}})
    st.apply_action(1)  # seat 0 (side 1) starts
    reveal(st, ["Ghost", "Newcomer", "Alien Kid"])  # 4 >= 2: Ghost loses the flag (ESCAPE)
    assert st.resting[1][tid("Ghost")] == 1 and all(t == -1 for t, _ in st.bench[1])
    assert st.flag == 0 and [t for t, _ in st.stack] == [tid("Newcomer"), tid("Alien Kid")] and not st.attack
    assert st.phase_id == Phase.REVEAL and st.chance_outcomes() == [(tid("Rookie"), 1.0)]  # roles swap
    reveal(st, ["Rookie"])  # 3 >= 3
    assert st.bench[0][0] == [tid("Newcomer"), 1] and st.bench[0][1] == [tid("Alien Kid"), 1]  # reveal order
    assert st.flag == 1 and st.stack == [[tid("Rookie"), 0]]


def test_CH_R20_same_name_shares_a_seat():
    st = with_decks(at_first_match(), {0: {"Newcomer": 3}, 1: {"Newcomer": 3}})
    st.apply_action(1)  # seat 0 starts
    reveal(st, ["Newcomer", "Newcomer"])  # 1 >= 1: seat 0's Newcomer to the bench
    assert st.bench[1][0] == [tid("Newcomer"), 1] and st.bench[0][0] == [-1, 0]
    reveal(st, ["Newcomer"])
    assert st.bench[0][0] == [tid("Newcomer"), 1]
    reveal(st, ["Newcomer"])  # the second benched Newcomer joins the seat holding its name
    assert st.bench[1][0] == [tid("Newcomer"), 2] and st.bench[1][1] == [-1, 0]


def with_bench(st, side, cards: dict[str, int]):
    """The same match position with cards moved from ``side``'s unrevealed deck to its bench."""
    d = json.loads(st.to_json())
    for i, (name, c) in enumerate(cards.items()):
        d["undrawn"][side][tid(name)] -= c
        d["bench"][side][i] = [tid(name), c]
    return st.game.state_from_dict(d)


def test_CH_R21_no_seat_for_a_card_loses_at_once():
    six = ["Rookie", "Alien Kid", "Strongman", "Clown", "Juggler", "Star Pup"]
    st = with_decks(at_first_match(), {0: {**{n: 1 for n in six}, "Poltergeist": 1}, 1: {"Cannonball": 2}})
    st.apply_action(1)  # seat 0 (side 1) starts
    reveal(st, ["Poltergeist"])
    st = with_bench(st, 1, {n: 1 for n in six})
    assert st.flag == 1 and st.phase_id == Phase.REVEAL
    reveal(st, ["Cannonball"])  # the Poltergeist has no seat: seat 0 loses at once
    assert st.phase_id == Phase.TROPHY and st.winner == 1 and st.log[-1][0] == 3
    # a card joining its own name's seat is fine on a full bench
    st = with_decks(at_first_match(), {0: {**{n: 1 for n in six[1:]}, "Rookie": 2}, 1: {"Cannonball": 2}})
    st.apply_action(1)
    reveal(st, ["Rookie"])
    st = with_bench(st, 1, {n: 1 for n in six})
    reveal(st, ["Cannonball"])
    assert st.phase_id == Phase.TROPHY and st.log[-1][0] == 2  # benched fine; then lost on an empty deck


def test_CH_R22_an_empty_deck_loses():
    st = with_decks(at_first_match(), {0: {"Newcomer": 1}, 1: {"Champion": 1}})
    st.apply_action(0)  # seat 1 starts with Champion
    reveal(st, ["Champion", "Newcomer"])  # 1 < 4 and seat 0 has nothing left
    assert st.phase_id == Phase.TROPHY and st.winner == 1 and st.log[-1][0] == 2


def test_CH_R23_resting_cards_have_no_effect():
    st = with_decks(at_first_match(), {0: {"Coach": 1, "Caretaker": 1, "Superstar": 1}, 1: {"Rookie": 3}})
    st.apply_action(1)  # seat 0 starts
    reveal(st, ["Coach", "Rookie"])  # Coach benched: aura +1 City
    assert st.bench[1][0] == [tid("Coach"), 1]
    reveal(st, ["Caretaker"])  # CLEAR 2: the Coach goes to the resting pile
    assert st.resting[1][tid("Coach")] == 1 and st.bench[1][0] == [-1, 0]
    reveal(st, ["Superstar"])
    assert st.flag == 1 and st.defence() == 8  # no aura from the resting Coach


def test_CH_R24_the_winner_takes_a_random_trophy_and_fans_count_at_once():
    st = with_decks(at_first_match(), {0: {"Fortune Teller": 1}, 1: {"Newcomer": 1}})
    st.apply_action(1)  # seat 0 starts
    reveal(st, ["Fortune Teller"])
    assert st.tokens[0] == 2  # FANS 2 at once
    reveal(st, ["Newcomer"])
    assert st.phase_id == Phase.TROPHY and st.winner == 0
    assert st.chance_outcomes() == [(k, 0.25) for k in range(4)]
    st.apply_action(3)
    assert st.trophies[0] == [-1, -1, -1, 0] and st.fans(0) == 2 + 3


def test_CH_R25_decks_return_whole_after_the_match():
    st = at_first_match()
    decks = [list(d) for d in st.decks]
    st = idle(st, np.random.default_rng(2), stop_at=lambda s: s.round == 2)
    assert st.decks == decks and not st.stack and all(t == -1 for b in st.bench for t, _ in b)
    assert st.flag == -1 and st.weaken == 0 and not any(any(x) for x in st.resting)


def test_CH_R26_bot_trophies_leave_the_game_with_3_to_7_players():
    rng = np.random.default_rng(4)
    seen = False
    for _ in range(6):
        st = idle(GAME.new_initial_state(3), rng)
        assert st.fans(3) == 0 and 3 not in [o for row in st.trophies for o in row]
        seen |= any(o == REMOVED for row in st.trophies for o in row)
        assert 3 not in st.finalists
    assert seen
    st = idle(GAME.new_initial_state(1), rng)  # solo: the bot keeps its trophies
    assert any(o == 1 for row in st.trophies for o in row) and REMOVED not in sum(st.trophies, [])


def test_CH_R27_fans_are_trophies_plus_tokens():
    st = idle(GAME.new_initial_state(2), np.random.default_rng(5))
    for p in range(2):
        tr = sum(GAME.trophies[r][k] for r, row in enumerate(st.trophies) for k, o in enumerate(row) if o == p)
        assert st.fans(p) == tr + st.tokens[p] == st.scores()[p]


def test_CH_R28_a_lead_of_11_ends_a_1_2_player_game():
    rng = np.random.default_rng(6)
    ended_early = 0
    for _ in range(30):
        st = idle(GAME.new_initial_state(2), rng)
        f = [st.fans(0), st.fans(1)]
        if st.round < 7:
            ended_early += 1
            assert abs(f[0] - f[1]) >= 11 and st.winners() == [int(np.argmax(f))]
    assert ended_early > 0


def test_CH_R29_most_fans_after_round_7_with_tie_breaks():
    st = GAME.new_initial_state(2)
    d = json.loads(idle(st, np.random.default_rng(1)).to_json())
    d["winner"] = -1
    d["round"] = 7
    owners = [0, 0, 1, 0, 1, 0, 1]  # slot 3 of each round: 3, 3, 4, 6, 7, 8, 10 fans
    d["trophies"] = [[-1, -1, -1, o] for o in owners]
    d["tokens"] = [0, 0]
    st = GAME.state_from_dict(d)
    assert st.fans(0) == 20 and st.fans(1) == 21 and st.winners() == [1]
    d["tokens"] = [1, 0]  # 21 v 21: seat 0 holds more trophies
    assert GAME.state_from_dict(d).winners() == [0]


def test_CH_R30_CH_R31_CH_R32_final_between_the_two_best():
    rng = np.random.default_rng(7)
    st = idle(GAME.new_initial_state(4), rng, stop_at=lambda s: s.round == 8)
    keys = sorted((st.rank_key(s), s) for s in range(4))
    if st.phase_id == Phase.FINAL_TIE:
        tied = [s for s, _ in st.chance_outcomes()]
        assert len(tied) >= 2
        st.apply_action(tied[0])
    assert st.phase_id == Phase.FINAL_REMOVE and len(st.finalists) == 2
    assert all(st.rank_key(f) >= keys[1][0] for f in st.finalists)
    # CH-R31: the finalists may remove cards, nothing else
    first = st.current_player()
    assert first == st.finalists[0]
    m = st.legal_mask()
    assert not m[:A_REMOVE].any() and m[GAME.a_done]
    st.apply_action(A_REMOVE + tid("Newcomer"))
    assert st.decks[first][tid("Newcomer")] == 2
    st.apply_action(GAME.a_done)
    assert st.current_player() == st.finalists[1]
    st.apply_action(GAME.a_done)
    assert st.phase_id in (Phase.STARTER, Phase.REVEAL) and st.pairs() == [tuple(st.finalists)]
    idle(st, rng)
    assert st.is_terminal() and st.winners() == [st.winner] and st.winner in st.finalists  # CH-R32


def test_CH_R30_ties_more_trophies_then_later_rounds():
    st = idle(GAME.new_initial_state(4), np.random.default_rng(8), stop_at=lambda s: s.round == 8)
    d = json.loads(st.to_json())
    d["tokens"] = [0, 0, 0, 0]
    # seat 0: R1 3 + R4 5 = 8 (2 trophies); seat 1: R3 4 + R1 2 + R2 2 = 8 (3 trophies); seat 2: R7 9 = 9
    pairs = {r: pairings(4, r, "circle") for r in range(1, 8)}
    assert pairs[1] == [(3, 0), (1, 2)]
    st2 = st.clone()
    assert st2.rank_key(0) == (st.fans(0), len(st.trophy_rounds(0)), tuple(sorted(st.trophy_rounds(0), reverse=True)))
    k_more = (8, 3, (3, 2, 1))
    k_less = (8, 2, (4, 1))
    assert k_more > k_less  # fans equal: more trophies first
    assert (8, 2, (5, 1)) > (8, 2, (4, 3))  # then the highest round


def test_CH_R33_trophy_values_hidden_from_others_with_3_to_8_players():
    st = idle(GAME.new_initial_state(4), np.random.default_rng(9), stop_at=lambda s: s.round == 3)
    assert not st.trophies_visible(0)
    obs = st.observation(0)
    for seed in range(5):
        other = st.resample_hidden(0, np.random.default_rng(seed))
        np.testing.assert_array_equal(other.observation(0), obs)
        assert other.trophy_rounds(1) == st.trophy_rounds(1)  # counts and rounds stay public
    st2 = idle(GAME.new_initial_state(2), np.random.default_rng(9), stop_at=lambda s: s.round == 3)
    assert st2.trophies_visible(0)
    off = GAME.encoder.layout.offset("seats")
    assert st2.observation(0)[off + GAME.encoder.per + 5] == pytest.approx(st2.fans(1) * 0.02)


def test_CH_R34_a_match_is_determined_by_the_deck_orders():
    def run():
        st = with_decks(at_first_match(), {0: {"Rookie": 2, "Medic": 1}, 1: {"Juggler": 2, "Dog": 1}})
        st.apply_action(1)
        for name in ("Rookie", "Juggler", "Dog", "Medic", "Rookie", "Juggler"):
            if st.phase_id != Phase.REVEAL:
                break
            st.apply_action(tid(name))
        return st.to_dict()

    a, b = run(), run()
    assert a == b and a["phase"] == Phase.TROPHY
    st = GAME.state_from_dict(a)
    assert st.winner in (0, 1)


def test_CH_R35_scores_and_winners():
    rng = np.random.default_rng(10)
    for _ in range(5):
        st = idle(GAME.new_initial_state(1), rng)
        assert st.scores() == [float(st.fans(0) - st.fans(1))]
        assert st.winners() in ([], [0])
        if st.winners() == [0]:
            assert st.fans(0) >= st.fans(1)
        assert st.returns() == [pytest.approx(st.scores()[0] / 20)]
    st = idle(GAME.new_initial_state(3), rng)
    assert st.winners() == [st.winner] and st.scores() == [float(st.fans(p)) for p in range(3)]


def test_CH_R36_picking_zero_is_allowed():
    st = _at_pick()
    seat = st.seat
    deck = list(st.decks[seat])
    st.apply_action(A_STOP)
    assert st.decks[seat] == deck and st.phase_id == Phase.REMOVE


# ---------------------------------------------------------------------------- variants
def test_CH_V1_bot_level_powers_and_extra_cards():
    g = ChallengersGame(bot_level=2)
    bot1 = g.bot_types[0]
    assert [g.power[r][bot1] for r in range(1, 8)] == [1 + (r - 1) * 3 // 4 for r in range(1, 8)]
    g5 = ChallengersGame(bot_level=5)
    st = g5.new_initial_state(1)
    assert st.phase_id == Phase.BOT_SETUP
    st.apply_action(tid("Veteran", g5))
    st.apply_action(tid("Superstar", g5))
    assert st.decks[1][tid("Veteran", g5)] == 1 and st.decks[1][tid("Superstar", g5)] == 1
    assert st.phase_id == Phase.DRAW and st.pile[tid("Superstar", g5)] == 2
    assert ChallengersGame(bot_level=4).bot_extra == (2,)
    with pytest.raises(ConfigError, match="bot_level"):
        ChallengersGame(bot_level=6)


def test_CH_V2_solo_aces_in_rounds_3_5_7():
    g = ChallengersGame(solo_special=True)
    st = g.new_initial_state(1)
    idle(st, stop_at=lambda s: s.round == 3)
    assert st.decks[1][g.ace_type] == 1 and g.power[3][g.ace_type] == 5
    idle(st, stop_at=lambda s: s.round == 7 or s.is_terminal())
    if not st.is_terminal():
        assert st.decks[1][g.ace_type] == 3
    assert GAME.new_initial_state(1).decks[1][GAME.ace_type] == 0


def test_CH_V3_themed_sets_and_card_pool(tmp_path):
    g = ChallengersGame(themed_sets_in_play=2)
    st = g.new_initial_state(2)
    assert st.phase_id == Phase.SETUP_SETS and [s for s, _ in st.chance_outcomes()] == [1, 2, 3]
    st.apply_action(2)  # Outer Space leaves
    assert st.pile[tid("Comet", g)] == 0 and st.pile[tid("Ghost", g)] == 4 and st.phase_id == Phase.DRAW
    with pytest.raises(ConfigError, match="themed_sets_in_play"):
        ChallengersGame(themed_sets_in_play=4)
    pool = json.loads(_pool_path().read_text())
    pool["cards"].append(
        {"set": "Funfair", "level": "A", "name": "Seal", "power": 2, "count": 4, "keyword": "", "effect": "FANS 1"}
    )
    f = tmp_path / "pool.json"
    f.write_text(json.dumps(pool))
    g2 = ChallengersGame(card_pool=str(f))
    assert g2.num_types == 33 and g2.num_actions == 43 and g2.type_names[32] == "Seal"
    pool["cards"][-1]["effect"] = "TELEPORT 1"
    f.write_text(json.dumps(pool))
    with pytest.raises(ConfigError, match="unknown effect"):
        ChallengersGame(card_pool=str(f))
    pool["cards"][-1]["effect"] = "SWARM 1"
    f.write_text(json.dumps(pool))
    with pytest.raises(ConfigError, match="keyword"):
        ChallengersGame(card_pool=str(f))
    with pytest.raises(ConfigError, match="card_pool"):
        ChallengersGame(card_pool="nope")


def _pool_path():
    from pathlib import Path

    import boardzoo.envs.challengers as pkg

    return Path(pkg.__file__).parent / "data" / "pools" / "standard.json"


def test_CH_V4_draft_schedule_and_pairing(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"name": "c", "rounds": [[["C", 1]]] * 7}))
    g = ChallengersGame(draft_schedule=str(f))
    st = g.new_initial_state(2)
    assert st.phase_id == Phase.DRAW and all(g.level[t] == 3 for t, _ in st.chance_outcomes())
    f.write_text(json.dumps({"name": "bad", "rounds": [[["D", 1]]] * 7}))
    with pytest.raises(ConfigError, match="round 1"):
        ChallengersGame(draft_schedule=str(f))
    assert pairings(4, 3, "fixed") == [(0, 1), (2, 3)]
    st = at_first_match(4, ChallengersGame(pairing="fixed"))
    assert st.pairs() == [(0, 1), (2, 3)]
    with pytest.raises(ConfigError, match="pairing"):
        ChallengersGame(pairing="swiss")


def test_env_plays_every_player_count():
    for n in (1, 5, 8):
        env = make("challengers_v0", num_players=n)
        env.reset(seed=n)
        rng = np.random.default_rng(n)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert not env.agents


def test_incremental_encoder_matches_the_reference():
    for opts, n in (({}, 2), ({"action_features": True, "solo_special": True, "bot_level": 5}, 1), ({}, 5)):
        game = ChallengersGame(**opts)
        rng = np.random.default_rng(n)
        for _ in range(2):
            st = game.new_initial_state(n)
            while not st.is_terminal():
                for p in range(n):
                    np.testing.assert_array_equal(game.encoder.encode(st, p), game.encoder.encode_full(st, p))
                if st.is_chance_node():
                    st.apply_action(st.sample_chance(rng))
                else:
                    st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))


@pytest.mark.parametrize("n", [2, 3, 6])
def test_incremental_encoder_matches_the_reference_when_seats_look_now_and_then(n):
    """The incremental encoder (per seat: the last observation and what it was written from) stays
    exact when a seat's observations are far apart (as in play, where only the seat to move looks):
    rounds, turns and pile sizes may all have changed in between."""
    game = ChallengersGame(**({"action_features": True} if n == 3 else {}))
    rng = np.random.default_rng(100 + n)
    for _ in range(3):
        st = game.new_initial_state(n)
        while not st.is_terminal():
            p = st.current_player()
            if p >= 0 or rng.random() < 0.02:
                seat = p if p >= 0 and rng.random() < 0.8 else int(rng.integers(n))
                np.testing.assert_array_equal(game.encoder.encode(st, seat), game.encoder.encode_full(st, seat))
            if st.is_chance_node():
                st.apply_action(st.sample_chance(rng))
            else:
                st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))
