"""A parsed module, or an already loaded `Program`, as the program of one device of a
mesh: split by XLA's SPMD partitioner when it is sharded by annotations, else checked
against the mesh (explicit collectives are already per device)."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..errors import InvalidArgumentError
from .mlir import parse_module
from .partition import (
    Mesh,
    mesh_size,
    mesh_text,
    module_bytecode,
    module_meshes,
    needs_partitioning,
    remesh,
)
from .partition import partition as run_partitioner
from .program import Program
from .walk import walk


def load_module(module: Any, label: str, mesh: Mesh | None,
                partition: bool | None) -> Program:
    """The program of `module`: global when `mesh` is None, else one device's of `mesh`
    (`partition` forces or skips the partitioner; None: when annotations need it)."""
    declared = module_meshes(module)
    if mesh is None:
        program = walk(module, label)
        if declared:
            program.mesh = declared[0]
        if (program.num_devices > 1 or declared) and needs_partitioning(module):
            program.sharded_module = module_bytecode(module)
            program.notes.append(
                "the program is sharded by annotations over "
                f"{program.num_devices} device(s): these are the costs of the global "
                "(unpartitioned) computation; pass mesh= (--mesh) for the per-device "
                "program")
        return program
    n = mesh_size(mesh)
    run = needs_partitioning(module) if partition is None else partition
    if run and n == 1:   # one device: the global program is the per-device program
        program = walk(module, label)
        program.mesh, program.num_partitions, program.num_replicas = mesh, 1, 1
        return program
    if run:
        if declared:
            if any(m != mesh for m in declared):   # resize a copy, never the caller's
                module = parse_module(module_bytecode(module), label)
                remesh(module, mesh, label)
        else:
            lowered_for = self_devices(module)
            if lowered_for > 1 and lowered_for != n:
                raise InvalidArgumentError(
                    f"{label}: the program's GSPMD shardings are for {lowered_for} devices, "
                    f"mesh {mesh_text(mesh)!r} has {n}; re-export it for {n} devices (only "
                    "Shardy programs, with an sdy.mesh, can be re-meshed)")
        per_device, device_ids = run_partitioner(module, mesh, label)
        program = walk(parse_module(per_device, label), label, device_ids)
        program.num_partitions, program.num_replicas = n, 1
        program.mesh = mesh
        program.partitioned = True
        program.notes.insert(0, f"per-device program of mesh {mesh_text(mesh)}, from XLA's "
                                "SPMD partitioner")
        return program
    if declared and dict(declared[0]) != dict(mesh) and any(s > 1 for _, s in declared[0]):
        raise InvalidArgumentError(
            f"{label}: the program was lowered for mesh {mesh_text(declared[0])!r}, not "
            f"{mesh_text(mesh)!r}; its shard_map bodies have per-device shapes, so "
            "re-lower it for the mesh you want")
    program = walk(module, label)
    return program_on_mesh(program, mesh)


def self_devices(module: Any) -> int:
    """num_partitions x num_replicas declared by a module's attributes."""
    attrs = module.operation.attributes
    out = 1
    for key in ("mhlo.num_partitions", "mhlo.num_replicas"):
        if key in attrs:
            try:
                out *= int(attrs[key].value)
            except (ValueError, TypeError):
                pass
    return out


def program_on_mesh(program: Program, mesh: Mesh) -> Program:
    """The program placed on `mesh`: partitioned when it is a global program sharded by
    annotations, else (already per-device) its device count must match."""
    n = mesh_size(mesh)
    if program.sharded_module is not None:
        module = parse_module(program.sharded_module, program.source)
        return load_module(module, program.source, mesh, None)
    if program.mesh and dict(program.mesh) == dict(mesh):
        if program.mesh == mesh:
            return program
        return dataclasses.replace(program, mesh=mesh, _users=None)
    devices = program.num_partitions * program.num_replicas
    if devices > 1 and devices != n:
        raise InvalidArgumentError(
            f"{program.source}: the program runs on {devices} devices "
            f"(num_partitions={program.num_partitions}, num_replicas={program.num_replicas}), "
            f"mesh {mesh_text(mesh)!r} has {n}")
    if program.mesh and program.partitioned:
        raise InvalidArgumentError(
            f"{program.source}: the program was partitioned for mesh "
            f"{mesh_text(program.mesh)!r}; load it again with mesh {mesh_text(mesh)!r}")
    num_partitions = program.num_partitions if devices > 1 else n
    return dataclasses.replace(program, mesh=mesh, num_partitions=num_partitions, _users=None)
