"""PyTorch programs in: a torch.nn.Module with example arguments, an ExportedProgram and a
`.pt2` archive, lowered to StableHLO by torch-mlir (the `torch` extra).

Each model (a CNN, a pre-LN transformer block, an LSTM) is written twice, in PyTorch and
in JAX with the same shapes, parameters as arguments in both. Their matmul FLOPs
(convolution + dot_general) must agree exactly and match the hand-worked counts; their
total FLOPs within TOTAL_RTOL (2 %): the two frameworks decompose layer norm, softmax,
GELU and sigmoid into slightly different elementwise ops (on this run: CNN +1 FLOP, a
convert; transformer block 304,007 vs 302,049, +0.65 %; LSTM 128,001 vs 129,739,
-1.3 %: torch-mlir keeps `logistic`, JAX writes 1/(1+exp(-x))).
"""

from __future__ import annotations

import importlib.util
import io
import json
import sys
import zipfile

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablecost
from stablecost.errors import (
    InvalidArgumentError,
    MissingExtraError,
    ProgramParseError,
)
from stablecost.serve.cli import main

torch = pytest.importorskip("torch")   # a core dependency; never missing in practice
nn = torch.nn



def has_torch_mlir() -> bool:
    try:
        return importlib.util.find_spec("torch_mlir") is not None
    except ValueError:   # in sys.modules as None: imports of it fail
        return False


needs_torch_mlir = pytest.mark.skipif(
    not has_torch_mlir(),
    reason="the torch extra is not installed (pip install 'stablecost[torch]'): "
           "torch-mlir lowers PyTorch programs to StableHLO")

TOTAL_RTOL = 0.02   # total FLOPs, PyTorch vs JAX (matmul FLOPs: exact)
MATMUL_OPS = ("convolution", "dot_general")


def matmul_flops(analysis) -> float:
    return sum(analysis.per_opcode[o].flops for o in MATMUL_OPS if o in analysis.per_opcode)


# --- the CNN: conv 3->8 (3x3, pad 1), relu, conv 8->16 (3x3, stride 2, pad 1), relu,
# flatten, linear 1024->10, on a batch of 4 16x16 RGB images.
# Convolutions count only the taps that land inside the input (XLA's convention): per
# spatial dim, conv1 (16 outputs, 3 taps, pad 1) has 16*3 - 2 = 46 valid (output, tap)
# pairs, conv2 (stride 2: 8 outputs) 8*3 - 1 = 23 (only output 0's first tap is padding).
# conv1 2*4*8*3*46*46 = 406,272; conv2 2*4*16*8*23*23 = 541,696;
# linear 2*4*1024*10 = 81,920: 1,029,888 matmul FLOPs.
CNN_MATMUL = 406_272 + 541_696 + 81_920


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = nn.Linear(16 * 8 * 8, 10)

    def forward(self, x):
        x = torch.relu(self.c1(x))
        x = torch.relu(self.c2(x))
        return self.fc(x.flatten(1))


def jax_cnn(p, x):
    def conv(x, w, b, stride):
        y = jax.lax.conv_general_dilated(x, w, (stride, stride), [(1, 1), (1, 1)],
                                         dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return y + b[None, :, None, None]

    x = jax.nn.relu(conv(x, p["c1.weight"], p["c1.bias"], 1))
    x = jax.nn.relu(conv(x, p["c2.weight"], p["c2.bias"], 2))
    return x.reshape(x.shape[0], -1) @ p["fc.weight"].T + p["fc.bias"]


# --- the transformer block (pre-LN): x + MHA(LN(x)), then + MLP(LN(x)), width 32,
# 4 heads, MLP 32->64->32 with tanh GELU, batch 2, sequence 8 (16 tokens).
# in-projection 2*16*32*96 = 98,304; scores 2*2*4*8*8*8 = 8,192; scores x values 8,192;
# out-projection 2*16*32*32 = 32,768; MLP 2*16*32*64 * 2 = 131,072: 278,528.
BLOCK_MATMUL = 98_304 + 8_192 + 8_192 + 32_768 + 131_072


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(32)
        self.att = nn.MultiheadAttention(32, 4, batch_first=True)
        self.ln2 = nn.LayerNorm(32)
        self.up = nn.Linear(32, 64)
        self.down = nn.Linear(64, 32)

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.att(h, h, h, need_weights=False)[0]
        return x + self.down(nn.functional.gelu(self.up(self.ln2(x)), approximate="tanh"))


def jax_block(p, x):
    def ln(x, name):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) * jax.lax.rsqrt(var + 1e-5) * p[f"{name}.weight"] + p[f"{name}.bias"]

    b, s, d = x.shape
    h = ln(x, "ln1")
    qkv = h @ p["att.in_proj_weight"].T + p["att.in_proj_bias"]
    q, k, v = (t.reshape(b, s, 4, d // 4).transpose(0, 2, 1, 3) for t in jnp.split(qkv, 3, -1))
    scores = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / jnp.sqrt(d / 4), axis=-1)
    att = (scores @ v).transpose(0, 2, 1, 3).reshape(b, s, d)
    x = x + att @ p["att.out_proj.weight"].T + p["att.out_proj.bias"]
    up = jax.nn.gelu(ln(x, "ln2") @ p["up.weight"].T + p["up.bias"], approximate=True)
    return x + up @ p["down.weight"].T + p["down.bias"]


# --- the LSTM: input 16, hidden 32, batch 2, 5 steps (batch first); the JAX one is a
# lax.scan, priced x its trip count. Gates 4*32 = 128 wide: input projections
# 5*2*2*16*128 = 40,960; recurrent 5*2*2*32*128 = 81,920: 122,880. Transcendentals:
# 3 sigmoids + 2 tanh per hidden unit per step: 5*2*32*5 = 1,600.
LSTM_MATMUL = 40_960 + 81_920
LSTM_TRANSCENDENTALS = 1_600


class LSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(16, 32, batch_first=True)

    def forward(self, x):
        return self.rnn(x)[0]


def jax_lstm(p, x):
    w_ih, w_hh = p["rnn.weight_ih_l0"], p["rnn.weight_hh_l0"]
    bias = p["rnn.bias_ih_l0"] + p["rnn.bias_hh_l0"]

    def step(carry, x_t):
        h, c = carry
        i, f, g, o = jnp.split(x_t @ w_ih.T + h @ w_hh.T + bias, 4, -1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h

    zeros = jnp.zeros((x.shape[0], 32), x.dtype)
    _, hs = jax.lax.scan(step, (zeros, zeros), x.transpose(1, 0, 2))
    return hs.transpose(1, 0, 2)


MODELS = {   # name: (torch module class, JAX function, input shape, matmul FLOPs)
    "cnn": (CNN, jax_cnn, (4, 3, 16, 16), CNN_MATMUL),
    "transformer_block": (Block, jax_block, (2, 8, 32), BLOCK_MATMUL),
    "lstm": (LSTM, jax_lstm, (2, 5, 16), LSTM_MATMUL),
}


@pytest.fixture(scope="module", params=sorted(MODELS))
def pair(request):
    """(name, torch module, its example input, torch analysis, JAX analysis)."""
    if not has_torch_mlir():
        pytest.skip(needs_torch_mlir.kwargs["reason"])
    cls, jax_fn, shape, _ = MODELS[request.param]
    torch.manual_seed(0)
    module = cls().eval()
    x = torch.randn(*shape)
    ours = stablecost.analyze(stablecost.load_program(module, x))
    params = {k: jnp.asarray(v.detach().numpy()) for k, v in module.state_dict().items()}
    # the JAX twin computes what the module does (same weights, same input)
    np.testing.assert_allclose(np.asarray(jax_fn(params, jnp.asarray(x.numpy()))),
                               module(x).detach().numpy(), rtol=1e-4, atol=1e-5)
    reference = stablecost.analyze(stablecost.load_program(jax_fn, params,
                                                           jnp.asarray(x.numpy())))
    return request.param, module, x, ours, reference


def test_matmul_flops_match_jax_and_the_hand_count(pair):
    name, _, _, ours, reference = pair
    assert matmul_flops(ours) == MODELS[name][3]
    assert matmul_flops(reference) == MODELS[name][3]


def test_total_flops_within_tolerance_of_jax(pair):
    name, _, _, ours, reference = pair
    assert ours.unpriced == [] and reference.unpriced == []
    assert ours.flops == pytest.approx(reference.flops, rel=TOTAL_RTOL), name


def test_transcendentals_match_jax(pair):
    name, _, _, ours, reference = pair
    if name != "transformer_block":
        assert ours.transcendentals == reference.transcendentals == \
            {"cnn": 0, "lstm": LSTM_TRANSCENDENTALS}[name]
        return
    # torch-mlir's tanh GELU writes x**3 as `power` and sqrt(2/pi) as a sqrt of a
    # broadcast constant (1,024 elements each, transcendentals by XLA's convention);
    # JAX writes x*x*x and a scalar. What both write alike must agree: softmax's
    # exponentials 2*4*8*8 = 512, GELU's tanh 16*64 = 1,024, layer norm's rsqrt 2*16 = 32.
    for opcode, expected in (("exponential", 512), ("tanh", 1024), ("rsqrt", 32)):
        assert ours.per_opcode[opcode].transcendentals == expected
        assert reference.per_opcode[opcode].transcendentals == expected


def test_parameters_are_arguments(pair):
    """Weights come in as the function's leading arguments (as in the JAX step), not as
    constants frozen into the module."""
    _, module, x, ours, _ = pair
    program = ours.program
    n_state = len(module.state_dict())
    assert program.num_parameters == n_state + 1
    assert program.value_types[n_state].shape == tuple(x.shape)
    assert [program.value_types[i].shape for i in range(n_state)] == \
        [tuple(t.shape) for t in module.state_dict().values()]
    assert any(f"its {n_state} parameters and buffers" in n for n in program.notes)
    assert "dense_resource" not in program.stablehlo


def test_predict_takes_a_module_with_args_and_an_exported_program(pair):
    name, module, x, ours, _ = pair
    exported = torch.export.export(module, (x,))
    by_exported = stablecost.predict(exported, "H100-SXM", fidelity="roofline")
    by_module = stablecost.predict_many(
        [stablecost.Candidate(program=module, hardware="H100-SXM", args=(x,))],
        fidelity="roofline")[0]
    direct = stablecost.predict(ours, "H100-SXM", fidelity="roofline")
    assert by_exported.step_time_s == by_module.step_time_s == direct.step_time_s > 0


# --- .pt2 archives (torch.export.save), by path, by bytes and on the command line


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """(path of a .pt2 archive of a small MLP, its bytes, its matmul FLOPs)."""
    torch.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    path = tmp_path_factory.mktemp("pt2") / "mlp.pt2"
    torch.export.save(torch.export.export(mlp, (torch.randn(8, 16),)), path)
    # 2*8*16*32 + 2*8*32*4 = 8,192 + 2,048
    return path, path.read_bytes(), 8_192 + 2_048


@needs_torch_mlir
def test_pt2_path_and_bytes(saved):
    path, data, flops = saved
    by_path = stablecost.analyze(stablecost.load_program(path))
    assert matmul_flops(by_path) == flops
    assert by_path.program.source == str(path)
    assert stablecost.analyze(data).flops == by_path.flops
    assert stablecost.predict(str(path), "TPU-v5e").step_time_s > 0


@needs_torch_mlir
def test_cli_analyzes_a_pt2_file(saved, capsys):
    path, _, flops = saved
    assert main(["analyze", "--json", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["per_opcode"]["dot_general"]["flops"] == flops
    assert any("lowered to StableHLO by torch-mlir" in n for n in out["notes"])


def _rewritten(data: bytes, change) -> bytes:
    """The archive with `change(name, content) -> content | None` applied to each
    member (None drops it), plus whatever `change(None, None)` returns as new members."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            content = change(info.filename, src.read(info.filename))
            if content is not None:
                dst.writestr(info.filename, content)
        for name, content in (change(None, None) or {}).items():
            dst.writestr(name, content)
    return out.getvalue()


def _pickled_weight(name, content):
    if name is not None and name.endswith("model_weights_config.json"):
        config = json.loads(content)
        next(iter(config["config"].values()))["use_pickle"] = True
        return json.dumps(config).encode()
    return content


def _shared_library(name, content):
    return {"mlp/data/aotinductor/model/model.so": b"\x7fELF"} if name is None else content


def _pickled_inputs(name, content):
    if name is not None and "sample_inputs" in name:
        buffer = io.BytesIO()
        torch.save({"inputs": zipfile.ZipInfo("x")}, buffer)   # not plain tensors
        return buffer.getvalue()
    return content


@needs_torch_mlir
@pytest.mark.parametrize("change, match", [
    (_pickled_weight, r"stores '0\.weight' as a pickled object"),
    (_shared_library, r"holds 'data/aotinductor/model/model\.so', which torch\.export\.load "
                      r"would load as code or pickle"),
    (_pickled_inputs, r"data/sample_inputs/model\.pt is not plain tensors"),
])
def test_pt2_archives_that_would_run_code_are_refused(saved, change, match):
    _, data, _ = saved
    with pytest.raises(ProgramParseError, match=match) as info:
        stablecost.load_program(_rewritten(data, change), name="evil.pt2")
    assert "\n" not in str(info.value) and str(info.value).startswith("evil.pt2: ")


@needs_torch_mlir
def test_damaged_pt2_is_a_one_line_cli_error(saved, tmp_path, capsys):
    _, data, _ = saved
    bad = tmp_path / "bad.pt2"
    bad.write_bytes(data[: len(data) // 2])
    assert main(["analyze", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "not a .pt2 archive" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    other = tmp_path / "other.pt2"
    other.write_bytes(_rewritten(data, lambda n, c: None if n is None or "archive_format" in n
                                 else c))
    with pytest.raises(ProgramParseError, match="not a torch.export .pt2 archive"):
        stablecost.load_program(other)


# --- errors: the extra missing, a module without example arguments, an export failure


def test_missing_extra_names_the_install_command(saved, monkeypatch, capsys):
    path, _, _ = saved
    monkeypatch.setitem(sys.modules, "torch_mlir", None)   # import torch_mlir fails
    with pytest.raises(MissingExtraError, match=r"pip install 'stablecost\[torch\]'"):
        stablecost.load_program(nn.Linear(4, 2), torch.randn(3, 4))
    assert main(["analyze", str(path)]) == 2
    err = capsys.readouterr().err
    assert "install 'stablecost[torch]'" in err and len(err.strip().splitlines()) == 1


class DataDependent(nn.Module):
    def forward(self, x):
        if x.sum() > 0:   # control flow on a value: torch.export cannot trace it
            return x * 2
        return x


@needs_torch_mlir
def test_module_errors_are_one_line():
    with pytest.raises(InvalidArgumentError, match=r"<torch Linear>: a torch.nn.Module needs "
                                                   r"example arguments"):
        stablecost.load_program(nn.Linear(4, 2))
    with pytest.raises(InvalidArgumentError, match=r"<torch DataDependent>: torch.export.export "
                                                   r"failed with the given example arguments: "
                                                   r"\w+") as info:
        stablecost.load_program(DataDependent(), torch.randn(3))
    assert "\n" not in str(info.value)
    exported = torch.export.export(nn.Linear(4, 2), (torch.randn(3, 4),))
    with pytest.raises(InvalidArgumentError, match="carries its example inputs"):
        stablecost.load_program(exported, torch.randn(3, 4))


# --- torch-mlir's StableHLO keeps small constants as arith.constant: priced as constants


def test_arith_constant_is_a_constant():
    text = """
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %c = arith.constant dense<2.0> : tensor<1xf64>
      %f = stablehlo.convert %c : (tensor<1xf64>) -> tensor<1xf32>
      %s = stablehlo.reshape %f : (tensor<1xf32>) -> tensor<f32>
      %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %y = stablehlo.multiply %x, %b : tensor<4xf32>
      return %y : tensor<4xf32>
    }"""
    analysis = stablecost.analyze(text)
    assert analysis.unpriced == []
    # convert: 1 FLOP (one element); multiply: 4
    assert analysis.flops == 1 + 4
    assert analysis.per_opcode["constant"].instances == 1


@needs_torch_mlir
def test_xla_compiles_the_lowered_module_with_its_buffers_as_arguments():
    """The measured fidelity compiles and runs the StableHLO on the local backend: with
    weights frozen into `dense_resource` constants XLA refused it ("Only dense elements
    attr are supported"). BatchNorm's running statistics are buffers: arguments too."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU()).eval()
    program = stablecost.load_program(model, torch.randn(2, 3, 8, 8))
    # conv weight, bias; BN weight, bias, running_mean, running_var, num_batches_tracked
    assert program.num_parameters == len(model.state_dict()) + 1 == 8
    measured = stablecost.predict(program, "host-cpu", fidelity="measured")
    assert measured.fidelity == "measured" and measured.step_time_s > 0
