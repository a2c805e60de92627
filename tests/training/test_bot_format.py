"""The data-only bot format: loading runs nothing from the folder and refuses, with a
CheckpointError naming the file and field, everything it has not checked (crafted TorchScript and
pickle files, malformed cards, wrong env / version / options / shapes / layout, damaged files, a
flipped byte with the card's hash updated). The rebuilt torch module, the ONNX model under
onnxruntime and the training-time numpy policy choose the same actions, single and batched."""

from __future__ import annotations

import copy
import io
import json
import pickle
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch

from boardzoo.envs import make_game
from boardzoo.envs.core.game import CHANCE
from boardzoo.training import botformat
from boardzoo.training.botformat import CARD, ONNX, WEIGHTS, CheckpointError, read_bot, sha256
from boardzoo.training.export import load_bot, load_policy, write_policy
from boardzoo.training.policy import NumpyPolicy

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ["hidden_castle_v0", "downforce_v0", "hydropolis_v0", "voll_verplant_v0", "get_on_board_v0"]


def _params(sizes, rng, skip_offset=None):
    out = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        out += [rng.normal(size=(b, a)).astype(np.float32), rng.normal(size=b).astype(np.float32)]
    if skip_offset is not None:
        out += [rng.normal(size=sizes[-1]).astype(np.float32), np.array([skip_offset], np.float32)]
    return out


def _card(game):
    return {
        "env_id": game.env_id,
        "version": type(game).version,
        "options": dict(game.options),
        "observation_shape": [game.observation_size],
        "num_actions": game.num_actions,
    }


@pytest.fixture
def bot(tiny_games, tmp_path):
    """A small, valid format-2 bot folder for tinynim_v0 (with its ONNX file)."""
    game = make_game("tinynim_v0")
    folder = tmp_path / "bot"
    write_policy(
        _params([game.observation_size, 4, game.num_actions], np.random.default_rng(0)), "tanh", _card(game), folder
    )
    return folder


def _set_card(folder, card):
    (folder / CARD).write_text(json.dumps(card))


def _rehash(folder, name):
    card = json.loads((folder / CARD).read_text())
    card["files"][name] = sha256(folder / name)
    _set_card(folder, card)


# ---------------------------------------------------------------------- crafted files run nothing
class _Exec:
    """Unpickling this runs ``exec(code)``."""

    def __init__(self, code):
        self.code = code

    def __reduce__(self):
        return (exec, (self.code,))


def _writer(marker: Path) -> str:
    return f"open({str(marker)!r}, 'w').write('pwned')"


def _pickle_payload(marker: Path) -> bytes:
    return pickle.dumps(_Exec(_writer(marker)))


def _torch_save_payload(marker: Path) -> bytes:
    buf = io.BytesIO()
    torch.save({"layers.0.weight": _Exec(_writer(marker))}, buf)
    return buf.getvalue()


_EVIL_TS = """
import sys, torch

class Evil(torch.nn.Module):
    def __init__(self, path: str):
        super().__init__()
        self.path = path

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x

    @torch.jit.export
    def __getstate__(self) -> str:
        return self.path

    @torch.jit.export
    def __setstate__(self, state: str) -> None:
        t = torch.from_file(state, shared=True, size=5, dtype=torch.uint8)   # creates and writes the file
        t.fill_(88)
        self.path = state + str(int(t[0]))
        self.training = False

torch.jit.script(Evil(sys.argv[1])).save(sys.argv[2])
"""


def _torchscript_payload(marker: Path, tmp: Path) -> bytes:
    """A TorchScript file whose ``__setstate__`` writes ``marker`` while ``torch.jit.load`` runs."""
    src = tmp / "evil_ts.py"  # TorchScript needs the class's source in a file
    src.write_text(_EVIL_TS)
    out = tmp / "evil.pt"
    r = subprocess.run(
        [sys.executable, "-W", "ignore", str(src), str(marker), str(out)], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    return out.read_bytes()


@pytest.fixture(scope="module")
def payloads(tmp_path_factory):
    """Crafted files (name -> factory(marker) -> bytes); each is checked to really fire on its own loader."""
    tmp = tmp_path_factory.mktemp("payloads")
    made = {
        "pickle": _pickle_payload,
        "torch.save": _torch_save_payload,
        "torchscript": lambda m: _torchscript_payload(m, tmp),
    }
    # the controls: the payloads are live (they write their marker when loaded the unsafe way)
    for kind, fire in (
        ("pickle", lambda b: pickle.loads(b)),
        ("torch.save", lambda b: torch.load(io.BytesIO(b), weights_only=False)),
        ("torchscript", lambda b: torch.jit.load(io.BytesIO(b))),
    ):
        marker = tmp / f"control_{kind.replace('.', '_')}"
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fire(made[kind](marker))
        assert marker.exists(), f"the {kind} payload did not fire: the test would prove nothing"
    return made


@pytest.fixture
def no_unsafe_loaders(monkeypatch):
    """Fail the test if anything reaches an unpickler or TorchScript loader."""

    def forbidden(*a, **k):
        raise AssertionError("an unsafe loader was called")

    monkeypatch.setattr(torch, "load", forbidden)
    monkeypatch.setattr(torch.jit, "load", forbidden)
    monkeypatch.setattr(pickle, "load", forbidden)
    monkeypatch.setattr(pickle, "loads", forbidden)
    monkeypatch.setattr(pickle, "Unpickler", forbidden)


@pytest.mark.parametrize("kind", ["pickle", "torch.save", "torchscript"])
@pytest.mark.parametrize("target", [WEIGHTS, ONNX, CARD])
def test_crafted_files_are_refused_and_run_nothing(bot, payloads, kind, target, tmp_path, no_unsafe_loaders):
    marker = tmp_path / "marker"
    data = payloads[kind](marker)
    (bot / target).write_bytes(data)
    if target != CARD:
        _rehash(bot, target)  # whoever ships the file ships the card: hashes updated to match
    with pytest.raises(CheckpointError) as e:
        load_bot(bot, env_id="tinynim_v0")
    assert target in str(e.value) or "card.json" in str(e.value), e.value
    assert not marker.exists(), f"loading a crafted {kind} {target} wrote a file"


def test_files_the_card_does_not_list_are_never_opened(bot, payloads, tmp_path, no_unsafe_loaders):
    marker = tmp_path / "marker"
    (bot / "policy.pt").write_bytes(payloads["torchscript"](marker))
    (bot / "extra.pkl").write_bytes(payloads["pickle"](marker))
    b = load_bot(bot / "policy.pt", env_id="tinynim_v0")  # a path to any file means its folder
    assert b.card["env_id"] == "tinynim_v0" and not marker.exists()


def test_format_1_bots_are_refused_with_advice(tiny_games, tmp_path, payloads):
    marker = tmp_path / "marker"
    old = tmp_path / "old"
    old.mkdir()
    (old / "policy.pt").write_bytes(payloads["torchscript"](marker))
    with pytest.raises(CheckpointError, match="format-1 bot .*re-export"):
        load_bot(old)
    _set_card(
        old,
        {
            "format": "boardzoo-policy",
            "format_version": 1,
            "env_id": "tinynim_v0",
            "files": {"policy.pt": sha256(old / "policy.pt")},
        },
    )
    with pytest.raises(CheckpointError, match="format_version.*TorchScript"):
        load_bot(old)
    assert not marker.exists()


# ---------------------------------------------------------------------- malformed cards
def _mutations():
    def setk(path, value):
        def f(c):
            obj = c
            keys = path.split("/")
            for k in keys[:-1]:
                obj = obj[int(k)] if isinstance(obj, list) else obj[k]
            obj[keys[-1] if not isinstance(obj, list) else int(keys[-1])] = value
            return c

        return f

    def delk(key):
        def f(c):
            del c[key]
            return c

        return f

    return [
        ("empty list", lambda c: [], "must be a JSON object"),
        ("null", lambda c: None, "must be a JSON object"),
        ("string", lambda c: "bot", "must be a JSON object"),
        ("files as a string", setk("files", "weights.safetensors"), "'files'"),
        ("files without weights", setk("files", {}), "'files'"),
        (
            "files with a path",
            lambda c: dict(c, files=dict(c["files"], **{"../card.json": "0" * 64})),
            "files.../card.json",
        ),
        ("hash not hex", lambda c: dict(c, files=dict(c["files"], **{WEIGHTS: "zz"})), f"files.{WEIGHTS}"),
        ("hash mismatch", lambda c: dict(c, files=dict(c["files"], **{WEIGHTS: "0" * 64})), f"files.{WEIGHTS}"),
        ("missing env_id", delk("env_id"), "'env_id' is missing"),
        ("missing architecture", delk("architecture"), "'architecture' is missing"),
        ("missing layout", delk("observation_layout"), "'observation_layout' is missing"),
        ("env_id a number", setk("env_id", 3), "'env_id' must be a string"),
        ("version a string", setk("version", "0"), "'version' must be an integer"),
        ("version a bool", setk("version", False), "'version' must be an integer"),
        ("options a list", setk("options", []), "'options' must be an object"),
        ("options null", setk("options", None), "'options' must be an object"),
        ("observation_shape empty", setk("observation_shape", []), "'observation_shape'"),
        ("observation_shape a float", setk("observation_shape", [21.0]), "'observation_shape'"),
        ("num_actions negative", setk("num_actions", -1), "'num_actions'"),
        (
            "layout with a gap",
            setk(
                "observation_layout",
                [{"name": "a", "offset": 0, "length": 10}, {"name": "b", "offset": 11, "length": 10}],
            ),
            "'observation_layout[1].offset'",
        ),
        (
            "layout too short",
            setk("observation_layout", [{"name": "a", "offset": 0, "length": 10}]),
            "'observation_layout'",
        ),
        ("hidden a string", setk("architecture/hidden", "4"), "'architecture.hidden'"),
        ("activation unknown", setk("architecture/activation", "gelu"), "'architecture.activation'"),
        ("value head", setk("architecture/value_head", {"size": 4}), "'architecture.value_head'"),
        ("value head sizes", setk("architecture/value_head", {"hidden": [0]}), "'architecture.value_head.hidden'"),
        ("value head tensors", setk("architecture/value_head", {"hidden": [4]}), "'architecture.tensors.value_layers"),
        ("huge network", setk("architecture/hidden", [65536] * 16), "'architecture.hidden'"),
        (
            "tensor shape",
            setk("architecture/tensors/layers.0.weight", [4, 22]),
            "'architecture.tensors.layers.0.weight'",
        ),
        ("input size", setk("architecture/input_size", 20), "'architecture.input_size'"),
        ("format", setk("format", "other"), "'format'"),
        ("format_version", setk("format_version", 3), "'format_version'"),
    ]


@pytest.mark.parametrize("name,mutate,field", _mutations(), ids=[m[0] for m in _mutations()])
def test_malformed_cards_name_the_field(bot, name, mutate, field):
    card = mutate(copy.deepcopy(json.loads((bot / CARD).read_text())))
    _set_card(bot, card)
    with pytest.raises(CheckpointError) as e:
        load_bot(bot, env_id="tinynim_v0")
    assert field in str(e.value) and "card.json" in str(e.value), e.value


@pytest.mark.parametrize(
    "text,match",
    [
        ("{not json", "not JSON"),
        ('{"format": "boardzoo-bot", "format": "boardzoo-bot"}', "duplicate key 'format'"),
        ('{"version": NaN}', "NaN is not allowed"),
        (b"\xff\xfe{}", "not UTF-8"),
    ],
)
def test_unparsable_cards(bot, text, match):
    (bot / CARD).write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(CheckpointError, match=match):
        load_bot(bot)


def test_card_edits_that_pass_the_schema_are_caught_by_the_weights_record(bot):
    """The weights file records env, version, options and architecture; a card edited to claim
    something else is refused even though the card is internally consistent."""
    good = json.loads((bot / CARD).read_text())
    # other (valid, same-shape) options: max_pile changes the rules, not the observation
    _set_card(bot, dict(good, options={"max_pile": 9}))
    with pytest.raises(CheckpointError, match=r"field 'options' .* records"):
        load_bot(bot)
    # another architecture, consistent in itself (and with the file's tensor shapes)
    arch = dict(good["architecture"], activation="relu")
    _set_card(bot, dict(good, architecture=arch))
    with pytest.raises(CheckpointError, match=r"field 'architecture' .* records"):
        load_bot(bot)
    # an ONNX hash in the card that the weights' record does not confirm
    (bot / ONNX).write_bytes((bot / ONNX).read_bytes() + b"\0")
    _set_card(bot, dict(good, files=dict(good["files"], **{ONNX: sha256(bot / ONNX)})))
    with pytest.raises(CheckpointError, match=f"files.{ONNX}"):
        load_bot(bot)
    # an ONNX file dropped from the card (so that nothing would check a replaced one)
    _set_card(bot, dict(good, files={WEIGHTS: good["files"][WEIGHTS]}))
    with pytest.raises(CheckpointError, match=f"'files' does not list {ONNX}"):
        load_bot(bot)


def test_wrong_env_version_and_layout(bot, tiny_games):
    good = json.loads((bot / CARD).read_text())
    with pytest.raises(CheckpointError, match="'env_id'.*bot for tinynim_v0, not for claim_v0"):
        load_bot(bot, env_id="claim_v0")
    _set_card(bot, dict(good, env_id="nosuchgame_v0"))
    with pytest.raises(CheckpointError, match="'env_id'.*not a registered env"):
        load_bot(bot)
    _set_card(bot, dict(good, env_id="claim_v0", options={}))
    with pytest.raises(CheckpointError, match="'observation_shape'"):
        load_bot(bot)
    _set_card(bot, dict(good, version=7))
    with pytest.raises(CheckpointError, match="'version'.*version 7.*installed version is 0"):
        load_bot(bot)
    n = good["observation_shape"][0]
    _set_card(
        bot,
        dict(
            good,
            observation_layout=[
                {"name": "piles", "offset": 0, "length": 16},
                {"name": "rest", "offset": 16, "length": n - 16},
            ],
        ),
    )
    with pytest.raises(CheckpointError, match="'observation_layout'.*refresh-layout"):
        load_bot(bot)


def test_refresh_layout_only_when_the_encoder_is_the_same(bot, tiny_games):
    from boardzoo.training.cli import main

    good = json.loads((bot / CARD).read_text())
    n = good["observation_shape"][0]
    _set_card(
        bot,
        dict(
            good,
            observation_layout=[{"name": "a", "offset": 0, "length": 5}, {"name": "b", "offset": 5, "length": n - 5}],
        ),
    )
    with pytest.raises(CheckpointError, match="observation_layout"):
        load_bot(bot)
    assert main(["export", str(bot), "--refresh-layout"]) == 0
    assert json.loads((bot / CARD).read_text())["observation_layout"] == good["observation_layout"]
    load_bot(bot)
    _set_card(bot, dict(good, version=3))
    assert main(["export", str(bot), "--refresh-layout"]) == 2  # another version: retrain, not refresh


def test_wrong_env_options_are_named(bot, tiny_games):
    with pytest.raises(CheckpointError, match=r"trained with max_pile=15; the env has max_pile=6.*set max_pile=15"):
        load_bot(bot, options={"max_pile": 6})
    b = load_bot(bot, options={"max_pile": 6}, any_options=True)  # same observation: allowed on request
    assert b.card["options"] == {"max_pile": 15}
    load_bot(bot, options={})  # the defaults are the trained options


@pytest.mark.parametrize(
    "env_id,option", [("downforce_v0", "action_features=True"), ("hydropolis_v0", "action_features=True")]
)
def test_shipped_bot_on_an_env_without_its_option_names_it(env_id, option):
    with pytest.raises(CheckpointError, match=f"set .*{option}") as e:
        load_bot(env_id, options={})
    assert "observation has" in str(e.value)
    with pytest.raises(CheckpointError, match=f"set .*{option}"):  # any_options cannot make the shapes fit
        load_bot(env_id, options={}, any_options=True)


def test_pinned_hash(bot):
    h = sha256(bot / WEIGHTS)
    load_bot(bot, sha256=h)
    with pytest.raises(CheckpointError, match="pinned"):
        load_bot(bot, sha256="0" * 64)


# ---------------------------------------------------------------------- damaged weights
def test_every_one_byte_flip_of_the_weights_is_refused_or_harmless(bot):
    """Flip each byte of weights.safetensors in turn and update the card's hash to match (what a
    careless re-hash or a consistent-looking download does): the weights' own digest and record
    refuse every flip that changes anything; a flip that still loads must load the very same
    card and tensors."""
    good = read_bot(bot)
    data = bytearray((bot / WEIGHTS).read_bytes())
    card = json.loads((bot / CARD).read_text())
    header_end = 8 + int.from_bytes(data[:8], "little")
    harmless = []
    for i in range(len(data)):
        flipped = bytearray(data)
        flipped[i] ^= 0x01
        (bot / WEIGHTS).write_bytes(bytes(flipped))
        card["files"][WEIGHTS] = sha256(bot / WEIGHTS)
        _set_card(bot, card)
        try:
            got = read_bot(bot)
        except CheckpointError:
            continue
        assert got.card == good.card and all((got.tensors[k] == v).all() for k, v in good.tensors.items()), i
        harmless.append(i)
    assert len(harmless) < header_end - 8, harmless  # at most header bytes that change nothing
    assert not any(i >= header_end for i in harmless)  # every flip in the tensor data is refused


def test_truncated_and_garbage_weights(bot):
    data = (bot / WEIGHTS).read_bytes()
    for bad in (data[: len(data) // 2], data[:5], b"", b"\xff" * 64, data[:8] + b"[]" + data[10:]):
        (bot / WEIGHTS).write_bytes(bad)
        _rehash(bot, WEIGHTS)
        with pytest.raises(CheckpointError, match=WEIGHTS):
            load_bot(bot)


def test_non_finite_weights_are_refused(tiny_games, tmp_path):
    game = make_game("tinynim_v0")
    params = _params([game.observation_size, 4, game.num_actions], np.random.default_rng(1))
    params[0][0, 0] = np.nan
    write_policy(params, "tanh", _card(game), tmp_path, onnx=False)
    with pytest.raises(CheckpointError, match="NaN"):
        load_bot(tmp_path)


# ---------------------------------------------------------------------- one policy, three runtimes
def _observations(game, n_games, seed, limit=400):
    rng = np.random.default_rng(seed)
    g = type(game)
    obs, masks = [], []
    for k in range(n_games):
        st = game.new_initial_state((g.min_players, g.default_players, g.max_players)[k % 3])
        while not st.is_terminal() and len(obs) < limit * (k + 1) // n_games:
            p = st.current_player()
            if p == CHANCE:
                st.apply_action(st.sample_chance(rng))
                continue
            obs.append(st.observation(p))
            masks.append(st.legal_mask().astype(np.int8))
            st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))
    return np.stack(obs), np.stack(masks)


def _agree(folder, game, params, activation, obs, masks):
    ort = pytest.importorskip("onnxruntime")
    module, card = load_policy(folder, options=game.options)
    sess = ort.InferenceSession(str(folder / ONNX))
    npol = NumpyPolicy(params, activation)
    want = npol.actions(obs, masks)
    with torch.inference_mode():
        assert module(torch.from_numpy(obs), torch.from_numpy(masks)).tolist() == want.tolist()
        # float64 observations and bool masks: the torch module casts (same actions)
        assert module(torch.from_numpy(obs.astype(np.float64)), torch.from_numpy(masks > 0)).tolist() == want.tolist()
        for i in range(0, len(obs), max(1, len(obs) // 40)):
            single = int(module(torch.from_numpy(obs[i]), torch.from_numpy(masks[i])))
            assert single == want[i] == npol.act(obs[i], masks[i])
            assert sess.run(None, {"observation": obs[i : i + 1], "action_mask": masks[i : i + 1]})[0].tolist() == [
                single
            ]
    assert sess.run(None, {"observation": obs, "action_mask": masks})[0].tolist() == want.tolist()
    # the documented dtype contract of the ONNX model: exactly float32 and int8
    with pytest.raises(Exception, match="INVALID_ARGUMENT|Unexpected input data type"):
        sess.run(None, {"observation": obs.astype(np.float64), "action_mask": masks})
    with pytest.raises(Exception, match="INVALID_ARGUMENT|Unexpected input data type"):
        sess.run(None, {"observation": obs, "action_mask": masks > 0})
    inputs = {i.name: (i.type, i.shape) for i in sess.get_inputs()}
    for spec in card["onnx"]["inputs"]:
        t, shape = inputs[spec["name"]]
        assert t == {"float32": "tensor(float)", "int8": "tensor(int8)"}[spec["dtype"]]
        assert shape == spec["shape"]
    return want


@pytest.mark.parametrize("activation,skip", [("tanh", False), ("relu", True)])
def test_torch_onnx_and_numpy_agree_on_fresh_bots(tiny_games, tmp_path, activation, skip):
    # the skip reads the game's action features: a game that declares them (hydropolis, its option on)
    game = make_game("hydropolis_v0", action_features=True) if skip else make_game("tinynim_v0")
    params = _params(
        [game.observation_size, 16, 8, game.num_actions],
        np.random.default_rng(3),
        skip_offset=game.action_feature_offset if skip else None,
    )
    write_policy(params, activation, _card(game), tmp_path)
    obs, masks = _observations(game, 6, seed=5, limit=200)
    rng = np.random.default_rng(9)  # and off-distribution inputs
    obs = np.concatenate([obs, rng.normal(size=(64, game.observation_size)).astype(np.float32)])
    extra = (rng.random((64, game.num_actions)) < 0.5).astype(np.int8)
    extra[:, 0] = 1
    masks = np.concatenate([masks, extra])
    _agree(tmp_path, game, params, activation, obs, masks)


@pytest.mark.parametrize("env_id", SHIPPED)
def test_shipped_bots_agree_across_runtimes(env_id):
    bot = read_bot(env_id)
    game = bot.game
    obs, masks = _observations(game, 6, seed=11, limit=300)
    _agree(bot.folder, game, bot.params, bot.arch["activation"], obs, masks)
    # the card's layout is the installed game's, and its blocks tile the observation
    assert bot.card["observation_layout"] == botformat.layout_of(game)


def test_write_refuses_weights_that_do_not_fit_the_card(tiny_games, tmp_path):
    game = make_game("tinynim_v0")
    with pytest.raises(ValueError, match="do not fit"):
        write_policy(_params([5, 4, 2], np.random.default_rng(0)), "tanh", _card(game), tmp_path)


# ---------------------------------------------------------------------- the README's ONNX recipe
def test_readme_onnx_snippet_runs():
    """training/README.md's onnxruntime recipe runs as written (on the shipped Hydropolis bot)."""
    pytest.importorskip("onnxruntime")
    text = (ROOT / "training" / "README.md").read_text()
    m = re.search(r"<!-- onnx-recipe -->\s*```python\n(.*?)```", text, re.S)
    assert m, "the ONNX recipe block is missing from training/README.md"
    ns: dict = {}
    exec(compile(textwrap.dedent(m.group(1)), "training/README.md", "exec"), ns)
    assert ns["actions"], "the recipe played no move"


def test_loader_sources_name_no_unsafe_loader():
    """A static guard next to the runtime ones: the loading modules never name an unpickler or
    TorchScript loader (scripts/convert_bots.py, the one-off trusted conversion, is the only place);
    numpy's loader only with allow_pickle=False (export reads a training run's .npz)."""
    import ast

    for mod in ("botformat", "botnet", "export", "bots"):
        tree = ast.parse((ROOT / "training" / f"{mod}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                assert not any(n.split(".")[0] in ("pickle", "dill", "joblib", "cloudpickle") for n in names), mod
            if isinstance(node, ast.Attribute) and node.attr in ("load", "loads"):
                assert ast.unparse(node.value) not in ("torch", "torch.jit", "pickle"), f"{mod}: {ast.unparse(node)}"
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("np.load", "numpy.load"):
                kw = {k.arg: ast.unparse(k.value) for k in node.keywords}
                assert kw.get("allow_pickle") == "False", f"{mod}: {ast.unparse(node)}"
