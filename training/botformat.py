"""The bot folder format: data only, checked before use. Numpy and safetensors only (no torch).

A bot folder holds::

    card.json            what the bot is: env id and version, the options it was trained under,
                         observation shape and layout, the architecture, the ONNX interface,
                         the SHA-256 of each file, training facts and measured strength
    weights.safetensors  the weights (safetensors: a JSON header and raw little-endian arrays; it
                         cannot carry code), plus a second record of the env id, version,
                         options and architecture, the SHA-256 of the tensor data and of policy.onnx
    policy.onnx          the same policy for non-torch runtimes (never opened by the loader, only hashed)

:func:`read_bot` reads and checks everything before a single weight is used; the module is
rebuilt by our own code from the card's architecture (:mod:`.export`, :mod:`.policy`). Nothing
in a bot folder is unpickled, ``jit.load``-ed or imported, and files the card does not list are
never opened. Every problem is a :class:`CheckpointError` naming the file and the field.

What the checks guarantee and what they do not:

* Loading runs no code from the folder and allocates no more than the bounded sizes below.
* The card and the weights' own record must agree (env id, version, options, architecture, ONNX
  hash), and the tensor data must match the digest in the weights' header, so accidental damage
  (a truncated download, a flipped byte, a card edited by hand or copied from another bot) is
  refused even when the card's hashes were updated to match.
* Whoever can write the folder can write a consistent bad bot: the hashes are not signatures.
  To trust a bot from elsewhere, pin the SHA-256 of its ``weights.safetensors`` (it records
  everything else, the ONNX file's hash included): ``load_bot(path, sha256=...)``.
* A bot that loads may still play badly; its strength is what its card says was measured.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.envs import BoardZooError, ConfigError, game_class, make_game, names

FORMAT = "boardzoo-bot"
FORMAT_VERSION = 2
CARD = "card.json"
WEIGHTS = "weights.safetensors"
ONNX = "policy.onnx"
KNOWN_FILES = (WEIGHTS, ONNX)
OLD_FILE = "policy.pt"  # format 1 (TorchScript): refused, never opened
ACTIVATIONS = ("tanh", "relu")
SKIP_TENSOR = "skip_gain"
VALUE_PREFIX = "value_layers"  # the critic's tensors: value_layers.{i}.weight / .bias

MAX_CARD_BYTES = 1 << 20
MAX_FILE_BYTES = {WEIGHTS: 1 << 30, ONNX: 1 << 30}
MAX_HEADER_BYTES = 1 << 24
MAX_PARAMS = 64_000_000
MAX_LAYERS = 16
MAX_WIDTH = 1 << 16
MAX_INPUT = 1 << 22
_HEX64 = re.compile(r"[0-9a-f]{64}")
META_KEYS = (
    "format",
    "format_version",
    "env_id",
    "version",
    "options",
    "architecture",
    "tensors_sha256",
    "onnx_sha256",
)


class CheckpointError(BoardZooError):
    """A bot folder that cannot be used here: missing, damaged, malformed, or for another env,
    version or option set. The message names the file and the field."""


# ---------------------------------------------------------------------- helpers
def sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _kind(x: Any) -> str:
    return (
        "null"
        if x is None
        else {
            dict: "an object",
            list: "a list",
            str: "a string",
            bool: "a boolean",
            int: "an integer",
            float: "a number",
        }.get(type(x), type(x).__name__)
    )


def _strict_json(text: str, where: str) -> Any:
    """JSON with duplicate keys and NaN/Infinity refused (a human and the parser must read the same)."""

    def pairs(items: list) -> dict:
        out = {}
        for k, v in items:
            if k in out:
                raise CheckpointError(f"{where}: duplicate key {k!r}")
            out[k] = v
        return out

    def constant(name: str) -> Any:
        raise CheckpointError(f"{where}: {name} is not allowed in JSON")

    try:
        return json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
    except json.JSONDecodeError as e:
        raise CheckpointError(f"{where} is damaged (not JSON: {e})") from None


def canonical(obj: Any) -> str:
    """The one JSON text of a card value, as recorded in the weights' header."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


# ---------------------------------------------------------------------- architecture
def architecture(
    input_size: int,
    hidden: list[int],
    num_actions: int,
    activation: str,
    skip_offset: int | None = None,
    value_hidden: list[int] | None = None,
) -> dict:
    """The card's ``architecture``: an MLP policy ``obs -> hidden (activation) -> ... -> logits``
    (+ ``skip_gain * obs[offset:offset + num_actions]``), greedy over the legal actions; with
    ``value_hidden``, also the critic trained with it, ``obs -> value_hidden (activation) -> ... -> 1``
    (the expected final reward of the seat whose observation it is; search bots use it)."""
    arch = {
        "kind": "mlp_policy",
        "input_size": int(input_size),
        "hidden": [int(h) for h in hidden],
        "num_actions": int(num_actions),
        "activation": activation,
        "action_skip": None if skip_offset is None else {"offset": int(skip_offset)},
        "value_head": None if value_hidden is None else {"hidden": [int(h) for h in value_hidden]},
        "dtype": "float32",
    }
    arch["tensors"] = tensor_shapes(arch)
    return arch


def tensor_shapes(arch: dict) -> dict[str, list[int]]:
    """Name -> shape of every tensor of ``arch`` (torch ``Linear`` layout: weight is out x in)."""
    sizes = [arch["input_size"], *arch["hidden"], arch["num_actions"]]
    out: dict[str, list[int]] = {}
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        out[f"layers.{i}.weight"] = [b, a]
        out[f"layers.{i}.bias"] = [b]
    if arch.get("action_skip") is not None:
        out[SKIP_TENSOR] = [arch["num_actions"]]
    if arch.get("value_head") is not None:
        vs = [arch["input_size"], *arch["value_head"]["hidden"], 1]
        for i, (a, b) in enumerate(zip(vs[:-1], vs[1:])):
            out[f"{VALUE_PREFIX}.{i}.weight"] = [b, a]
            out[f"{VALUE_PREFIX}.{i}.bias"] = [b]
    return out


def value_to_tensors(vparams: list[np.ndarray]) -> tuple[dict[str, np.ndarray], list[int]]:
    """``(tensors, hidden sizes)`` of a critic parameter list ``[W1, b1, ..., Wv, bv]`` (Wv is 1 x h)."""
    if len(vparams) % 2 or not vparams or any(w.ndim != 2 for w in vparams[::2]) or vparams[-2].shape[0] != 1:
        raise ValueError("value parameters must be [W1, b1, ..., Wv, bv] with a single output")
    tensors = {}
    for i in range(len(vparams) // 2):
        tensors[f"{VALUE_PREFIX}.{i}.weight"] = np.ascontiguousarray(vparams[2 * i], dtype=np.float32)
        tensors[f"{VALUE_PREFIX}.{i}.bias"] = np.ascontiguousarray(vparams[2 * i + 1], dtype=np.float32)
    return tensors, [int(w.shape[0]) for w in vparams[:-2:2]]


def tensors_to_value_params(arch: dict, tensors: dict[str, np.ndarray]) -> list[np.ndarray] | None:
    """The critic's parameter list of checked tensors, or None when the bot has no value head."""
    if arch.get("value_head") is None:
        return None
    out = []
    for i in range(len(arch["value_head"]["hidden"]) + 1):
        out += [tensors[f"{VALUE_PREFIX}.{i}.weight"], tensors[f"{VALUE_PREFIX}.{i}.bias"]]
    return out


def params_to_tensors(params: list[np.ndarray]) -> tuple[dict[str, np.ndarray], int | None, list[int]]:
    """``(tensors, skip offset or None, hidden sizes)`` from a training parameter list
    ``[W1, b1, ..., Wout, bout]`` (+ ``[gain, [offset]]``, see :mod:`.policy`)."""
    from .policy import split_params

    pairs, skip = split_params(params)
    tensors = {}
    for i, (w, b) in enumerate(pairs):
        tensors[f"layers.{i}.weight"] = np.ascontiguousarray(w, dtype=np.float32)
        tensors[f"layers.{i}.bias"] = np.ascontiguousarray(b, dtype=np.float32)
    offset = None
    if skip is not None:
        offset, gain = skip
        tensors[SKIP_TENSOR] = np.ascontiguousarray(gain, dtype=np.float32)
    return tensors, offset, [int(w.shape[0]) for w, _ in pairs[:-1]]


def tensors_to_params(arch: dict, tensors: dict[str, np.ndarray]) -> list[np.ndarray]:
    """The training parameter list (:mod:`.policy` layout) of checked tensors."""
    out = []
    for i in range(len(arch["hidden"]) + 1):
        out += [tensors[f"layers.{i}.weight"], tensors[f"layers.{i}.bias"]]
    if arch.get("action_skip") is not None:
        out += [tensors[SKIP_TENSOR], np.array([arch["action_skip"]["offset"]], dtype=np.float32)]
    return out


def tensors_digest(tensors: dict[str, np.ndarray]) -> str:
    """SHA-256 over name, dtype, shape and little-endian bytes of every tensor, in name order."""
    h = hashlib.sha256()
    for name in sorted(tensors):
        t = np.ascontiguousarray(tensors[name])
        h.update(canonical([name, t.dtype.newbyteorder("<").str, list(t.shape)]).encode())
        h.update(t.astype(t.dtype.newbyteorder("<"), copy=False).tobytes())
    return h.hexdigest()


def layout_of(game: Any) -> list[dict]:
    """The game's observation layout as card entries ``{"name", "offset", "length"}``."""
    return [{"name": str(n), "offset": int(o), "length": int(k)} for n, o, k in game.observation_layout()]


# ---------------------------------------------------------------------- writing
def write_weights(path: Path, tensors: dict[str, np.ndarray], meta: dict[str, Any]) -> str:
    """Write ``weights.safetensors`` with ``meta`` (canonical JSON per key) in its header; returns
    the tensor digest recorded there."""
    from safetensors.numpy import save_file

    digest = tensors_digest(tensors)
    header = {k: (v if isinstance(v, str) else canonical(v)) for k, v in meta.items()}
    header["tensors_sha256"] = digest
    save_file({k: np.ascontiguousarray(v, dtype=np.float32) for k, v in tensors.items()}, str(path), metadata=header)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, 0o666 & ~umask)  # safetensors writes 0600; a bot is a readable data file
    return digest


# ---------------------------------------------------------------------- the card schema
@dataclass
class _Checker:
    where: str

    def fail(self, field_name: str, msg: str) -> CheckpointError:
        return CheckpointError(f"{self.where}: field {field_name!r} {msg}")

    def get(self, obj: dict, key: str, prefix: str = "") -> Any:
        name = f"{prefix}{key}"
        if key not in obj:
            raise self.fail(name, "is missing")
        return obj[key]

    def typed(self, obj: dict, key: str, kind: type | tuple, what: str, prefix: str = "") -> Any:
        v = self.get(obj, key, prefix)
        ok = _is_int(v) if kind is int else isinstance(v, kind) and not (kind is not bool and isinstance(v, bool))
        if not ok:
            raise self.fail(f"{prefix}{key}", f"must be {what}, got {_kind(v)} ({_short(v)})")
        return v

    def count(self, obj: dict, key: str, lo: int, hi: int, prefix: str = "") -> int:
        v = self.typed(obj, key, int, "an integer", prefix)
        if not lo <= v <= hi:
            raise self.fail(f"{prefix}{key}", f"must be between {lo} and {hi}, got {v}")
        return v


def _short(v: Any) -> str:
    s = repr(v)
    return s if len(s) <= 60 else s[:57] + "..."


def check_card(card: Any, where: str) -> dict:
    """Schema of a format-2 card (types, required keys, bounds, internal consistency).

    Raises:
        CheckpointError: naming ``where`` and the field.
    """
    c = _Checker(where)
    if not isinstance(card, dict):
        raise CheckpointError(f"{where}: a bot card must be a JSON object, got {_kind(card)} ({_short(card)})")
    fmt = c.typed(card, "format", str, "a string")
    if fmt in ("boardzoo-policy",) or card.get("format_version") == 1:
        raise CheckpointError(
            f"{where}: field 'format_version': this is a format-1 bot (TorchScript {OLD_FILE}), which BoardZoo "
            f"no longer loads because loading TorchScript can run code; re-export it from its training run "
            f"(boardzoo export RUN_DIR), or, only if you trust its origin, convert it with "
            f"scripts/convert_bots.py"
        )
    if fmt != FORMAT:
        raise c.fail("format", f"must be {FORMAT!r}, got {fmt!r}")
    fv = c.typed(card, "format_version", int, "an integer")
    if fv != FORMAT_VERSION:
        raise c.fail(
            "format_version", f"must be {FORMAT_VERSION} (this BoardZoo reads format {FORMAT_VERSION}), got {fv}"
        )
    c.typed(card, "env_id", str, "a string")
    c.count(card, "version", 0, 1 << 30)
    opts = c.typed(card, "options", dict, "an object")
    for k, v in opts.items():
        if not isinstance(v, (str, int, float, bool, type(None), list)):
            raise c.fail(f"options.{k}", f"must be a JSON value, got {_kind(v)}")
    shape = c.typed(card, "observation_shape", list, "a list of one integer")
    if len(shape) != 1 or not _is_int(shape[0]) or not 1 <= shape[0] <= MAX_INPUT:
        raise c.fail(
            "observation_shape", f"must be a list of one integer between 1 and {MAX_INPUT}, got {_short(shape)}"
        )
    n_act = c.count(card, "num_actions", 1, MAX_WIDTH)

    layout = c.typed(card, "observation_layout", list, "a list of blocks")
    at = 0
    for i, block in enumerate(layout):
        p = f"observation_layout[{i}]."
        if not isinstance(block, dict):
            raise c.fail(f"observation_layout[{i}]", f"must be an object, got {_kind(block)}")
        if set(block) != {"name", "offset", "length"}:
            raise c.fail(
                f"observation_layout[{i}]", f"must have exactly the keys name, offset, length, got {sorted(block)}"
            )
        c.typed(block, "name", str, "a string", p)
        off = c.count(block, "offset", 0, MAX_INPUT, p)
        c.count(block, "length", 0, MAX_INPUT, p)
        if off != at:
            raise c.fail(f"{p}offset", f"must be {at} (blocks are contiguous, in order), got {off}")
        at += block["length"]
    if at != shape[0]:
        raise c.fail("observation_layout", f"covers {at} values, the observation has {shape[0]}")

    arch = c.typed(card, "architecture", dict, "an object")
    p = "architecture."
    kind = c.typed(arch, "kind", str, "a string", p)
    if kind != "mlp_policy":
        raise c.fail(f"{p}kind", f"must be 'mlp_policy' (the only architecture this BoardZoo builds), got {kind!r}")
    extra = sorted(
        set(arch)
        - {"kind", "input_size", "hidden", "num_actions", "activation", "action_skip", "value_head", "dtype", "tensors"}
    )
    if extra:
        raise c.fail(f"{p}{extra[0]}", "is not a known architecture field")
    if c.count(arch, "input_size", 1, MAX_INPUT, p) != shape[0]:
        raise c.fail(f"{p}input_size", f"is {arch['input_size']}, observation_shape says {shape[0]}")
    if c.count(arch, "num_actions", 1, MAX_WIDTH, p) != n_act:
        raise c.fail(f"{p}num_actions", f"is {arch['num_actions']}, num_actions says {n_act}")
    hidden = c.typed(arch, "hidden", list, "a list of integers", p)
    if len(hidden) > MAX_LAYERS or not all(_is_int(h) and 1 <= h <= MAX_WIDTH for h in hidden):
        raise c.fail(
            f"{p}hidden", f"must be at most {MAX_LAYERS} integers between 1 and {MAX_WIDTH}, got {_short(hidden)}"
        )
    act = c.typed(arch, "activation", str, "a string", p)
    if act not in ACTIVATIONS:
        raise c.fail(f"{p}activation", f"must be one of {list(ACTIVATIONS)}, got {act!r}")
    skip = c.get(arch, "action_skip", p)
    if skip is not None:
        if not isinstance(skip, dict) or set(skip) != {"offset"}:
            raise c.fail(f"{p}action_skip", f'must be null or {{"offset": N}}, got {_short(skip)}')
        off = c.count(skip, "offset", 0, MAX_INPUT, f"{p}action_skip.")
        if off + n_act > shape[0]:
            raise c.fail(f"{p}action_skip.offset", f"{off} + {n_act} actions runs past the observation ({shape[0]})")
    vh = c.get(arch, "value_head", p)
    if vh is not None:
        if not isinstance(vh, dict) or set(vh) != {"hidden"}:
            raise c.fail(f"{p}value_head", f'must be null or {{"hidden": [sizes]}}, got {_short(vh)}')
        vhid = vh["hidden"]
        if (
            not isinstance(vhid, list)
            or len(vhid) > MAX_LAYERS
            or not all(_is_int(h) and 1 <= h <= MAX_WIDTH for h in vhid)
        ):
            raise c.fail(
                f"{p}value_head.hidden",
                f"must be at most {MAX_LAYERS} integers between 1 and {MAX_WIDTH}, got {_short(vhid)}",
            )
    if c.typed(arch, "dtype", str, "a string", p) != "float32":
        raise c.fail(f"{p}dtype", f"must be 'float32', got {arch['dtype']!r}")
    want = tensor_shapes(arch)
    n_params = sum(int(np.prod(s)) for s in want.values())
    if n_params > MAX_PARAMS:
        raise c.fail(f"{p}hidden", f"describes {n_params} parameters, more than the {MAX_PARAMS} allowed")
    tens = c.typed(arch, "tensors", dict, "an object", p)
    if tens != want:
        bad = sorted(k for k in set(tens) | set(want) if tens.get(k) != want.get(k))
        raise c.fail(f"{p}tensors.{bad[0]}", f"is {tens.get(bad[0])}, the architecture implies {want.get(bad[0])}")

    files = c.typed(card, "files", dict, "an object (file name -> SHA-256)")
    if WEIGHTS not in files:
        raise c.fail("files", f"must list {WEIGHTS}")
    for name, digest in files.items():
        if name not in KNOWN_FILES:
            raise c.fail(f"files.{name}", f"is not a bot file (known: {', '.join(KNOWN_FILES)})")
        if not isinstance(digest, str) or not _HEX64.fullmatch(digest):
            raise c.fail(f"files.{name}", f"must be a SHA-256 (64 lowercase hex digits), got {_short(digest)}")
    if "onnx" in card and card["onnx"] is not None and not isinstance(card["onnx"], dict):
        raise c.fail("onnx", f"must be an object, got {_kind(card['onnx'])}")
    for key in ("training", "strength"):
        if key in card and not isinstance(card[key], dict):
            raise c.fail(key, f"must be an object, got {_kind(card[key])}")
    return card


def read_card(folder: Path) -> dict:
    """``card.json`` of ``folder``, parsed strictly and schema-checked."""
    path = folder / CARD
    if not path.is_file():
        if (folder / OLD_FILE).is_file():
            raise CheckpointError(
                f"{folder} holds a format-1 bot ({OLD_FILE}) without a card; BoardZoo no longer "
                f"loads TorchScript files (loading one can run code); re-export it"
            )
        raise CheckpointError(f"{path} is missing: a bot folder needs card.json and {WEIGHTS}")
    if path.stat().st_size > MAX_CARD_BYTES:
        raise CheckpointError(f"{path} is larger than {MAX_CARD_BYTES} bytes: not a bot card")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise CheckpointError(f"{path} is damaged (not UTF-8 text: {e})") from None
    return check_card(_strict_json(text, str(path)), str(path))


# ---------------------------------------------------------------------- locating a bot
def checkpoints_root() -> Path:
    """Where shipped bots live: ``$BOARDZOO_CHECKPOINTS`` if set, else the installed package data
    ``boardzoo.checkpoints`` (the top-level ``checkpoints/`` folder of a checkout or editable
    install), else ``checkpoints/`` next to ``training/``."""
    env = os.environ.get("BOARDZOO_CHECKPOINTS")
    if env:
        return Path(env)
    try:
        from importlib.resources import files

        root = Path(str(files("boardzoo.checkpoints")))
        if root.is_dir():
            return root
    except (ImportError, TypeError, ValueError):
        pass
    return Path(__file__).resolve().parent.parent / "checkpoints"


def shipped_bot_dir(env_id: str) -> Path:
    """The folder of the shipped bot for ``env_id`` (it may not exist)."""
    return checkpoints_root() / env_id


def resolve(path_or_env: str | Path) -> Path:
    """The bot folder named by ``path_or_env``: a folder, a file in it, or an env id (shipped bot)."""
    p = Path(path_or_env)
    if not p.exists() and str(path_or_env) in names():
        p = shipped_bot_dir(str(path_or_env))
        if not (p / CARD).is_file():
            raise CheckpointError(
                f"no shipped bot for {path_or_env} (looked for {p / CARD}); train one: "
                f"boardzoo train configs/{path_or_env}.yaml, then boardzoo export"
            )
        return p
    if p.is_file() and p.name in (CARD, WEIGHTS, ONNX, OLD_FILE):
        p = p.parent
    if not p.is_dir():
        raise CheckpointError(
            f"no exported bot at {str(path_or_env)!r} (expected a bot folder with {CARD} and "
            f"{WEIGHTS}, one of its files, or a registered env id)"
        )
    return p


# ---------------------------------------------------------------------- reading and checking
@dataclass
class BotData:
    """A checked bot: its card, architecture, weights (numpy) and the game it fits."""

    folder: Path
    card: dict
    arch: dict
    tensors: dict[str, np.ndarray]
    game: Any
    hashes: dict[str, str] = field(default_factory=dict)

    @property
    def params(self) -> list[np.ndarray]:
        """The training parameter list (for :class:`.policy.NumpyPolicy`)."""
        return tensors_to_params(self.arch, self.tensors)

    @property
    def value_params(self) -> list[np.ndarray] | None:
        """The critic's parameter list (for :class:`.policy.NumpyValue`), or None without a value head."""
        return tensors_to_value_params(self.arch, self.tensors)


def _option_text(k: str, v: Any) -> str:
    return f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}"


def _check_env(card: dict, where: str, env_id: str | None, options: dict | None, any_options: bool) -> Any:
    bot_env = card["env_id"]
    if env_id is not None and bot_env != env_id:
        raise CheckpointError(f"{where}: field 'env_id': this is a bot for {bot_env}, not for {env_id}")
    if bot_env not in names():
        raise CheckpointError(f"{where}: field 'env_id': {bot_env} is not a registered env here")
    installed = game_class(bot_env).version
    if card["version"] != installed:
        raise CheckpointError(
            f"{where}: field 'version': the bot was trained on {bot_env} version {card['version']}, "
            f"the installed version is {installed}; retrain it or install the matching version"
        )
    try:
        trained = make_game(bot_env, **card["options"])
    except Exception as e:  # the card is untrusted input: any failure to build the game from it is its fault
        raise CheckpointError(f"{where}: field 'options': not valid for the installed {bot_env}: {e}") from None
    if [trained.observation_size] != card["observation_shape"] or trained.num_actions != card["num_actions"]:
        raise CheckpointError(
            f"{where}: field 'observation_shape': the bot reads {card['observation_shape'][0]} values and has "
            f"{card['num_actions']} actions; the installed {bot_env} with the card's options gives "
            f"{trained.observation_size} and {trained.num_actions} (the encoder changed: retrain or re-export)"
        )
    skip = card["architecture"]["action_skip"]
    game_off = getattr(trained, "action_feature_offset", None)
    if skip is not None and skip["offset"] != game_off:
        raise CheckpointError(
            f"{where}: field 'architecture.action_skip.offset': {skip['offset']}, but the installed "
            f"{bot_env} puts its action features at {game_off} under these options"
        )
    want_layout = layout_of(trained)
    if card["observation_layout"] != want_layout:
        have = [(b["name"], b["offset"], b["length"]) for b in card["observation_layout"]]
        now = [(b["name"], b["offset"], b["length"]) for b in want_layout]
        i = next(k for k in range(max(len(have), len(now))) if k >= min(len(have), len(now)) or have[k] != now[k])
        first_card = have[i] if i < len(have) else None
        first_now = now[i] if i < len(now) else None
        raise CheckpointError(
            f"{where}: field 'observation_layout' ({len(have)} blocks) differs from the installed {bot_env}'s "
            f"({len(now)} blocks) from block {i} on: card {first_card}, installed {first_now}; if the encoder "
            f"itself is unchanged (blocks were only named or split), refresh the card with "
            f"boardzoo export {Path(where).parent} --refresh-layout; otherwise retrain"
        )
    if options is None:
        return trained
    try:
        env_game = make_game(bot_env, **options)
    except (ConfigError, TypeError, ValueError) as e:
        raise CheckpointError(f"options {options!r} are not valid for {bot_env}: {e}") from None
    diff = sorted(
        k
        for k in set(trained.options) | set(env_game.options)
        if trained.options.get(k, ...) != env_game.options.get(k, ...)
    )
    shape_ok = (
        env_game.observation_size == trained.observation_size
        and env_game.num_actions == trained.num_actions
        and layout_of(env_game) == want_layout
    )
    if diff and (not any_options or not shape_ok):
        want = ", ".join(_option_text(k, trained.options.get(k)) for k in diff)
        env_has = ", ".join(_option_text(k, env_game.options.get(k)) for k in diff)
        why = (
            ""
            if shape_ok
            else f" (its observation has {env_game.observation_size} values and "
            f"{env_game.num_actions} actions; the bot reads {trained.observation_size} and has {trained.num_actions})"
        )
        raise CheckpointError(
            f"{where}: field 'options': this {bot_env} bot was trained with {want}; the env has {env_has}{why}: "
            f"set {want} (e.g. make_game({bot_env!r}, **card['options']), or --options on the command line)"
        )
    return env_game


def _read_weights(path: Path, card: dict, where: str) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    size = path.stat().st_size
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise CheckpointError(f"{path} is damaged or not a safetensors file (shorter than its header)")
        (n,) = struct.unpack("<Q", head)
        if n > MAX_HEADER_BYTES or 8 + n > size:
            raise CheckpointError(
                f"{path} is damaged or not a safetensors file (header length {n} does not fit a {size}-byte file)"
            )
        raw = f.read(n)
    if not raw.lstrip().startswith(b"{"):
        raise CheckpointError(f"{path} is damaged or not a safetensors file (its header is not a JSON object)")
    try:
        header = _strict_json(raw.decode("utf-8"), f"{path} header")
    except UnicodeDecodeError:
        raise CheckpointError(f"{path} is damaged or not a safetensors file (header is not UTF-8)") from None
    if not isinstance(header, dict):
        raise CheckpointError(f"{path} is damaged or not a safetensors file (header is not a JSON object)")
    meta = header.get("__metadata__")
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        raise CheckpointError(f"{path}: field '__metadata__' is missing or malformed: not a BoardZoo bot's weights")
    extra = sorted(set(meta) - set(META_KEYS))
    missing = [k for k in META_KEYS if k not in meta]
    if missing or extra:
        raise CheckpointError(
            f"{path}: field '__metadata__.{(missing or extra)[0]}' is "
            f"{'missing' if missing else 'unknown'}: not a BoardZoo format-{FORMAT_VERSION} weights file"
        )
    if meta["format"] != FORMAT or meta["format_version"] != str(FORMAT_VERSION):
        raise CheckpointError(
            f"{path}: field '__metadata__.format': {meta['format']!r} version "
            f"{meta['format_version']!r}, expected {FORMAT!r} version {FORMAT_VERSION}"
        )
    # the card and the weights' own record must agree
    for key in ("env_id", "version", "options", "architecture"):
        try:
            rec = json.loads(meta[key]) if key != "env_id" else meta[key]
        except json.JSONDecodeError:
            raise CheckpointError(f"{path}: field '__metadata__.{key}' is damaged (not JSON)") from None
        if canonical(rec) != canonical(card[key]):
            raise CheckpointError(
                f"{where}: field {key!r} is {_short(card[key])}, but {path.name} records {_short(rec)}: the card "
                f"was edited or belongs to other weights"
            )
    onnx_rec = meta["onnx_sha256"]
    if onnx_rec and ONNX not in card["files"]:
        raise CheckpointError(
            f"{where}: field 'files' does not list {ONNX}, but {path.name} records one: the card was edited"
        )
    if ONNX in card["files"] and card["files"][ONNX] != onnx_rec:
        raise CheckpointError(
            f"{where}: field 'files.{ONNX}' does not match the hash recorded in {path.name}: "
            f"{ONNX} was replaced or the card was edited"
        )
    want = card["architecture"]["tensors"]
    have = {k: v for k, v in header.items() if k != "__metadata__"}
    if set(have) != set(want):
        odd = sorted(set(have) ^ set(want))
        raise CheckpointError(
            f"{path}: tensor {odd[0]!r} is {'unexpected' if odd[0] in have else 'missing'}; "
            f"the card's architecture names {sorted(want)}"
        )
    for name, info in have.items():
        if not isinstance(info, dict) or info.get("dtype") != "F32" or info.get("shape") != want[name]:
            got = (info.get("dtype"), info.get("shape")) if isinstance(info, dict) else info
            raise CheckpointError(
                f"{path}: tensor {name!r} is {_short(got)}, the card's architecture says float32 {want[name]}"
            )
    try:
        from safetensors import safe_open
    except ImportError:
        raise CheckpointError("reading bots needs the safetensors package: pip install 'boardzoo[bots]'") from None
    try:
        tensors = {}
        with safe_open(str(path), framework="numpy") as f:
            for name in want:
                tensors[name] = f.get_tensor(name)
    except Exception as e:  # the Rust parser's own consistency checks (offsets, sizes)
        raise CheckpointError(
            f"{path} is damaged or not a safetensors file ({type(e).__name__}: "
            f"{str(e).splitlines()[0][:200] if str(e) else ''})"
        ) from None
    for name, t in tensors.items():
        if t.dtype != np.float32 or list(t.shape) != want[name]:
            raise CheckpointError(
                f"{path}: tensor {name!r} is {t.dtype} {list(t.shape)}, expected float32 {want[name]}"
            )
    if tensors_digest(tensors) != meta["tensors_sha256"]:
        raise CheckpointError(
            f"{path}: field '__metadata__.tensors_sha256': the tensor data does not match the digest "
            f"recorded with it: the weights are damaged"
        )
    for name, t in tensors.items():
        if not np.isfinite(t).all():
            raise CheckpointError(f"{path}: tensor {name!r} holds NaN or infinite values")
    return tensors, meta


def read_bot(
    path_or_env: str | Path,
    env_id: str | None = None,
    options: dict | None = None,
    sha256_pin: str | None = None,
    any_options: bool = False,
) -> BotData:
    """Read and check a bot folder (see the module docstring); no torch needed.

    Args:
        path_or_env: a bot folder, one of its files, or a registered env id (the shipped bot).
        env_id: the env the bot must be for (default: the card's).
        options: the options of the env it will play (default: those it was trained under). Any
            difference is refused, naming the option(s) to set, unless ``any_options`` and the
            observation still fits (playing under other rules, at your own risk).
        sha256_pin: the expected SHA-256 of ``weights.safetensors``; pins the whole bot.
    """
    folder = resolve(path_or_env)
    if env_id is None and str(path_or_env) in names() and not Path(path_or_env).exists():
        env_id = str(path_or_env)
    card = read_card(folder)
    where = str(folder / CARD)
    game = _check_env(card, where, env_id, options, any_options)
    hashes = {}
    for name in sorted(card["files"]):
        fp = folder / name
        if fp.is_symlink() or not fp.is_file():
            raise CheckpointError(f"{where}: field 'files.{name}': {fp} is missing or not a regular file")
        if fp.stat().st_size > MAX_FILE_BYTES[name]:
            raise CheckpointError(f"{fp} is larger than {MAX_FILE_BYTES[name]} bytes")
        hashes[name] = sha256(fp)
        if hashes[name] != card["files"][name]:
            raise CheckpointError(
                f"{where}: field 'files.{name}': the SHA-256 of {fp} does not match: the file is "
                f"damaged or was replaced"
            )
    if sha256_pin is not None and hashes[WEIGHTS] != str(sha256_pin).lower():
        raise CheckpointError(f"{folder / WEIGHTS}: SHA-256 {hashes[WEIGHTS]} is not the pinned {sha256_pin}")
    tensors, _ = _read_weights(folder / WEIGHTS, card, where)
    return BotData(folder, card, card["architecture"], tensors, game, hashes)
