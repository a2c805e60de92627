"""Golden playthroughs: one seeded game per registered game, option set and player count, as a
readable transcript (OpenSpiel's integration_tests/playthroughs). Every step shows the player
(or C for chance), the action and its name, a hash of the legal mask and a hash of every seat's
observation; the end shows scores, winners and returns. A refactor that keeps behaviour leaves
every file unchanged; an intended change shows up in the diff (and in the game's version history).

    python tests/golden/golden.py            # check (what test_golden.py does)
    python tests/golden/golden.py --update   # rewrite the transcripts after an intended change
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE / "playthroughs"


def _h(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()[:12]


def cases() -> list[tuple[str, dict, int, str]]:
    """(env_id, options, players, file name): every option set at the standard count, and the
    first option set at the smallest and largest counts."""
    from boardzoo.envs import game_class, names

    out = []
    for env_id in names():
        g = game_class(env_id)
        for k, opts in enumerate(g.conformance_options):
            counts = [g.default_players] + ([g.min_players, g.max_players] if k == 0 else [])
            for n in dict.fromkeys(counts):
                key = "-".join(f"{a}={opts[a]}" for a in sorted(opts)) or "default"
                out.append((env_id, opts, n, f"{env_id}__{key}__{n}p.txt"))
    return out


def transcript(env_id: str, opts: dict, n: int, seed: int = 20261203) -> str:
    from boardzoo.envs import make_game

    game = make_game(env_id, **opts)
    st = game.new_initial_state(n)
    rng = np.random.default_rng(seed)
    lines = [
        f"# {env_id} options={json.dumps(opts, sort_keys=True)} players={n} seed={seed}",
        f"# num_actions={game.num_actions} observation_size={game.observation_size}",
    ]
    step = 0
    while not st.is_terminal():
        obs = _h(b"".join(np.ascontiguousarray(st.observation(p), dtype=np.float32).tobytes() for p in range(n)))
        if st.is_chance_node():
            a = st.sample_chance(rng)
            lines.append(f"{step} C {json.dumps(a)} obs={obs}")
        else:
            p = st.current_player()
            m = st.legal_mask()
            legal = np.flatnonzero(m)
            a = int(legal[rng.integers(len(legal))])
            lines.append(
                f"{step} P{p} {a} [{st.action_to_string(a)}] legal={_h(legal.tobytes())}/{len(legal)} obs={obs}"
            )
        st.apply_action(a)
        step += 1
    lines.append(
        f"# end scores={st.scores()} winners={st.winners()} returns={st.returns()} "
        f"score_returns={[round(x, 6) for x in st.score_returns()]}"
    )
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--env", action="append")
    args = ap.parse_args()
    DATA.mkdir(exist_ok=True)
    bad = 0
    for env_id, opts, n, name in cases():
        if args.env and env_id not in args.env:
            continue
        text = transcript(env_id, opts, n)
        path = DATA / name
        if args.update:
            path.write_text(text)
        elif not path.is_file() or path.read_text() != text:
            print(f"differs: {name}")
            bad += 1
    print("updated" if args.update else f"{bad} transcript(s) differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
