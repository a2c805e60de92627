"""Learner throughput: RLlib PPO with 1, 2, ... env runners vs the SB3 MaskablePPO path, same run.

    python benchmarks/bench_rllib.py                                   # hidden_castle_v0, runners 1,2, local Ray
    python benchmarks/bench_rllib.py --env voll_verplant_v0 --runners 1,2,4 --steps 20000
    python benchmarks/bench_rllib.py --address auto --runners 2,8,32   # on a Ray cluster (see README)

"Learner samples/s" is learner decisions collected *and trained on* per second of wall time
(sampling plus PPO updates, setup excluded), with the same game, league (one learner seat, the
other seats from the default opponent pool), network ([128, 128] tanh), PPO batch (2048 decisions,
minibatch 256, 4 epochs) in both stacks. SB3 runs ``n_envs`` SubprocVecEnv workers (default 2).
Each RLlib row builds a fresh algorithm and excludes one warm-up iteration. Prints a Markdown table
and writes it as JSON (``--out``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

HIDDEN = [128, 128]
BATCH, MINIBATCH, EPOCHS = 2048, 256, 4


def bench_sb3(env_id: str, steps: int, n_envs: int) -> dict:
    import torch
    from sb3_contrib import MaskablePPO

    from boardzoo.training.config import config_from_dict
    from boardzoo.training.train import make_vec_env

    torch.set_num_threads(1)
    cfg = config_from_dict({"env_id": env_id, "n_envs": n_envs, "vec": "subproc" if n_envs > 1 else "dummy"})
    vec = make_vec_env(cfg)
    model = MaskablePPO(
        "MlpPolicy",
        vec,
        n_steps=BATCH // n_envs,
        batch_size=MINIBATCH,
        n_epochs=EPOCHS,
        policy_kwargs={"net_arch": {"pi": HIDDEN, "vf": HIDDEN}, "activation_fn": torch.nn.Tanh},
        device="cpu",
        seed=0,
    )
    model.learn(BATCH)  # warm-up: one rollout and update
    t0 = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    dt = time.perf_counter() - t0
    vec.close()
    n = steps  # SB3 collects whole rollouts of BATCH: round up like it does
    n = -(-n // BATCH) * BATCH
    return {"stack": f"SB3 MaskablePPO, SubprocVecEnv x{n_envs}", "samples": n, "seconds": dt, "samples_per_s": n / dt}


def bench_rllib(env_id: str, steps: int, runners: int) -> dict:
    from boardzoo.integrations.rllib.module import SHARED
    from boardzoo.integrations.rllib.train import algorithm_config
    from boardzoo.training.config import config_from_dict

    cfg = config_from_dict(
        {
            "env_id": env_id,
            "backend": "rllib",
            "n_envs": 2,
            "net": {"hidden": HIDDEN},
            "ppo": {"n_steps": BATCH // 2, "batch_size": MINIBATCH, "n_epochs": EPOCHS},
            "rllib": {"num_env_runners": runners},
        }
    )
    algo = algorithm_config(cfg).build_algo()
    algo.train()  # warm-up
    t0, n = time.perf_counter(), 0
    while n < steps:
        r = algo.train()
        n += int(r["env_runners"]["num_module_steps_sampled"][SHARED])
    dt = time.perf_counter() - t0
    algo.stop()
    label = (
        f"RLlib PPO, {runners} env runner{'s' if runners != 1 else ''}"
        if runners
        else "RLlib PPO, sampling in the learner"
    )
    return {"stack": label, "samples": n, "seconds": dt, "samples_per_s": n / dt}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--env", default="hidden_castle_v0")
    ap.add_argument("--steps", type=int, default=8192, help="learner decisions per row (after warm-up)")
    ap.add_argument("--runners", default="1,2", help="comma list of RLlib env runner counts")
    ap.add_argument("--sb3-envs", type=int, default=2, help="SubprocVecEnv workers of the SB3 row (0: skip it)")
    ap.add_argument("--address", default=None, help="Ray cluster address (auto, ray://host:10001); default local")
    ap.add_argument("--num-cpus", type=int, default=None, help="local Ray only: CPUs Ray may use")
    ap.add_argument("--out", default="runs/bench_rllib.json")
    a = ap.parse_args()

    import ray

    runners = [int(x) for x in a.runners.split(",") if x.strip()]
    rows = []
    if a.sb3_envs > 0:
        rows.append(bench_sb3(a.env, a.steps, a.sb3_envs))
        print(rows[-1], flush=True)
    if a.address:
        ray.init(address=a.address, log_to_driver=False)
    else:
        ray.init(
            num_cpus=a.num_cpus or max(os.cpu_count() or 1, max(runners) + 1),
            include_dashboard=False,
            log_to_driver=False,
        )
    cpus = ray.cluster_resources().get("CPU", 0)
    for k in runners:
        rows.append(bench_rllib(a.env, a.steps, k))
        print(rows[-1], flush=True)
    ray.shutdown()
    machine = f"{platform.machine()}, {os.cpu_count()} CPUs here, Ray cluster {cpus:.0f} CPUs"
    print(f"\n{a.env}, {machine}; learner decisions per second (sampling + PPO updates, setup excluded)\n")
    print("| stack | samples | seconds | samples/s |\n|---|---|---|---|")
    for r in rows:
        print(f"| {r['stack']} | {r['samples']} | {r['seconds']:.1f} | {r['samples_per_s']:.0f} |")
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(
        json.dumps({"env_id": a.env, "machine": machine, "command": " ".join(sys.argv), "rows": rows}, indent=1)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
