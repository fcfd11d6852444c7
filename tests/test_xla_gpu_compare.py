"""benchmarks/xla_gpu_compare.py: counting XLA:GPU's kernels and boundary bytes in an
optimized HLO module's text, on hand-worked modules and on the H100's committed ones."""

import gzip
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import xla_gpu_compare as compare  # noqa: E402

# A loop of 4 trips whose body runs one fusion that slices a row of a stacked weight
# (f32[4,256,256]: it reads the 256 KiB slice, not the 1 MiB stack) and adds it to the
# carry, and an entry that updates one row of a f32[1024,256] buffer in place.
MODULE = """HloModule m

%fused_slice_add (param_0: f32[4,256,256], param_1: s32[], param_2: f32[256,256]) -> f32[256,256] {
  %param_0 = f32[4,256,256]{2,1,0} parameter(0)
  %param_1 = s32[] parameter(1)
  %c = s32[] constant(0)
  %ds = f32[1,256,256]{2,1,0} dynamic-slice(%param_0, %param_1, %c, %c), dynamic_slice_sizes={1,256,256}
  %b = f32[256,256]{1,0} bitcast(%ds)
  %param_2 = f32[256,256]{1,0} parameter(2)
  ROOT %add = f32[256,256]{1,0} add(%b, %param_2)
}

%body (p: (s32[], f32[256,256], f32[4,256,256])) -> (s32[], f32[256,256], f32[4,256,256]) {
  %p = (s32[], f32[256,256]{1,0}, f32[4,256,256]{2,1,0}) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %x = f32[256,256]{1,0} get-tuple-element(%p), index=1
  %w = f32[4,256,256]{2,1,0} get-tuple-element(%p), index=2
  %f = f32[256,256]{1,0} fusion(%w, %i, %x), kind=kLoop, calls=%fused_slice_add
  ROOT %t = (s32[], f32[256,256]{1,0}, f32[4,256,256]{2,1,0}) tuple(%i, %f, %w)
}

%cond (p: (s32[], f32[256,256], f32[4,256,256])) -> pred[] {
  %p = (s32[], f32[256,256]{1,0}, f32[4,256,256]{2,1,0}) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %n = s32[] constant(4)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}

%fused_update (param_0: f32[1024,256], param_1: f32[1,256], param_2: s32[]) -> f32[1024,256] {
  %param_0 = f32[1024,256]{1,0} parameter(0)
  %param_1 = f32[1,256]{1,0} parameter(1)
  %param_2 = s32[] parameter(2)
  %c = s32[] constant(0)
  ROOT %dus = f32[1024,256]{1,0} dynamic-update-slice(%param_0, %param_1, %param_2, %c)
}

ENTRY %main (a: f32[256,256], w: f32[4,256,256], buf: f32[1024,256], row: f32[1,256], k: s32[]) -> (f32[256,256], f32[1024,256]) {
  %a = f32[256,256]{1,0} parameter(0)
  %w = f32[4,256,256]{2,1,0} parameter(1)
  %buf = f32[1024,256]{1,0} parameter(2)
  %row = f32[1,256]{1,0} parameter(3)
  %k = s32[] parameter(4)
  %zero = s32[] constant(0)
  %init = (s32[], f32[256,256]{1,0}, f32[4,256,256]{2,1,0}) tuple(%zero, %a, %w)
  %loop = (s32[], f32[256,256]{1,0}, f32[4,256,256]{2,1,0}) while(%init), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"4"}}
  %out = f32[256,256]{1,0} get-tuple-element(%loop), index=1
  %upd = f32[1024,256]{1,0} fusion(%buf, %row, %k), kind=kLoop, calls=%fused_update
  ROOT %r = (f32[256,256]{1,0}, f32[1024,256]{1,0}) tuple(%out, %upd)
}
"""


def test_shape_bytes_reads_arrays_and_tuples():
    assert compare.shape_bytes("f32[256,256]{1,0}") == 262144
    assert compare.shape_bytes("(bf16[8,4]{1,0}, s32[], pred[3])") == 64 + 4 + 3
    assert compare.shape_bytes("token[]") == 0


def test_kernels_of_a_loop_and_an_in_place_update_are_counted_as_they_run():
    kernels, moved = compare.xla_kernels(MODULE)
    # body: 4 trips of the fusion (its condition's compare is a kernel too, run 5 times);
    # entry: the update fusion
    assert kernels == 4 + 5 + 1
    # per trip: the weight's slice 262144 (not the stack), the s32 index 4, the carry
    # 262144, written 262144; each compare reads 4 + 4 and writes a pred; the update
    # reads its row and index and writes the row (1024 + 4 + 1024), the buffer stays
    # where it is
    trip = 262144 + 4 + 262144 + 262144
    assert moved == pytest.approx(4 * trip + 5 * (4 + 4 + 1) + 1024 + 4 + 1024)


def test_the_committed_h100_modules_are_read_whole():
    steps = ROOT / "benchmarks/timings/h100-sxm-69c6a60d/steps"
    with gzip.open(steps / "resnet18-train.optimized.hlo.gz", "rt") as f:
        kernels, moved = compare.xla_kernels(f.read())
    assert kernels == 415
    assert 20e9 < moved < 30e9
