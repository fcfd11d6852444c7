"""The request body of `POST /v1/predict` and the service's limits."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ...featurize.partition import MAX_MESH_DEVICES

MIB = 1024 * 1024
DEFAULT_MAX_REQUEST_BYTES = 32 * MIB
DEFAULT_CACHE_ENTRIES = 32
MAX_HARDWARE_PER_REQUEST = 64
DEFAULT_PROGRAM_NAME = "<request>"

# A program small enough to parse in a millisecond; predicting it at start-up imports
# and initializes everything a real request touches.
WARM_PROGRAM = """
func.func @main(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0]
      : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = stablehlo.add %0, %a : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}
"""


# strict: true and 2.0 are not sizes (parse_mesh rejects them too)
Mesh = dict[Annotated[str, Field(min_length=1)],
            Annotated[int, Field(gt=0, le=MAX_MESH_DEVICES, strict=True)]]


class MeasuredOn(BaseModel):
    """A step of the request's program measured on another chip of the same kind."""

    model_config = ConfigDict(extra="forbid")

    hardware: str = Field(..., min_length=1, max_length=256,
                          description="the chip it was measured on (a catalog name)")
    step_time_s: float = Field(..., gt=0, allow_inf_nan=False,
                               description="the measured step, seconds")


class PredictRequest(BaseModel):
    """One program, one or more chips. Give exactly one of `program` and
    `program_base64`."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{
        "program": "func.func @main(%a: tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16> "
                   "{ %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : "
                   "(tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16>"
                   " return %0 : tensor<1024x1024xbf16> }",
        "hardware": "H100-SXM",
        "fidelity": "roofline",
    }]})

    program: str | None = Field(
        None, description="StableHLO as MLIR text (pretty or generic form)")
    program_base64: str | None = Field(
        None, description="MLIR bytecode (.mlirbc) or text, base64-encoded")
    name: str | None = Field(
        None, max_length=256,
        description="label for the program in the result and in error messages "
                    f"(default {DEFAULT_PROGRAM_NAME!r})")
    hardware: str | Annotated[list[str], Field(min_length=1,
                                               max_length=MAX_HARDWARE_PER_REQUEST)] = Field(
        ..., description="a catalog name or alias, comma-separated names, or a list of "
                         "names (see GET /v1/hardware). A list, or several comma-separated "
                         "names, returns a list of predictions in the same order")
    fidelity: str = Field("auto", description="auto (learned where a bundled model exists, "
                                              "else roofline), roofline, learned, all (the "
                                              "measured fidelity is not served: the "
                                              "service does not run programs)")
    mesh: Mesh | None = Field(
        None, description="device mesh, axis name -> size, e.g. {\"data\": 4, \"model\": 2}")
    topology: str | None = Field(None, description="interconnect topology override")
    measured_on: MeasuredOn | None = Field(
        None, description="a step of this program measured on another chip of the same "
                          "kind: each chip's prediction is then that time x the ratio of "
                          "the two chips' predictions (fidelity auto, learned or roofline)")
    overlap: bool | None = Field(
        None, description="overlap communication with compute (default: the predictor's)")
    entry: str | None = Field(
        None, max_length=256,
        description="the public function that is the step, when the module has several "
                    "and no @main")
    shapes: dict[str, Annotated[list[Annotated[int, Field(ge=0, strict=True)]],
                                Field(max_length=64)] | str] | None = Field(
        None, description="static shapes of dynamically shaped arguments, e.g. "
                          "{\"arg0\": [8, 128]}")
    dims: dict[str, Annotated[int, Field(ge=0, strict=True)]] | None = Field(
        None, description="sizes of a jax.export program's symbolic dimensions, e.g. "
                          "{\"b\": 8}")

    @model_validator(mode="after")
    def _one_program(self) -> "PredictRequest":
        if (self.program is None) == (self.program_base64 is None):
            raise ValueError("give exactly one of 'program' (MLIR text) and "
                             "'program_base64' (base64 of .mlirbc bytecode or text)")
        return self


