"""Stand-alone bots: export a training run as a data-only bot folder, load it back safely.

``boardzoo export RUN_DIR [--out DIR] [--eval-games N] [--value-games N]`` writes into ``DIR`` (see
:mod:`.botformat` for the format and what loading guarantees):

``weights.safetensors``  the policy's weights (no code can ride along), with a second record of the
                         env id, version, options, architecture and the SHA-256 of the tensors and ONNX
``policy.onnx``          the same greedy policy for onnxruntime and other runtimes (built by our code
                         node by node, :func:`write_onnx`); inputs and dtypes are in the card
``card.json``            env id and version, options, observation shape and layout, architecture,
                         ONNX interface, file hashes, training facts, the reproducing command, strength

:func:`load_bot` / :func:`load_policy` read the card and the weights as data, check everything
(:func:`.botformat.read_bot`), and rebuild the module with our own code (:mod:`.botnet`). They never
call ``torch.jit.load``, ``torch.load`` or ``pickle`` on any file.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.envs import ConfigError, game_class, make_game

from .botformat import (  # noqa: F401  (re-exported: the public names of bot files)
    CARD,
    FORMAT,
    FORMAT_VERSION,
    OLD_FILE,
    ONNX,
    VALUE_PREFIX,
    WEIGHTS,
    BotData,
    CheckpointError,
    architecture,
    canonical,
    checkpoints_root,
    layout_of,
    params_to_tensors,
    read_bot,
    read_card,
    resolve,
    sha256,
    shipped_bot_dir,
    value_to_tensors,
    write_weights,
)

ONNX_OPSET = 17
ONNX_IR_VERSION = 8  # onnxruntime >= 1.11 reads it


# ---------------------------------------------------------------------- the module and ONNX
def build_module(params: list[np.ndarray], activation: str = "tanh"):
    """The torch module (:class:`.botnet.BotNet`) of a training parameter list (see :mod:`.policy`)."""
    from . import botnet

    tensors, offset, hidden = params_to_tensors(params)
    w0 = tensors["layers.0.weight"]
    arch = architecture(w0.shape[1], hidden, tensors[f"layers.{len(hidden)}.weight"].shape[0], activation, offset)
    return botnet.build(arch, tensors)


def onnx_interface(arch: dict) -> dict:
    """The card's ``onnx`` entry: file, opset, inputs and outputs with names, dtypes and shapes."""
    n, a = arch["input_size"], arch["num_actions"]
    return {
        "file": ONNX,
        "opset": ONNX_OPSET,
        "ir_version": ONNX_IR_VERSION,
        "inputs": [
            {"name": "observation", "dtype": "float32", "shape": ["batch", n]},
            {"name": "action_mask", "dtype": "int8", "shape": ["batch", a]},
        ],
        "outputs": [{"name": "action", "dtype": "int64", "shape": ["batch"]}],
        "batching": (
            f"batched only: observation (B, {n}) and action_mask (B, {a}) give action (B,); for one "
            f"observation pass obs[None] and mask[None] and read action[0]"
        ),
        "dtypes": (
            "exactly float32 observation and int8 action_mask (legal where > 0); onnxruntime refuses "
            "float64 or bool inputs (INVALID_ARGUMENT): cast with .astype(np.float32) / .astype(np.int8)"
        ),
    }


def write_onnx(arch: dict, tensors: dict[str, np.ndarray], path: str | Path, doc: str = "") -> None:
    """Write the greedy policy as ONNX, node by node (no tracing): ``(observation (B, N) float32,
    action_mask (B, A) int8) -> action (B,) int64``, the argmax of the logits where the mask is > 0."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    n, a = arch["input_size"], arch["num_actions"]
    inits, nodes = [], []

    def const(name: str, value: Any, dtype: Any = None) -> str:
        inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    const("zero_f", 0.0, np.float32)
    const("neg", -1e9, np.float32)
    h = "observation"
    n_layers = len(arch["hidden"]) + 1
    for i in range(n_layers):
        w = const(f"layers.{i}.weight", tensors[f"layers.{i}.weight"], np.float32)
        b = const(f"layers.{i}.bias", tensors[f"layers.{i}.bias"], np.float32)
        nodes.append(helper.make_node("Gemm", [h, w, b], [f"linear{i}"], transB=1))
        h = f"linear{i}"
        if i < n_layers - 1:
            nodes.append(helper.make_node("Tanh" if arch["activation"] == "tanh" else "Relu", [h], [f"act{i}"]))
            h = f"act{i}"
    if arch.get("action_skip") is not None:
        off = arch["action_skip"]["offset"]
        const("skip_gain", tensors["skip_gain"], np.float32)
        const("skip_start", [off], np.int64)
        const("skip_end", [off + a], np.int64)
        const("skip_axis", [1], np.int64)
        nodes += [
            helper.make_node("Slice", ["observation", "skip_start", "skip_end", "skip_axis"], ["action_features"]),
            helper.make_node("Mul", ["action_features", "skip_gain"], ["skip"]),
            helper.make_node("Add", [h, "skip"], ["logits"]),
        ]
    else:
        nodes.append(helper.make_node("Identity", [h], ["logits"]))
    nodes += [
        helper.make_node("Cast", ["action_mask"], ["mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Greater", ["mask_f", "zero_f"], ["legal"]),
        helper.make_node("Where", ["legal", "logits", "neg"], ["masked"]),
        helper.make_node("ArgMax", ["masked"], ["action"], axis=1, keepdims=0),
    ]
    graph = helper.make_graph(
        nodes,
        "boardzoo_policy",
        [
            helper.make_tensor_value_info("observation", TensorProto.FLOAT, ["batch", n]),
            helper.make_tensor_value_info("action_mask", TensorProto.INT8, ["batch", a]),
        ],
        [helper.make_tensor_value_info("action", TensorProto.INT64, ["batch"])],
        initializer=inits,
    )
    model = helper.make_model(
        graph, producer_name="boardzoo", doc_string=doc, opset_imports=[helper.make_opsetid("", ONNX_OPSET)]
    )
    model.ir_version = ONNX_IR_VERSION
    onnx.checker.check_model(model)
    Path(path).write_bytes(model.SerializeToString())


# ---------------------------------------------------------------------- writing a bot folder
def write_policy(
    params: list[np.ndarray],
    activation: str,
    card: dict,
    out: str | Path,
    onnx: bool = True,
    value: list[np.ndarray] | None = None,
) -> dict:
    """Write ``weights.safetensors`` (+ ``policy.onnx``) and ``card.json`` into ``out``; returns the card.

    ``value`` (the critic's ``[W1, b1, ..., Wv, bv]``) adds the value head to the weights (search bots
    use it); ``policy.onnx`` stays the greedy policy.

    ``card`` needs ``env_id``, ``version``, ``options``, ``observation_shape``, ``num_actions``;
    the observation layout (from the installed game, unless given), the architecture, the ONNX
    interface, the format and the file hashes are filled in here.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tensors, offset, hidden = params_to_tensors(params)
    value_hidden = None
    if value is not None:
        vt, value_hidden = value_to_tensors(value)
        if vt[f"{VALUE_PREFIX}.0.weight"].shape[1] != card["observation_shape"][0]:
            raise ValueError(
                f"the value weights take {vt[f'{VALUE_PREFIX}.0.weight'].shape[1]} inputs, the card's "
                f"observation_shape is {card['observation_shape']}"
            )
        tensors.update(vt)
    arch = architecture(card["observation_shape"][0], hidden, card["num_actions"], activation, offset, value_hidden)
    if (
        tensors["layers.0.weight"].shape[1] != arch["input_size"]
        or tensors[f"layers.{len(hidden)}.bias"].shape[0] != arch["num_actions"]
    ):
        raise ValueError(
            f"the weights ({tensors['layers.0.weight'].shape[1]} inputs, "
            f"{tensors[f'layers.{len(hidden)}.bias'].shape[0]} actions) do not fit the card's "
            f"observation_shape {card['observation_shape']} and num_actions {card['num_actions']}"
        )
    card = {k: v for k, v in card.items() if k not in ("files", "net", "onnx_error")}
    card.update({"format": FORMAT, "format_version": FORMAT_VERSION, "architecture": arch})
    if "observation_layout" not in card:
        game = make_game(card["env_id"], **card["options"])
        card["observation_layout"] = (
            layout_of(game)
            if game.observation_size == arch["input_size"]
            else [{"name": "observation", "offset": 0, "length": arch["input_size"]}]
        )
    for stale in (OLD_FILE, ONNX):  # a format-1 TorchScript file, or an ONNX file not written now
        if (out / stale).is_file():
            (out / stale).unlink()
    files = {}
    if onnx:
        card["onnx"] = onnx_interface(arch)
        write_onnx(arch, tensors, out / ONNX, doc=f"BoardZoo bot for {card['env_id']} v{card['version']}")
        files[ONNX] = sha256(out / ONNX)
    else:
        card.pop("onnx", None)
    write_weights(
        out / WEIGHTS,
        tensors,
        {
            "format": FORMAT,
            "format_version": str(FORMAT_VERSION),
            "env_id": card["env_id"],
            "version": card["version"],
            "options": card["options"],
            "architecture": arch,
            "onnx_sha256": files.get(ONNX, ""),
        },
    )
    files[WEIGHTS] = sha256(out / WEIGHTS)
    card["files"] = dict(sorted(files.items()))
    write_card(out, card)
    return card


write_bot = write_policy


def write_card(folder: str | Path, card: dict) -> None:
    """Write ``card`` as ``folder/card.json``: sorted keys, strict JSON (no NaN: :func:`.botformat.read_card`
    would refuse it), so that every writer of a card writes it the same way."""
    (Path(folder) / CARD).write_text(json.dumps(card, indent=1, sort_keys=True, allow_nan=False) + "\n")


def refresh_layout(folder: str | Path) -> dict:
    """Rewrite the card's ``observation_layout`` from the installed game, when only the block names
    changed (same env version, options, observation size and action count). Returns the card."""
    folder = resolve(folder)
    card = read_card(folder)
    game = make_game(card["env_id"], **card["options"])
    if (
        type(game).version != card["version"]
        or [game.observation_size] != card["observation_shape"]
        or game.num_actions != card["num_actions"]
    ):
        raise CheckpointError(
            f"{folder / CARD}: the installed {card['env_id']} (version {type(game).version}, "
            f"observation {game.observation_size}, {game.num_actions} actions) is not the one this "
            f"bot was trained on; retrain it instead of refreshing the layout"
        )
    card["observation_layout"] = layout_of(game)
    write_card(folder, card)
    return card


# ---------------------------------------------------------------------- loading
def load_policy(
    path_or_env: str | Path,
    env_id: str | None = None,
    options: dict | None = None,
    sha256: str | None = None,
    any_options: bool = False,
):
    """Load a bot folder: check it (:func:`.botformat.read_bot`), rebuild its torch module.

    Args:
        path_or_env: a bot folder, one of its files, or an env id (the shipped bot).
        env_id: the env it must be for.
        options: the options of the env it will play; a difference from those it was trained under
            is a :class:`CheckpointError` naming the option(s) to set (``any_options=True`` allows
            other rule options as long as the observation still fits).
        sha256: pin the SHA-256 of ``weights.safetensors`` (trust a bot from elsewhere).
    Returns:
        ``(module, card)``: a :class:`.botnet.BotNet` and the checked card.
    """
    from . import botnet

    bot = read_bot(path_or_env, env_id=env_id, options=options, sha256_pin=sha256, any_options=any_options)
    return botnet.build(bot.arch, bot.tensors), bot.card


class NeuralBot:
    """An exported policy as a Bot: greedy over the legal actions of ``observation["action_mask"]``."""

    needs_state = False

    def __init__(self, module: Any, card: dict, name: str = "neural"):
        import torch

        self.module = module
        self.card = card
        self.name = name
        self._torch = torch

    def reset(self) -> None:
        pass

    def act(self, observation: dict) -> int:
        torch = self._torch
        mask = np.asarray(observation["action_mask"])
        with torch.inference_mode():
            a = int(
                self.module(
                    torch.from_numpy(np.asarray(observation["observation"], dtype=np.float32)),
                    torch.from_numpy((mask > 0).astype(np.int8)),
                )
            )
        if not mask[a]:  # only if every logit is masked out (no legal action): fail loudly
            raise ValueError("NeuralBot: the action mask has no legal action")
        return a


def load_bot(
    path_or_env: str | Path,
    env_id: str | None = None,
    options: dict | None = None,
    sha256: str | None = None,
    any_options: bool = False,
) -> NeuralBot:
    """The exported bot at ``path_or_env`` (a folder, one of its files, or an env id for the shipped
    one, found in the installed package from any working directory). See :func:`load_policy`.

    ``load_bot("downforce_v0")`` loads the shipped ``checkpoints/downforce_v0/``.
    """
    module, card = load_policy(path_or_env, env_id=env_id, options=options, sha256=sha256, any_options=any_options)
    return NeuralBot(module, card)


# ---------------------------------------------------------------------- export a run
def export_run(
    run_dir: str | Path,
    out: str | Path | None = None,
    which: str = "best",
    eval_games: int = 0,
    value_games: int = 0,
    workers: int = 2,
    onnx: bool = True,
    seed: int = 12345,
    progress: bool = True,
    log: Any = print,
) -> Path:
    """Export a training run (see module docstring); optionally measure its strength.

    Args:
        run_dir: a run folder written by ``boardzoo train``.
        out: output folder (default ``RUN_DIR/export``).
        which: ``best`` (best evaluation during training) or ``last``.
        eval_games: games per opponent (random, heuristic) at the default player count to measure
            and record in the card (0: record the last training evaluation instead).
        value_games: games of the bot against the heuristic and itself to check its value head
            against the outcomes (:func:`measure_value`; 0: no check).
    """
    from .config import load_config

    run = Path(run_dir)
    if not (run / "state.json").is_file():
        raise CheckpointError(f"{run} is not a training run (no state.json); run boardzoo train first")
    cfg = load_config(run / "config.yaml")
    state = json.loads((run / "state.json").read_text())
    pfile = run / ("best_policy.npz" if which == "best" and (run / "best_policy.npz").is_file() else "policy.npz")
    with np.load(pfile, allow_pickle=False) as z:
        params = [z[f"arr_{i}"] for i in range(len(z.files))]
    vfile = run / pfile.name.replace("policy", "value")  # the critic saved with that policy, if any
    value = None
    if vfile.is_file():
        with np.load(vfile, allow_pickle=False) as z:
            value = [z[f"arr_{i}"] for i in range(len(z.files))]
    game = make_game(cfg.env_id, **cfg.options)
    out = Path(out) if out else run / "export"
    src_cfg = state.get("config_path") or f"configs/{cfg.env_id}.yaml"
    card = {
        "env_id": cfg.env_id,
        "version": type(game).version,
        "options": dict(game.options),
        "observation_shape": [game.observation_size],
        "num_actions": game.num_actions,
        "training": {
            "net": {"hidden": cfg.net.hidden, "activation": cfg.net.activation, "action_skip": cfg.net.action_skip},
            "steps": state.get("steps"),
            "wall_s": round(state.get("wall_s", 0.0), 1),
            "checkpoint": pfile.name,
            "checkpoint_steps": state.get("best_steps" if pfile.name.startswith("best") else "steps"),
            "players": cfg.players(),
            "reward": cfg.reward,
            "value_head": value is not None,
            "seed": cfg.seed,
            "config": src_cfg,
        },
        "reproduce": (
            f"boardzoo train {src_cfg} && boardzoo export {run} --out {out} --which {which} --eval-games {eval_games}"
        ),
        "strength": {"source": "last training evaluation", "evaluations": state.get("last_eval", {})},
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    card = write_policy(params, cfg.net.activation, card, out, onnx=onnx, value=value)
    if eval_games > 0:
        measure_strength(out, eval_games, workers=workers, seed=seed, progress=progress, log=log)
    if value_games > 0 and value is not None:
        measure_value(out, value_games, workers=workers, seed=seed, progress=progress, log=log)
    return out


MARGIN = 0.05
"""how far above the even share ``1/n`` a bot's 95% lower bound must be to clear the margin"""


def measure_strength(
    bot_dir: str | Path,
    games: int,
    opponents: tuple[str, ...] = ("random", "heuristic"),
    workers: int = 2,
    seed: int = 12345,
    progress: bool = True,
    log: Any = print,
) -> dict:
    """Play the exported bot against each opponent at the default player count (bot in one seat,
    rotated; the opponent in all others) and record the figures in its card."""
    from .tournament import run_tournament, save_results

    bot_dir = resolve(bot_dir)
    card = read_card(bot_dir)
    env_id = card["env_id"]
    n = game_class(env_id).default_players
    strength = {
        "source": "measured at export",
        "measured": time.strftime("%Y-%m-%d", time.gmtime()),
        "num_players": n,
        "even_share": 1.0 / n,
        "results": {},
    }
    for opp in opponents:
        cmd = (
            f"boardzoo eval {env_id} --bots neural:{bot_dir},{opp} --games {games} --players {n} "
            f"--seed {seed} --workers {workers}"
        )
        res = run_tournament(
            env_id,
            [f"neural:{bot_dir}", opp],
            games,
            num_players=n,
            options=card.get("options"),
            workers=workers,
            seed=seed,
            progress=progress,
            command=cmd,
        )
        save_results(res, bot_dir / f"eval_vs_{opp.replace(':', '_')}")
        row = res.table()[0]
        strength["results"][opp] = {
            "games": len(res.games),
            "win_rate": round(row["win_rate"], 4),
            "ci95": [round(x, 4) for x in row["ci95"]],
            "above_even_share": row["above_even_share"],
            # issue 19's bar: the interval's lower end at least 5 points above the even share
            "clears_margin": bool(row["ci95"][0] >= 1.0 / n + MARGIN),
            "command": cmd,
        }
        log(res.format())
    strength["meets_bar"] = all(r["above_even_share"] for r in strength["results"].values())
    strength["margin"] = MARGIN
    strength["clears_margin"] = all(r["clears_margin"] for r in strength["results"].values())
    card["strength"] = strength
    write_card(bot_dir, card)
    return strength


def measure_value(
    bot_dir: str | Path,
    games: int,
    opponents: tuple[str, ...] | None = None,
    workers: int = 2,
    seed: int = 12345,
    progress: bool = True,
    log: Any = print,
) -> dict:
    """Check the exported value head against real outcomes and record it in the card (``value_check``).

    The plain bot plays ``games`` games (seat rotated) against ``opponents`` (default: the heuristic
    and itself, alternating: :func:`.distill.collect`); every decision's observation is scored by the
    value head against the final reward of the seat that saw it (``score_returns()`` for a head that
    learned scores, else ``returns()``, as :func:`.search.value_reward` says). ``mse`` is set against
    ``outcome_variance``, the error of the best constant guess: a head with ``skill = 1 - mse /
    variance`` at or below 0 tells the search bot (:mod:`.search`) nothing at its leaves, however
    well the policy plays; :mod:`.distill` (``--value-only``) refits it. Decisions of one game are
    correlated, so the figure is over games, not decisions.

    Raises:
        ConfigError: the bot has no value head, or ``games`` < 1.
    """
    from .distill import collect
    from .policy import NumpyValue
    from .search import value_reward

    bot = read_bot(bot_dir)
    if bot.value_params is None:
        raise ConfigError(f"{bot.folder}: this bot has no value head to check (export it from a run with one)")
    if games < 1:
        raise ConfigError(f"value check: games must be >= 1, got {games}")
    opponents = tuple(opponents) if opponents else ("heuristic", f"neural:{bot.folder}")
    t0 = time.time()
    data = collect(str(bot.folder), games, opponents, teacher="neural", workers=workers, seed=seed, progress=progress)
    pred = NumpyValue(bot.value_params, bot.arch["activation"]).value(data["val_obs"])
    target = data["val_target"].astype(np.float64)
    mse = float(np.mean((pred - target) ** 2))
    var = float(np.var(target))
    skill = 1.0 - mse / var if var > 0 else None  # every outcome equal: nothing to predict
    check = {
        "measured": time.strftime("%Y-%m-%d", time.gmtime()),
        "games": games,
        "decisions": int(len(target)),
        "opponents": list(opponents),
        "reward": value_reward(bot.card),
        "mse": round(mse, 5),
        "outcome_variance": round(var, 5),
        "skill": None if skill is None else round(skill, 4),
        "informative": skill is not None and skill > 0,
        "seed": seed,
        "wall_s": round(time.time() - t0, 1),
        "command": f"boardzoo export {bot.folder} --measure-only --value-games {games} --seed {seed}",
    }
    if skill is None:
        verdict = "skill undefined: every outcome was the same"
    else:
        verdict = f"skill {skill:.3f}" + (
            "" if skill > 0 else " -- no better than a constant: refit it with boardzoo distill ... --value-only"
        )
    log(
        f"{bot.card['env_id']} value head over {games} games ({len(target)} decisions): mse {mse:.4f}, "
        f"outcome variance {var:.4f}, {verdict}"
    )
    card = read_card(bot.folder)
    card["value_check"] = check
    write_card(bot.folder, card)
    return check
