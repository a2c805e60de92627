"""One-off conversion of format-1 bots (TorchScript ``policy.pt``) to the data-only format 2.

    .venv/bin/python scripts/convert_bots.py [checkpoints/<env_id> ...]   (default: every shipped bot)

TRUSTED INPUT ONLY: this reads ``policy.pt`` with ``torch.jit.load``, which can run code from the
file. Use it on bots whose origin you trust (the project's own shipped bots); BoardZoo's loader never
does this. For each folder it extracts the weights, writes ``weights.safetensors``, ``policy.onnx``
and a format-2 ``card.json`` (keeping the training facts, the reproducing command and the measured
strength), then checks, on every decision of real games (random and bot moves mixed, every player
count), that the old module, the rebuilt torch module (loaded through the checked loader), the ONNX
model and the numpy policy choose the same action, one observation at a time and in batches. Only
then is ``policy.pt`` removed; ``converted_from`` in the card records its hash and the check.
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ["hidden_castle_v0", "downforce_v0", "hydropolis_v0", "voll_verplant_v0", "get_on_board_v0"]


def old_params(pt: Path) -> tuple[list[np.ndarray], str, torch.nn.Module]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        old = torch.jit.load(str(pt), map_location="cpu")  # trusted: our own file
    sd = {k: v.detach().numpy().astype(np.float32) for k, v in old.state_dict().items()}
    lin = sorted({int(k.split(".")[1]) for k in sd if k.startswith("net.")})
    params = []
    for i in lin:
        params += [sd[f"net.{i}.weight"], sd[f"net.{i}.bias"]]
    acts = {getattr(old.net, str(i)).original_name for i in range(2 * len(lin) - 1) if i % 2}
    assert len(acts) <= 1 and acts <= {"Tanh", "ReLU"}, acts
    activation = "relu" if acts == {"ReLU"} else "tanh"
    offset = int(getattr(old, "offset", -1)) if hasattr(old, "offset") else -1
    if offset >= 0:
        params += [sd["gain"], np.array([offset], np.float32)]
    assert set(sd) - {f"net.{i}.{w}" for i in lin for w in ("weight", "bias")} <= {"gain"}, sorted(sd)
    assert offset >= 0 or sd.get("gain", np.zeros(0)).size == 0
    return params, activation, old


def decisions(game, bot, games: int, seed: int):
    from boardzoo.envs.core.game import CHANCE

    g = type(game)
    rng = np.random.default_rng(seed)
    counts = list(range(g.min_players, g.max_players + 1))
    for k in range(games):
        st = game.new_initial_state(counts[k % len(counts)])
        while not st.is_terminal():
            p = st.current_player()
            if p == CHANCE:
                st.apply_action(st.sample_chance(rng))
                continue
            obs, mask = st.observation(p), st.legal_mask()
            yield obs, mask
            a = (
                bot.act({"observation": obs, "action_mask": mask})
                if rng.random() < 0.5
                else int(rng.choice(np.flatnonzero(mask)))
            )
            st.apply_action(a)


def convert(folder: Path, games: int = 100) -> dict:

    from boardzoo.training.export import sha256

    pt = folder / "policy.pt"
    old_card = json.loads((folder / "card.json").read_text())
    params, activation, old = old_params(pt)
    assert activation == old_card.get("net", {}).get("activation", "tanh"), (activation, old_card.get("net"))
    old_hash = sha256(pt)
    assert old_hash == old_card["files"]["policy.pt"], "policy.pt does not match its card"
    card = {k: v for k, v in old_card.items() if k not in ("files", "format", "format_version", "net", "onnx_error")}
    card["training"] = dict(card.get("training", {}), net=old_card.get("net"))
    keep = folder / "policy.pt.old"  # write_policy removes a stale policy.pt; keep it until checked
    pt.rename(keep)
    try:
        checked = _write_and_check(folder, params, activation, card, old, old_card, games)
    except BaseException:
        keep.rename(pt)
        raise
    keep.unlink()
    return checked


def _write_and_check(folder, params, activation, card, old, old_card, games):
    import onnxruntime as ort

    from boardzoo.envs import make_game
    from boardzoo.training.export import load_bot, write_card, write_policy
    from boardzoo.training.policy import NumpyPolicy

    old_hash = old_card["files"]["policy.pt"]
    write_policy(params, activation, card, folder)
    bot = load_bot(folder)  # the checked loader
    game = make_game(old_card["env_id"], **old_card["options"])
    sess = ort.InferenceSession(str(folder / "policy.onnx"))
    npol = NumpyPolicy(params, activation)
    obs_all, mask_all = [], []
    t0 = time.time()
    with torch.inference_mode():
        for obs, mask in decisions(game, bot, games, seed=2024):
            want = int(old(torch.from_numpy(obs), torch.from_numpy(mask.astype(np.int8))))
            got = bot.act({"observation": obs, "action_mask": mask})
            assert got == want == npol.act(obs, mask), (folder, want, got)
            obs_all.append(obs)
            mask_all.append(mask.astype(np.int8))
        obs_b, mask_b = np.stack(obs_all), np.stack(mask_all)
        want = old(torch.from_numpy(obs_b), torch.from_numpy(mask_b)).numpy()
        assert (bot.module(torch.from_numpy(obs_b), torch.from_numpy(mask_b)).numpy() == want).all()
        assert (sess.run(None, {"observation": obs_b, "action_mask": mask_b})[0] == want).all()
        assert (npol.actions(obs_b, mask_b) == want).all()
    n = len(obs_b)
    card = json.loads((folder / "card.json").read_text())
    card["converted_from"] = {
        "file": "policy.pt",
        "format": "boardzoo-policy 1 (TorchScript)",
        "sha256": old_hash,
        "checked": f"same action as the old module on {n} decisions of {games} games (single and batched; "
        f"rebuilt torch module, ONNX under onnxruntime, numpy policy)",
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
    }
    write_card(folder, card)
    load_bot(folder)
    print(f"{folder.name}: converted; {n} decisions identical ({time.time() - t0:.0f} s); policy.pt removed")
    return card


if __name__ == "__main__":
    folders = [Path(a) for a in sys.argv[1:]] or [ROOT / "checkpoints" / e for e in SHIPPED]
    torch.set_num_threads(1)
    for f in folders:
        if (f / "policy.pt").is_file():
            convert(f)
        else:
            print(f"{f}: no policy.pt, nothing to convert")
