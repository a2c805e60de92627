"""Stand-alone bots: export a training run, load it back with torch alone.

``boardzoo export RUN_DIR [--out DIR] [--eval-games N]`` writes into ``DIR``:

``policy.pt``    TorchScript module ``(observation, action_mask) -> action`` (greedy over the legal
                 actions; batched or single), with the card embedded as ``boardzoo.json``
``policy.onnx``  the same network as ONNX (inputs ``observation``, ``action_mask``), when the
                 exporter is available
``card.json``    env id and version, options, observation shape, action count, network, training
                 steps and wall time, the command that reproduces it, measured strength, file hashes

Loading (:func:`load_policy`, :func:`load_bot`) uses ``torch.jit.load`` only (TorchScript's
restricted loader: no arbitrary unpickling), checks the file hash against the card, and checks the
env id, env version, observation size and action count against the installed game. A wrong env
or version, a damaged or foreign file each raise :class:`CheckpointError` with a clear message.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.envs import BoardZooError, game_class, make_game, names

FORMAT = "boardzoo-policy"
FORMAT_VERSION = 1
META_NAME = "boardzoo.json"


class CheckpointError(BoardZooError):
    """An exported bot that cannot be used here (missing, damaged, or for another env/version)."""


def checkpoints_root() -> Path:
    """``$BOARDZOO_CHECKPOINTS`` or the repository's ``checkpoints/`` folder."""
    env = os.environ.get("BOARDZOO_CHECKPOINTS")
    return Path(env) if env else Path(__file__).resolve().parent.parent / "checkpoints"


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# ---------------------------------------------------------------------- the module
def build_module(params: list[np.ndarray], activation: str = "tanh"):
    """TorchScript-able policy module from ``[W1, b1, ..., Wout, bout]`` (+ the action-feature skip
    ``[gain, [offset]]``, see :mod:`.policy`)."""
    import torch
    from torch import nn

    from .policy import split_params

    class ExportedPolicy(nn.Module):
        """``forward(observation, action_mask) -> action``: argmax of the logits over legal actions."""

        def __init__(self, net: nn.Sequential, offset: int, gain: torch.Tensor):
            super().__init__()
            self.net = net
            self.offset = offset                 # -1: no action-feature skip
            self.register_buffer("gain", gain)

        @torch.jit.export
        def logits(self, observation: torch.Tensor) -> torch.Tensor:
            x = observation.to(torch.float32)
            z = self.net(x)
            if self.offset >= 0:
                z = z + self.gain * x[..., self.offset:self.offset + self.gain.shape[0]]
            return z

        def forward(self, observation: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
            z = self.logits(observation)
            z = torch.where(action_mask > 0, z, torch.full_like(z, -1e9))
            return torch.argmax(z, dim=-1)

    pairs, skip = split_params(params)
    layers: list[nn.Module] = []
    for i, (w, b) in enumerate(pairs):
        lin = nn.Linear(w.shape[1], w.shape[0])
        with torch.no_grad():
            lin.weight.copy_(torch.as_tensor(w))
            lin.bias.copy_(torch.as_tensor(b))
        layers.append(lin)
        if i < len(pairs) - 1:
            layers.append(nn.Tanh() if activation == "tanh" else nn.ReLU())
    offset, gain = skip if skip is not None else (-1, np.zeros(0, dtype=np.float32))
    return ExportedPolicy(nn.Sequential(*layers), offset, torch.as_tensor(gain, dtype=torch.float32)).eval()


def write_policy(params: list[np.ndarray], activation: str, card: dict, out: str | Path,
                 onnx: bool = True) -> dict:
    """Write policy.pt (+ policy.onnx) and card.json into ``out``; returns the card."""
    import torch

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    module = build_module(params, activation)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        scripted = torch.jit.script(module)
    card = dict(card)
    card.update({"format": FORMAT, "format_version": FORMAT_VERSION})
    card.pop("files", None)
    pt = out / "policy.pt"
    scripted.save(str(pt), _extra_files={META_NAME: json.dumps(card, sort_keys=True)})
    files = {"policy.pt": sha256(pt)}
    if onnx:
        try:
            ox = out / "policy.onnx"
            obs = torch.zeros(1, card["observation_shape"][0])
            mask = torch.ones(1, card["num_actions"], dtype=torch.int8)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.onnx.export(module, (obs, mask), str(ox), dynamo=False,
                                  input_names=["observation", "action_mask"], output_names=["action"],
                                  dynamic_axes={"observation": {0: "batch"}, "action_mask": {0: "batch"},
                                                "action": {0: "batch"}})
            files["policy.onnx"] = sha256(ox)
        except Exception as e:  # ONNX is a convenience; TorchScript is the reference
            card["onnx_error"] = f"{type(e).__name__}: {e}"[:300]
    card["files"] = files
    (out / "card.json").write_text(json.dumps(card, indent=1, sort_keys=True))
    return card


# ---------------------------------------------------------------------- loading
def _resolve(path_or_env: str | Path) -> Path:
    p = Path(path_or_env)
    if not p.exists() and str(path_or_env) in names():
        p = checkpoints_root() / str(path_or_env)
        if not (p / "policy.pt").is_file():
            raise CheckpointError(f"no shipped bot for {path_or_env} (looked for {p / 'policy.pt'}); "
                                  f"train one: boardzoo train configs/{path_or_env}.yaml, then boardzoo export")
    if p.is_dir():
        p = p / "policy.pt"
    if not p.is_file():
        raise CheckpointError(f"no exported bot at {str(path_or_env)!r} (expected a folder with policy.pt, "
                              f"a policy.pt file, or a registered env id)")
    return p


def load_policy(path_or_env: str | Path, env_id: str | None = None, options: dict | None = None):
    """Load an exported TorchScript policy and its card, checking it fits ``env_id``.

    Returns:
        ``(module, card)``.
    Raises:
        CheckpointError: missing, damaged, foreign file, or for another env id / version / shape.
    """
    import torch

    pt = _resolve(path_or_env)
    card_path = pt.parent / "card.json"
    card_file = None
    if card_path.is_file():
        try:
            card_file = json.loads(card_path.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise CheckpointError(f"{card_path} is damaged (not JSON: {e})") from None
        want = (card_file.get("files") or {}).get("policy.pt")
        if want and want != sha256(pt):
            raise CheckpointError(f"{pt} is damaged or was replaced: its SHA-256 does not match {card_path}")
    extra = {META_NAME: ""}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            module = torch.jit.load(str(pt), map_location="cpu", _extra_files=extra)
    except Exception as e:
        raise CheckpointError(f"{pt} is damaged or not a TorchScript policy file "
                              f"({type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''})") from None
    try:
        raw = extra[META_NAME]
        meta = json.loads(raw.decode() if isinstance(raw, bytes) else raw)
        assert meta.get("format") == FORMAT
    except Exception:
        raise CheckpointError(f"{pt} is a TorchScript file but not a BoardZoo policy (no {META_NAME} card)") from None
    card = card_file or meta
    for key in ("env_id", "version", "observation_shape", "num_actions"):
        if card_file is not None and card_file.get(key) != meta.get(key):
            raise CheckpointError(f"{card_path} and {pt} disagree on {key}: {card_file.get(key)!r} vs {meta.get(key)!r}")
    bot_env = meta["env_id"]
    if env_id is not None and bot_env != env_id:
        raise CheckpointError(f"{pt} is a bot for {bot_env}, not for {env_id}")
    if bot_env not in names():
        raise CheckpointError(f"{pt} is a bot for {bot_env}, which is not a registered env here")
    installed = game_class(bot_env).version
    if meta["version"] != installed:
        raise CheckpointError(f"{pt} was trained on {bot_env} version {meta['version']}, the installed "
                              f"version is {installed}; retrain or install the matching version")
    game = make_game(bot_env, **(options if options is not None else meta.get("options", {})))
    if [game.observation_size] != list(meta["observation_shape"]) or game.num_actions != meta["num_actions"]:
        raise CheckpointError(f"{pt} expects observations of shape {meta['observation_shape']} and "
                              f"{meta['num_actions']} actions; {bot_env} with options {game.options} has "
                              f"({game.observation_size},) and {game.num_actions}")
    try:
        with torch.inference_mode():
            a = module(torch.zeros(game.observation_size), torch.ones(game.num_actions, dtype=torch.int8))
        assert 0 <= int(a) < game.num_actions
    except Exception as e:
        raise CheckpointError(f"{pt} does not run on ({game.observation_size},) observations: {e}") from None
    return module, card


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
            a = int(self.module(torch.from_numpy(np.asarray(observation["observation"], dtype=np.float32)),
                                torch.from_numpy(mask.astype(np.int8))))
        if not mask[a]:  # only if every logit is masked out (no legal action): fail loudly
            raise ValueError("NeuralBot: the action mask has no legal action")
        return a


def load_bot(path_or_env: str | Path, env_id: str | None = None, options: dict | None = None) -> NeuralBot:
    """The exported bot at ``path_or_env`` (a folder, a policy.pt, or an env id for the shipped one).

    ``load_bot("downforce_v0")`` loads ``checkpoints/downforce_v0/``.
    """
    if env_id is None and str(path_or_env) in names() and not Path(path_or_env).exists():
        env_id = str(path_or_env)
    module, card = load_policy(path_or_env, env_id=env_id, options=options)
    return NeuralBot(module, card)


# ---------------------------------------------------------------------- export a run
def export_run(run_dir: str | Path, out: str | Path | None = None, which: str = "best", eval_games: int = 0,
               workers: int = 2, onnx: bool = True, seed: int = 12345, progress: bool = True,
               log: Any = print) -> Path:
    """Export a training run (see module docstring); optionally measure its strength.

    Args:
        run_dir: a run folder written by ``boardzoo train``.
        out: output folder (default ``RUN_DIR/export``).
        which: ``best`` (best evaluation during training) or ``last``.
        eval_games: games per opponent (random, heuristic) at the default player count to measure
            and record in the card (0: record the last training evaluation instead).
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
    game = make_game(cfg.env_id, **cfg.options)
    out = Path(out) if out else run / "export"
    src_cfg = state.get("config_path") or f"configs/{cfg.env_id}.yaml"
    card = {
        "env_id": cfg.env_id, "version": type(game).version, "options": dict(game.options),
        "observation_shape": [game.observation_size], "num_actions": game.num_actions,
        "net": {"hidden": cfg.net.hidden, "activation": cfg.net.activation, "action_skip": cfg.net.action_skip},
        "training": {"steps": state.get("steps"), "wall_s": round(state.get("wall_s", 0.0), 1),
                     "checkpoint": pfile.name, "checkpoint_steps": state.get("best_steps" if pfile.name.startswith("best") else "steps"),
                     "players": cfg.players(), "seed": cfg.seed, "config": src_cfg},
        "reproduce": (f"boardzoo train {src_cfg} && boardzoo export {run} --out {out} --which {which}"
                      f" --eval-games {eval_games}"),
        "strength": {"source": "last training evaluation", "evaluations": state.get("last_eval", {})},
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    card = write_policy(params, cfg.net.activation, card, out, onnx=onnx)
    if eval_games > 0:
        measure_strength(out, eval_games, workers=workers, seed=seed, progress=progress, log=log)
    return out


def measure_strength(bot_dir: str | Path, games: int, opponents: tuple[str, ...] = ("random", "heuristic"),
                     workers: int = 2, seed: int = 12345, progress: bool = True, log: Any = print) -> dict:
    """Play the exported bot against each opponent at the default player count (bot in one seat,
    rotated; the opponent in all others) and record the figures in its card."""
    from .tournament import run_tournament, save_results

    bot_dir = Path(bot_dir)
    card_path = bot_dir / "card.json"
    card = json.loads(card_path.read_text())
    env_id = card["env_id"]
    n = game_class(env_id).default_players
    strength = {"source": "measured at export", "num_players": n, "even_share": 1.0 / n, "results": {}}
    for opp in opponents:
        cmd = (f"boardzoo eval {env_id} --bots neural:{bot_dir},{opp} --games {games} --players {n} "
               f"--seed {seed} --workers {workers}")
        res = run_tournament(env_id, [f"neural:{bot_dir}", opp], games, num_players=n, options=card.get("options"),
                             workers=workers, seed=seed, progress=progress, command=cmd)
        save_results(res, bot_dir / f"eval_vs_{opp.replace(':', '_')}")
        row = res.table()[0]
        strength["results"][opp] = {"games": len(res.games), "win_rate": round(row["win_rate"], 4),
                                    "ci95": [round(x, 4) for x in row["ci95"]],
                                    "above_even_share": row["above_even_share"], "command": cmd}
        log(res.format())
    strength["meets_bar"] = all(r["above_even_share"] for r in strength["results"].values())
    card["strength"] = strength
    files = card.get("files", {})
    card_path.write_text(json.dumps(card, indent=1, sort_keys=True))
    card["files"] = files
    return strength
