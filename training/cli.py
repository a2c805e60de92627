"""The ``boardzoo`` command: train, export, eval, play, serve.

boardzoo train configs/downforce_v0.yaml [--resume | --force] [--run-dir DIR] [--steps N]
boardzoo export runs/downforce_v0 [--out checkpoints/downforce_v0] [--eval-games 1000] [--value-games 400]
boardzoo eval downforce_v0 --bots neural,mcts,heuristic,random --games 1000
boardzoo play downforce_v0 --players 4 --seat 0 --vs neural
boardzoo serve [--host 127.0.0.1] [--port 8000]   (the web extra: play, watch and replay in the browser)
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys

from boardzoo.envs import BoardZooError
from boardzoo.training.bots import SEARCH_KINDS, SPEC_FORMS


def _options(text: str | None) -> dict | None:
    if not text:
        return None  # default: the options a neural bot in the line-up was trained with
    try:
        out = json.loads(text)
    except json.JSONDecodeError as e:
        raise BoardZooError(f"--options must be a JSON object, e.g. '{{\"variant\": true}}': {e}") from None
    if not isinstance(out, dict):
        raise BoardZooError("--options must be a JSON object")
    return out


def cmd_train(a: argparse.Namespace) -> None:
    from .config import load_config

    cfg = load_config(a.config)
    if a.steps is not None:
        cfg.total_steps = a.steps
    if cfg.backend == "rllib":
        try:
            from boardzoo.integrations.rllib import train as backend
        except ImportError as e:
            raise BoardZooError(f"backend: rllib needs Ray RLlib: pip install 'boardzoo[rllib]' ({e})") from None
    else:
        from . import train as backend  # type: ignore[no-redef]
    run = backend.train(
        cfg, config_path=a.config, run_dir=a.run_dir, resume=a.resume, force=a.force, progress=not a.no_progress
    )
    print(f"run written to {run} (log.csv, curve.png); export it with: boardzoo export {run}")


def cmd_export(a: argparse.Namespace) -> None:
    from .export import export_run, measure_strength, measure_value, refresh_layout

    if a.refresh_layout:
        card = refresh_layout(a.run_dir)
        print(f"observation layout of {a.run_dir}/card.json refreshed: {len(card['observation_layout'])} blocks")
        return
    if a.measure_only:
        if a.eval_games <= 0 and a.value_games <= 0:
            raise BoardZooError("export --measure-only: give --eval-games N, --value-games N or both")
        if a.eval_games > 0:
            measure_strength(a.run_dir, a.eval_games, workers=a.workers, seed=a.seed, progress=not a.no_progress)
        if a.value_games > 0:
            measure_value(a.run_dir, a.value_games, workers=a.workers, seed=a.seed, progress=not a.no_progress)
        print(f"measurements recorded in {a.run_dir}/card.json")
        return
    out = export_run(
        a.run_dir,
        out=a.out,
        which=a.which,
        eval_games=a.eval_games,
        value_games=a.value_games,
        workers=a.workers,
        onnx=not a.no_onnx,
        seed=a.seed,
        progress=not a.no_progress,
    )
    print(f"exported to {out} (weights.safetensors, policy.onnx, card.json)")


def cmd_eval(a: argparse.Namespace) -> None:
    from .tournament import Results, run_tournament, save_results

    bots = [b.strip() for b in a.bots.split(",") if b.strip()]
    if len(bots) < 1:
        raise BoardZooError("--bots needs at least one bot")
    command = "boardzoo " + " ".join(shlex.quote(x) for x in sys.argv[1:])
    res = run_tournament(
        a.env_id,
        bots,
        a.games,
        num_players=a.players,
        options=_options(a.options),
        workers=a.workers,
        seed=a.seed,
        progress=not a.no_progress,
        command=command,
        resume=Results.load(a.resume) if a.resume else None,
    )
    print(res.format())
    out = a.out or f"runs/eval/{a.env_id}_{'_'.join(b.replace(':', '-').replace('/', '-') for b in bots)}"
    jp, pp = save_results(res, out)
    print(f"results: {jp}  plot: {pp}")


def cmd_distill(a: argparse.Namespace) -> None:
    from .distill import distill

    opponents = [o.strip() for o in a.opponents.split(",") if o.strip()]
    card = distill(
        a.bot,
        a.out,
        games=a.games,
        opponents=opponents,
        teacher=a.teacher,
        simulations=a.simulations,
        epochs=a.epochs,
        lr=a.lr,
        policy_weight=0.0 if a.value_only else 1.0,
        value_weight=0.0 if a.policy_only else 1.0,
        workers=a.workers,
        seed=a.seed,
        data_path=a.data,
        eval_games=a.eval_games,
        progress=not a.no_progress,
        command="boardzoo " + " ".join(shlex.quote(x) for x in a.argv),
    )
    print(f"distilled bot written to {a.out} (value head: {card['architecture']['value_head']})")


def cmd_play(a: argparse.Namespace) -> None:
    from .play import play

    play(a.env_id, players=a.players, seat=a.seat, vs=a.vs, seed=a.seed, options=_options(a.options))


def cmd_serve(a: argparse.Namespace) -> None:
    from boardzoo.web.serve import serve

    serve(host=a.host, port=a.port, bot_delay=a.bot_delay, idle_minutes=a.idle_minutes, max_games=a.max_games)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="boardzoo", description="BoardZoo: train, export, evaluate and play bots.")
    sub = p.add_subparsers(dest="cmd", required=True)

    t = sub.add_parser(
        "train",
        help="self-play PPO from a config (backend sb3: MaskablePPO; backend rllib: Ray RLlib, local or cluster)",
    )
    t.add_argument("config")
    t.add_argument("--run-dir", default=None, help="run folder (default runs/<config stem>)")
    t.add_argument("--resume", action="store_true", help="continue the run in the run folder")
    t.add_argument("--force", action="store_true", help="start over even if the run folder holds a run")
    t.add_argument("--steps", type=int, default=None, help="override total_steps")
    t.add_argument("--no-progress", action="store_true")
    t.set_defaults(fn=cmd_train)

    e = sub.add_parser("export", help="export a run as a data-only bot folder (safetensors + ONNX + card)")
    e.add_argument("run_dir")
    e.add_argument("--out", default=None, help="output folder (default RUN_DIR/export)")
    e.add_argument("--which", choices=["best", "last"], default="best")
    e.add_argument("--eval-games", type=int, default=0, help="measure vs random and heuristic over N games each")
    e.add_argument(
        "--value-games",
        type=int,
        default=0,
        help="check the value head against the outcomes of N games (its error against the outcomes' variance)",
    )
    e.add_argument("--measure-only", action="store_true", help="RUN_DIR is an exported folder: only measure")
    e.add_argument(
        "--refresh-layout",
        action="store_true",
        help="RUN_DIR is an exported folder: rewrite its card's observation layout from the installed "
        "game (only block names changed; same version and sizes)",
    )
    e.add_argument("--workers", type=int, default=2)
    e.add_argument("--seed", type=int, default=12345)
    e.add_argument("--no-onnx", action="store_true")
    e.add_argument("--no-progress", action="store_true")
    e.set_defaults(fn=cmd_export)

    v = sub.add_parser("eval", help="tournament between bots, seats rotated")
    v.add_argument("env_id")
    v.add_argument(
        "--bots",
        default="neural,mcts,heuristic,random",
        help=f"comma list of {SPEC_FORMS}",
    )
    v.add_argument("--games", type=int, default=1000)
    v.add_argument("--players", type=int, default=None, help="default: the game's standard count")
    v.add_argument("--workers", type=int, default=2)
    v.add_argument("--seed", type=int, default=0)
    v.add_argument("--options", default=None, help="game options as JSON (default: a neural bot's own)")
    v.add_argument("--out", default=None, help="results path stem (.json and .png)")
    v.add_argument(
        "--resume",
        default=None,
        metavar="JSON",
        help="an earlier run's results (.json): keep its games, play the missing ones (same bots, seed, options)",
    )
    v.add_argument("--no-progress", action="store_true")
    v.set_defaults(fn=cmd_eval)

    d = sub.add_parser(
        "distill",
        help="expert iteration: the bot's own search plays, its visit counts and the outcomes retrain the "
        "bot's policy and value head (a new bot folder)",
    )
    d.add_argument("bot", help="bot folder or env id (the shipped bot)")
    d.add_argument("--out", required=True, help="folder for the new bot")
    d.add_argument("--games", type=int, default=400, help="games the teacher plays")
    d.add_argument("--opponents", default="heuristic", help="comma list of bot specs the teacher plays (rotated)")
    d.add_argument(
        "--teacher",
        choices=["neural", *sorted(SEARCH_KINDS)],
        default="neural+search",
        help="the bot's search (its visit counts are the targets) or the plain bot (with --value-only)",
    )
    d.add_argument("--simulations", type=int, default=100, help="the teacher's simulations per decision")
    d.add_argument("--epochs", type=int, default=20)
    d.add_argument("--lr", type=float, default=3e-4)
    only = d.add_mutually_exclusive_group()
    only.add_argument("--value-only", action="store_true", help="keep the policy exactly; fit only the value head")
    only.add_argument(
        "--policy-only", action="store_true", help="keep the value head exactly; fit only the policy (to the search)"
    )
    d.add_argument(
        "--data", default=None, help="npz of the recorded games: written after collecting, read if it exists"
    )
    d.add_argument("--eval-games", type=int, default=0, help="then measure vs random and heuristic over N games each")
    d.add_argument("--workers", type=int, default=2)
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--no-progress", action="store_true")
    d.set_defaults(fn=cmd_distill)

    pl = sub.add_parser("play", help="play in the terminal against bots")
    pl.add_argument("env_id")
    pl.add_argument("--players", type=int, default=None)
    pl.add_argument("--seat", type=int, default=0)
    pl.add_argument("--vs", default="heuristic", help="bot for the other seats")
    pl.add_argument("--seed", type=int, default=None)
    pl.add_argument("--options", default=None, help="game options as JSON (default: a neural bot's own)")
    pl.set_defaults(fn=cmd_play)

    sv = sub.add_parser("serve", help="play, watch and replay games in the browser (pip install 'boardzoo[web]')")
    sv.add_argument("--host", default="127.0.0.1", help="address to listen on (default: this machine only)")
    sv.add_argument("--port", type=int, default=8000, help="TCP port (0: any free port)")
    sv.add_argument("--bot-delay", type=float, default=0.6, help="seconds between bot moves")
    sv.add_argument("--idle-minutes", type=float, default=30.0, help="drop a game nobody looked at for this long")
    sv.add_argument("--max-games", type=int, default=64, help="games and replays held at once")
    sv.set_defaults(fn=cmd_serve)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # the command line, as recorded in results
    try:
        args.fn(args)
    except BoardZooError as e:
        print(f"boardzoo {args.cmd}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
