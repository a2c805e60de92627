"""Expert iteration for an exported bot (``boardzoo distill``): the bot's own network-guided search
plays, its root visit counts become the policy's targets and the games' outcomes the value head's.

One iteration of AlphaZero-style policy improvement (Anthony et al. 2017, "Thinking fast and slow
with deep learning and tree search"; Silver et al. 2018) on top of a PPO-trained bot, for every
game through the ``Game``/``State`` API only:

1. :func:`collect` plays games in which the teacher (``neural+search:N`` or ``neural+gumbel:N``
   around the bot, :mod:`.search`; or the plain ``neural`` bot, whose own choice is the target, for a
   value-only fit) holds one seat (rotated) against opponent bots (any bot specs,
   e.g. ``heuristic`` or the plain ``neural`` bot), hidden information hidden as in every tournament
   (:func:`boardzoo.envs.core.bots.choose`). At each teacher decision with a choice it keeps the
   seat's observation, the legal mask and the search root's visit distribution; at every decision
   (any seat) the mover's observation, and at the end each kept observation gets its seat's final
   reward (``score_returns()`` for a bot trained on scores, else ``returns()``).
2. :func:`fit` starts from the bot's weights and minimizes the cross-entropy between the masked
   policy and the visit distributions, and the squared error between the value head and the final
   rewards (a bot exported without a value head gets a new one, so that a search bot can use it),
   holding out a tenth of the games to pick the epoch.
3. :func:`distill` writes the result as a new data-only bot folder (:func:`.export.write_policy`),
   recording what it did as a new entry of ``training.distill`` (one per round) in the card, and optionally measures it.

``policy_weight=0`` keeps the policy's weights exactly and only fits the value head; ``value_weight=0``
keeps the value head exactly and only fits the policy (when a small round's value targets would
overwrite a head fitted to many more games).
"""

from __future__ import annotations

import json
import multiprocessing as mp
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.envs import ConfigError, make_game
from boardzoo.envs.core.arena import play_to_end

from .bots import SEARCH_KINDS, check_spec, make_bot
from .run import fused_adam
from .search import value_reward

_W: dict[str, Any] = {}
TEACHERS = ("neural", *SEARCH_KINDS)
"""the teacher's kinds: the bot's search (visit counts are the targets) or the plain bot (its choice)"""


def _init_worker(bot_path: str, env_id: str, options: dict, teacher: str, simulations: int) -> None:
    from .botformat import read_bot
    from .tournament import one_thread

    one_thread()

    game = make_game(env_id, **options)
    _W.update(
        game=game,
        bot=read_bot(bot_path, env_id=env_id, options=game.options, any_options=True),
        teacher=teacher,
        simulations=simulations,
    )


def _play_one(task: tuple) -> dict:
    """One game: the teacher in ``seat``, ``opponent`` everywhere else; the decisions it records."""
    g, n, seat, opponent, seed = task
    from .search import search_bot

    game, bot = _W["game"], _W["bot"]
    if _W["teacher"] in SEARCH_KINDS:
        teacher = search_bot(bot, simulations=_W["simulations"], seed=seed, root=SEARCH_KINDS[_W["teacher"]])
    else:  # the plain bot: its own choice is the target (for value-only fits and behaviour cloning)
        teacher = make_bot(f"neural:{bot.folder}", game, seat, seed)
    bots = [teacher if s == seat else make_bot(opponent, game, s, seed * 1000 + s) for s in range(n)]
    for b in bots:
        if hasattr(b, "reset"):
            b.reset()
    rng = np.random.default_rng(seed)
    st = game.new_initial_state(n)
    num_actions = game.num_actions
    pol_obs, pol_mask, pol_target = [], [], []
    val_obs, val_seat = [], []

    def record(st: Any, p: int, a: int) -> None:
        obs = np.asarray(st.observation(p), dtype=np.float32)
        mask = np.asarray(st.legal_mask(), dtype=np.int8)
        visits = getattr(teacher, "last_visits", None) if getattr(teacher, "last_simulations", 1) > 0 else None
        if p == seat and mask.sum() > 1 and (visits or not hasattr(teacher, "last_visits")):
            t = np.zeros(num_actions, dtype=np.float32)
            for act, v in (visits or {a: 1}).items():
                t[act] = v
            t *= mask
            if t.sum() > 0:
                pol_obs.append(obs)
                pol_mask.append(mask)
                pol_target.append(t / t.sum())
        val_obs.append(obs)
        val_seat.append(p)

    play_to_end(st, bots, rng, on_decision=record)
    reward = value_reward(bot.card)
    r = st.score_returns() if reward == "score" else st.returns()
    size = game.observation_size
    return {
        "game": g,
        "seat": seat,
        "won": float(seat in st.winners()) / max(1, len(st.winners())),
        "pol_obs": np.asarray(pol_obs, dtype=np.float32).reshape(-1, size),
        "pol_mask": np.asarray(pol_mask, dtype=np.int8).reshape(-1, num_actions),
        "pol_target": np.asarray(pol_target, dtype=np.float32).reshape(-1, num_actions),
        "val_obs": np.asarray(val_obs, dtype=np.float32).reshape(-1, size),
        "val_target": np.asarray([r[s] for s in val_seat], dtype=np.float32),
    }


def collect(
    bot_path: str,
    games: int,
    opponents: Sequence[str] = ("heuristic",),
    teacher: str = "neural+search",
    simulations: int = 100,
    num_players: int | None = None,
    workers: int = 2,
    seed: int = 0,
    progress: bool = True,
) -> dict[str, np.ndarray]:
    """Play ``games`` games of the teacher against ``opponents`` (game ``g``: the teacher in seat
    ``g % n``, ``opponents[(g // n) % k]`` in every other seat) and return the recorded arrays
    (``pol_obs``, ``pol_mask``, ``pol_target``, ``pol_game``, ``val_obs``, ``val_target``,
    ``val_game``) and ``teacher_win_rate``."""
    from .botformat import read_bot

    if teacher not in TEACHERS:
        raise ConfigError(f"distill: the teacher must be one of {', '.join(TEACHERS)}, got {teacher!r}")
    if games < 1 or simulations < 1:
        raise ConfigError("distill: games and simulations must be >= 1")
    if not opponents:
        raise ConfigError("distill: give at least one opponent bot")
    bot = read_bot(bot_path)
    env_id, options = bot.card["env_id"], bot.card["options"]
    game = make_game(env_id, **options)
    for o in opponents:
        check_spec(o, key="--opponents")
        make_bot(o, game, 0, 0)  # fail before starting workers
    n = num_players if num_players is not None else type(game).default_players
    game.check_players(n)
    tasks = [(g, n, g % n, opponents[(g // n) % len(opponents)], seed * 1_000_003 + g) for g in range(games)]
    initargs = (str(bot.folder), env_id, options, teacher, simulations)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=games, desc=f"distill {env_id} {teacher}:{simulations}", unit="game")
    out: list[dict] = []
    if workers <= 1:
        _init_worker(*initargs)
        for r in map(_play_one, tasks):
            out.append(r)
            if bar:
                bar.update(1)
    else:
        with mp.get_context("fork").Pool(workers, initializer=_init_worker, initargs=initargs) as pool:
            for r in pool.imap_unordered(_play_one, tasks, chunksize=1):
                out.append(r)
                if bar:
                    bar.update(1)
    if bar:
        bar.close()
    out.sort(key=lambda r: r["game"])
    data = {
        k: np.concatenate([r[k] for r in out]) for k in ("pol_obs", "pol_mask", "pol_target", "val_obs", "val_target")
    }
    data["pol_game"] = np.concatenate([np.full(len(r["pol_obs"]), r["game"], dtype=np.int64) for r in out])
    data["val_game"] = np.concatenate([np.full(len(r["val_obs"]), r["game"], dtype=np.int64) for r in out])
    data["teacher_win_rate"] = np.float64(sum(r["won"] for r in out) / len(out))
    return data


def _check_weights(bot: Any, policy_weight: float, value_weight: float) -> None:
    if policy_weight <= 0 and value_weight <= 0:
        raise ConfigError("distill: both the policy and the value head are frozen; nothing to fit")
    if value_weight <= 0 and bot.arch.get("value_head") is None:
        raise ConfigError("distill: the value head is kept (policy only) but the bot has none; fit it too")


def fit(
    bot: Any,
    data: dict[str, np.ndarray],
    epochs: int = 20,
    lr: float = 3e-4,
    batch_size: int = 256,
    policy_weight: float = 1.0,
    value_weight: float = 1.0,
    value_hidden: Sequence[int] = (128, 128),
    holdout: float = 0.1,
    seed: int = 0,
    log: Callable[[str], None] = print,
) -> tuple[list[np.ndarray], list[np.ndarray], dict[str, Any]]:
    """Fine-tune ``bot`` (:class:`.botformat.BotData`) on ``data`` (:func:`collect`); returns the
    policy's and the value head's parameter lists and a report (losses, agreement with the teacher
    on the held-out games, the epoch kept). ``policy_weight=0`` leaves the policy unchanged,
    ``value_weight=0`` the value head (the bot must have one)."""
    import torch

    from .botformat import tensor_shapes, tensors_to_params, tensors_to_value_params
    from .botnet import NEG, BotNet

    _check_weights(bot, policy_weight, value_weight)
    torch.manual_seed(seed)
    arch = dict(bot.arch)
    if arch.get("value_head") is None:
        arch["value_head"] = {"hidden": [int(h) for h in value_hidden]}
    arch["tensors"] = tensor_shapes(arch)
    net = BotNet(arch)
    missing, unexpected = net.load_state_dict(
        {k: torch.from_numpy(np.array(v, dtype=np.float32)) for k, v in bot.tensors.items()}, strict=False
    )
    assert not unexpected and all(k.startswith("value_layers.") for k in missing), (missing, unexpected)

    def split(games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ids = np.unique(games)
        rng = np.random.default_rng(seed)
        held = (
            set(rng.choice(ids, size=max(1, int(len(ids) * holdout)), replace=False).tolist())
            if len(ids) > 1
            else set()
        )
        h = np.array([g in held for g in games.tolist()], dtype=bool)
        return np.flatnonzero(~h), np.flatnonzero(h)

    P = {
        k: torch.from_numpy(np.ascontiguousarray(data[k]))
        for k in ("pol_obs", "pol_mask", "pol_target", "val_obs", "val_target")
    }
    ptr, pva = split(data["pol_game"])
    vtr, vva = split(data["val_game"])
    if len(ptr) == 0 and policy_weight > 0:
        raise ConfigError("distill: no teacher decision with a choice was recorded; play more games")

    def pol_loss(idx: np.ndarray) -> tuple[torch.Tensor, float]:
        i = torch.from_numpy(idx)
        z = net.logits(P["pol_obs"][i])
        z = torch.where(P["pol_mask"][i] > 0, z, torch.full_like(z, NEG))
        logp = torch.log_softmax(z, dim=-1)
        tgt = P["pol_target"][i]
        loss = -(tgt * torch.where(tgt > 0, logp, torch.zeros_like(logp))).sum(-1).mean()
        agree = (z.argmax(-1) == tgt.argmax(-1)).float().mean().item()
        return loss, agree

    def val_loss(idx: np.ndarray) -> torch.Tensor:
        i = torch.from_numpy(idx)
        return ((net.value(P["val_obs"][i]) - P["val_target"][i]) ** 2).mean()

    def trains(name: str) -> bool:
        return value_weight > 0 if name.startswith("value_layers.") else policy_weight > 0

    params = [p for n_, p in net.named_parameters() if trains(n_)]
    gain = net.skip_gain
    if policy_weight > 0 and gain is not None:
        gain.requires_grad_(True)
        params.append(gain)  # type: ignore[arg-type]
    for n_, p in net.named_parameters():
        p.requires_grad_(trains(n_))
    opt = torch.optim.Adam(params, lr=lr, **fused_adam())

    def evaluate() -> dict:
        with torch.no_grad():
            rep: dict[str, float] = {}
            if len(pva):
                lp, ag = pol_loss(pva)
                rep.update(policy_ce=float(lp), agreement=ag)
            if len(vva):
                rep["value_mse"] = float(val_loss(vva))
            return rep

    before = evaluate()
    base = float(np.var(data["val_target"][vva])) if len(vva) else float("nan")
    log(f"before: {json.dumps({k: round(v, 4) for k, v in before.items()})} (value variance {base:.4f})")
    rng = np.random.default_rng(seed + 1)
    best = (float("inf"), -1, {k: v.detach().clone() for k, v in net.state_dict().items()}, before)
    for ep in range(epochs):
        net.train()
        pt, vt = rng.permutation(ptr), rng.permutation(vtr)
        steps = max(1, max(len(pt), len(vt)) // batch_size)
        for s in range(steps):
            loss = torch.zeros(())
            if policy_weight > 0 and len(pt):
                b = pt[(s * batch_size) % len(pt) :][:batch_size]
                loss = loss + policy_weight * pol_loss(b)[0]
            if value_weight > 0 and len(vt):
                b = vt[(s * batch_size) % len(vt) :][:batch_size]
                loss = loss + value_weight * val_loss(b)
            opt.zero_grad()
            loss.backward()
            opt.step()
        rep = evaluate()
        score = policy_weight * rep.get("policy_ce", 0.0) + value_weight * rep.get("value_mse", 0.0)
        log(f"epoch {ep + 1}/{epochs}: {json.dumps({k: round(v, 4) for k, v in rep.items()})}")
        if score < best[0]:
            best = (score, ep + 1, {k: v.detach().clone() for k, v in net.state_dict().items()}, rep)
    net.load_state_dict(best[2])
    tensors = {k: v.detach().numpy().astype(np.float32) for k, v in net.state_dict().items()}
    if policy_weight <= 0:  # exactly the bot's policy
        tensors.update({k: v for k, v in bot.tensors.items() if not k.startswith("value_layers.")})
    if value_weight <= 0:  # exactly the bot's value head
        tensors.update({k: v for k, v in bot.tensors.items() if k.startswith("value_layers.")})
    report = {
        "epoch_kept": best[1],
        "epochs": epochs,
        "held_out": {"before": before, "after": best[3], "value_variance": base},
        "policy_decisions": int(len(data["pol_target"])),
        "value_decisions": int(len(data["val_target"])),
    }
    vparams = tensors_to_value_params(arch, tensors)
    assert vparams is not None  # the arch always has a value head here
    return tensors_to_params(arch, tensors), vparams, report


def load_data(path: str | Path, bot: Any) -> tuple[dict[str, np.ndarray], dict]:
    """Read a ``--data`` file written by :func:`distill`: the arrays and what recorded them
    (``{}`` for a file written before that was kept). Games of another game or of an observation
    of another size are refused with a ConfigError naming the mismatch; games recorded around
    another bot of the same game are fine (their visit counts are the targets)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except (OSError, ValueError) as e:
        raise ConfigError(f"distill: --data {path} is not a distill data file ({e})") from None
    need = ("pol_obs", "pol_mask", "pol_target", "pol_game", "val_obs", "val_target", "val_game", "teacher_win_rate")
    missing = [k for k in need if k not in data]
    if missing:
        raise ConfigError(f"distill: --data {path} lacks {missing}; is it a distill data file?")
    recorded: dict = {}
    if "recorded_by" in data:
        recorded = json.loads(str(data.pop("recorded_by")))
    env_id = bot.card["env_id"]
    if recorded.get("env_id", env_id) != env_id:
        raise ConfigError(f"distill: --data {path} holds {recorded['env_id']} games; the bot plays {env_id}")
    width = int(bot.arch["input_size"])
    for k in ("pol_obs", "val_obs"):
        if data[k].ndim != 2 or data[k].shape[1] != width:
            raise ConfigError(
                f"distill: --data {path}: its observations ({k}) have shape {tuple(data[k].shape)}; "
                f"the bot reads {width} values (another game or other options?)"
            )
    if data["pol_mask"].shape[1:] != (int(bot.arch["num_actions"]),):
        raise ConfigError(f"distill: --data {path}: its masks do not have the bot's {bot.arch['num_actions']} actions")
    return data, recorded


def distill(
    bot_path: str,
    out: str | Path,
    games: int = 400,
    opponents: Sequence[str] = ("heuristic",),
    teacher: str = "neural+search",
    simulations: int = 100,
    epochs: int = 20,
    lr: float = 3e-4,
    policy_weight: float = 1.0,
    value_weight: float = 1.0,
    workers: int = 2,
    seed: int = 0,
    data_path: str | Path | None = None,
    eval_games: int = 0,
    progress: bool = True,
    command: str = "",
    log: Callable[[str], None] = print,
) -> dict:
    """Collect (or load ``data_path`` when it exists), fit, and write the bot folder ``out``; returns its card."""
    from .botformat import read_bot
    from .export import measure_strength, write_policy

    bot = read_bot(bot_path)
    out = Path(out)
    if out.resolve() == bot.folder.resolve():
        raise ConfigError(f"distill: --out {out} is the bot's own folder; write the new bot elsewhere")
    _check_weights(bot, policy_weight, value_weight)  # before any game is played
    t0 = time.time()
    recorded = {  # what the games are, kept with them so that a later fit records where they came from
        "env_id": bot.card["env_id"],
        "options": bot.card.get("options") or {},
        "bot": str(bot_path),
        "bot_weights_sha256": bot.hashes.get("weights.safetensors"),
        "teacher": teacher if teacher == "neural" else f"{teacher}:{simulations}",
        "opponents": list(opponents),
        "seed": seed,
    }
    if data_path is not None and Path(data_path).exists():
        data, recorded = load_data(data_path, bot)
        log(
            f"data loaded from {data_path}: {len(data['pol_target'])} teacher decisions, recorded by "
            f"{recorded.get('teacher', '?')} around {recorded.get('bot', '?')} against {recorded.get('opponents', '?')}"
        )
    else:
        data = collect(
            str(bot.folder), games, opponents, teacher, simulations, workers=workers, seed=seed, progress=progress
        )
        if data_path is not None:
            Path(data_path).parent.mkdir(parents=True, exist_ok=True)
            meta = np.array(json.dumps(recorded, sort_keys=True))
            np.savez_compressed(data_path, **data, recorded_by=meta)  # type: ignore[arg-type]
    collect_s = time.time() - t0
    log(
        f"{len(data['pol_target'])} teacher decisions, {len(data['val_target'])} value targets; "
        f"teacher's win rate {float(data['teacher_win_rate']):.3f} ({collect_s:.0f} s)"
    )
    params, vparams, report = fit(
        bot, data, epochs=epochs, lr=lr, policy_weight=policy_weight, value_weight=value_weight, seed=seed, log=log
    )
    # the source's measured strength and conversion record describe other weights; a value-only fit
    # keeps the policy's weights exactly, so its play and the strength measured on it stand
    drop = ("converted_from", "architecture", "format", "format_version") + (
        () if policy_weight <= 0 else ("strength",)
    )
    card = {k: v for k, v in bot.card.items() if k not in drop}
    card["created"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    if command:
        card["reproduce"] = f"{card['reproduce']} && {command}" if card.get("reproduce") else command
    training = dict(card.get("training") or {})
    rounds = training.get("distill") or []
    rounds = [rounds] if isinstance(rounds, dict) else list(rounds)
    rounds.append(
        {
            "from": str(bot_path),
            "from_weights_sha256": bot.hashes.get("weights.safetensors"),
            # the games' teacher and opponents (those of a --data file when it was read)
            "teacher": recorded.get("teacher"),
            "opponents": recorded.get("opponents"),
            "games": int(len(np.unique(data["val_game"]))),
            "teacher_win_rate": round(float(data["teacher_win_rate"]), 4),
            "policy_weight": policy_weight,
            "value_weight": value_weight,
            "lr": lr,
            "seed": seed,
            "collect_s": round(collect_s, 1),
            "fit": report,
            "command": command,
        }
    )
    if data_path is not None:
        rounds[-1]["data"] = {"path": str(data_path), "recorded_by": recorded}
    training["distill"] = rounds  # one entry per round, oldest first
    training["value_reward"] = value_reward(bot.card)  # what the value targets were
    card["training"] = training
    act = bot.arch["activation"]
    card = write_policy(params, act, card, out, onnx=True, value=vparams)
    if eval_games > 0:
        measure_strength(out, eval_games, workers=workers, progress=progress, log=log)
        card = json.loads((out / "card.json").read_text())
    return card
