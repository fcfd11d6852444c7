"""NeuSight's fp32 PyTorch ops: vector ops, softmax, layer norm, `bmm`,
`linear` and `conv2d`, with their work.
"""

from __future__ import annotations

from functools import lru_cache

from .mlir import NEG_INF_F32, Work, module_text, nbytes, tensor_type

_BINARY = {"add": "add", "mul": "multiply", "div": "divide", "pow": "power"}
# Scalar operands of the `u` variants (PyTorch tensor-scalar kernels). The values are
# not recorded; pow's kernel name (the generic lambda of pow_tensor_scalar_kernel_impl)
# rules out the exponents PyTorch specializes (2, 3, -2, 0.5, -0.5, -1).
SCALAR_OPERAND = {"add": 1.0, "mul": 2.0, "div": 2.0, "pow": 1.5}


@lru_cache(maxsize=65536)
def elementwise(op: str, rows: int, cols: int, dtype: str = "f32") -> str:
    """NeuSight's vector ops on a `[rows, cols]` tensor: `add|mul|div|pow` of two
    tensors; `addu|mulu|divu|powu` of the tensor and a scalar; `relu`, `tanh`, `gelu`
    (exact, erf form: x/2·(1 + erf(x/√2))), `softmax` over the last dim, `ln`
    (layer norm over the last dim with weight and bias; returns y, mean and 1/std as
    PyTorch's training kernel writes them)."""
    x = tensor_type((rows, cols), dtype)
    s = tensor_type((), dtype)
    if op in _BINARY:
        body = [f"%0 = stablehlo.{_BINARY[op]} %arg0, %arg1 : {x}"]
        return module_text(op, [x, x], [x], body, ["%0"])
    if op.endswith("u") and op[:-1] in _BINARY:
        c = SCALAR_OPERAND[op[:-1]]
        body = [f"%c = stablehlo.constant dense<{c:.6e}> : {s}",
                f"%cb = stablehlo.broadcast_in_dim %c, dims = [] : ({s}) -> {x}",
                f"%0 = stablehlo.{_BINARY[op[:-1]]} %arg0, %cb : {x}"]
        return module_text(op, [x], [x], body, ["%0"])
    if op == "relu":
        body = [f"%c = stablehlo.constant dense<0.000000e+00> : {s}",
                f"%cb = stablehlo.broadcast_in_dim %c, dims = [] : ({s}) -> {x}",
                f"%0 = stablehlo.maximum %arg0, %cb : {x}"]
        return module_text(op, [x], [x], body, ["%0"])
    if op == "tanh":
        return module_text(op, [x], [x], [f"%0 = stablehlo.tanh %arg0 : {x}"], ["%0"])
    if op == "gelu":
        body = [f"%h = stablehlo.constant dense<5.000000e-01> : {s}",
                f"%hb = stablehlo.broadcast_in_dim %h, dims = [] : ({s}) -> {x}",
                f"%r = stablehlo.constant dense<7.071067690e-01> : {s}",
                f"%rb = stablehlo.broadcast_in_dim %r, dims = [] : ({s}) -> {x}",
                f"%one = stablehlo.constant dense<1.000000e+00> : {s}",
                f"%oneb = stablehlo.broadcast_in_dim %one, dims = [] : ({s}) -> {x}",
                f"%0 = stablehlo.multiply %arg0, %rb : {x}",
                f"%1 = chlo.erf %0 : {x} -> {x}",
                f"%2 = stablehlo.add %1, %oneb : {x}",
                f"%3 = stablehlo.multiply %arg0, %hb : {x}",
                f"%4 = stablehlo.multiply %3, %2 : {x}"]
        return module_text(op, [x], [x], body, ["%4"])
    r = tensor_type((rows,), dtype)
    if op == "softmax":
        body = [f"%ninf = stablehlo.constant dense<{NEG_INF_F32}> : {s}" if dtype == "f32"
                else f"%ninf = stablehlo.constant dense<-1.0e+30> : {s}",
                f"%mx = stablehlo.reduce(%arg0 init: %ninf) applies stablehlo.maximum across "
                f"dimensions = [1] : ({x}, {s}) -> {r}",
                f"%mxb = stablehlo.broadcast_in_dim %mx, dims = [0] : ({r}) -> {x}",
                f"%0 = stablehlo.subtract %arg0, %mxb : {x}",
                f"%1 = stablehlo.exponential %0 : {x}",
                f"%zero = stablehlo.constant dense<0.000000e+00> : {s}",
                f"%sm = stablehlo.reduce(%1 init: %zero) applies stablehlo.add across "
                f"dimensions = [1] : ({x}, {s}) -> {r}",
                f"%smb = stablehlo.broadcast_in_dim %sm, dims = [0] : ({r}) -> {x}",
                f"%2 = stablehlo.divide %1, %smb : {x}"]
        return module_text(op, [x], [x], body, ["%2"])
    if op == "ln":
        h = tensor_type((cols,), dtype)
        body = [f"%zero = stablehlo.constant dense<0.000000e+00> : {s}",
                f"%n = stablehlo.constant dense<{float(cols):.6e}> : {r}",
                f"%eps = stablehlo.constant dense<9.99999974E-6> : {r}",
                f"%sum = stablehlo.reduce(%arg0 init: %zero) applies stablehlo.add across "
                f"dimensions = [1] : ({x}, {s}) -> {r}",
                f"%mean = stablehlo.divide %sum, %n : {r}",
                f"%meanb = stablehlo.broadcast_in_dim %mean, dims = [0] : ({r}) -> {x}",
                f"%d = stablehlo.subtract %arg0, %meanb : {x}",
                f"%d2 = stablehlo.multiply %d, %d : {x}",
                f"%ss = stablehlo.reduce(%d2 init: %zero) applies stablehlo.add across "
                f"dimensions = [1] : ({x}, {s}) -> {r}",
                f"%var = stablehlo.divide %ss, %n : {r}",
                f"%ve = stablehlo.add %var, %eps : {r}",
                f"%rstd = stablehlo.rsqrt %ve : {r}",
                f"%rstdb = stablehlo.broadcast_in_dim %rstd, dims = [0] : ({r}) -> {x}",
                f"%y0 = stablehlo.multiply %d, %rstdb : {x}",
                f"%gb = stablehlo.broadcast_in_dim %arg1, dims = [1] : ({h}) -> {x}",
                f"%y1 = stablehlo.multiply %y0, %gb : {x}",
                f"%bb = stablehlo.broadcast_in_dim %arg2, dims = [1] : ({h}) -> {x}",
                f"%y = stablehlo.add %y1, %bb : {x}"]
        return module_text(op, [x, h, h], [x, r, r], body, ["%y", "%mean", "%rstd"])
    raise ValueError(f"unknown elementwise op {op!r}")


def elementwise_work(op: str, rows: int, cols: int, dtype: str = "f32") -> Work:
    """Bytes the kernel must move: each tensor operand read once, each result written."""
    x = nbytes((rows, cols), dtype)
    if op in _BINARY:
        return Work(rows * cols, 3 * x)
    if op == "ln":
        return Work(8.0 * rows * cols, 2 * x + 2 * nbytes((cols,), dtype)
                    + 2 * nbytes((rows,), dtype))
    return Work(rows * cols, 2 * x)


_HIGHEST = "precision = [HIGHEST, HIGHEST]"


@lru_cache(maxsize=65536)
def bmm(batch: int, m: int, n: int, k: int, dtype: str = "f32") -> str:
    """`torch.bmm`: `[b,m,k] x [b,k,n]`, fp32 without TF32 (precision HIGHEST)."""
    a, b = tensor_type((batch, m, k), dtype), tensor_type((batch, k, n), dtype)
    r = tensor_type((batch, m, n), dtype)
    body = [f"%0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], "
            f"contracting_dims = [2] x [1], {_HIGHEST} : ({a}, {b}) -> {r}"]
    return module_text("bmm", [a, b], [r], body, ["%0"])


@lru_cache(maxsize=65536)
def linear(batch: int, m: int, n: int, k: int, dtype: str = "f32") -> str:
    """`F.linear(x, w)` without bias: x `[b,m,k]`, w `[n,k]` (PyTorch's layout),
    y = x·wᵀ `[b,m,n]`, fp32 without TF32."""
    a, w = tensor_type((batch, m, k), dtype), tensor_type((n, k), dtype)
    r = tensor_type((batch, m, n), dtype)
    body = [f"%0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [2] x [1], "
            f"{_HIGHEST} : ({a}, {w}) -> {r}"]
    return module_text("linear", [a, w], [r], body, ["%0"])


def conv2d_out(size: int, kernel: int, stride: int, padding: int) -> int:
    return (size + 2 * padding - kernel) // stride + 1


@lru_cache(maxsize=65536)
def conv2d(batch: int, c_in: int, c_out: int, kernel: int, size: int, stride: int,
           padding: int, dtype: str = "f32") -> str:
    """`F.conv2d` NCHW x OIHW -> NCHW on a square `size` input, square kernel, no bias,
    fp32 without TF32."""
    o = conv2d_out(size, kernel, stride, padding)
    x = tensor_type((batch, c_in, size, size), dtype)
    w = tensor_type((c_out, c_in, kernel, kernel), dtype)
    r = tensor_type((batch, c_out, o, o), dtype)
    body = [f"%0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]"
            f"->[b, f, 0, 1], window = {{stride = [{stride}, {stride}], pad = [[{padding}, "
            f"{padding}], [{padding}, {padding}]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]}} "
            f"{{batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = "
            f"[#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]}} : ({x}, {w}) -> {r}"]
    return module_text("conv2d", [x, w], [r], body, ["%0"])


@lru_cache(maxsize=65536)
def conv2d_flops(batch: int, c_in: int, c_out: int, kernel: int, size: int, stride: int,
                 padding: int) -> float:
    """2 x batch x c_in x c_out x (output, kernel) position pairs on real input, per the
    spatial dims (padding excluded): what `analyze` counts and the kernel must do."""
    o = conv2d_out(size, kernel, stride, padding)
    per_dim = sum(1 for y in range(o) for r in range(kernel)
                  if 0 <= y * stride + r - padding < size)
    return 2.0 * batch * c_in * c_out * per_dim * per_dim
