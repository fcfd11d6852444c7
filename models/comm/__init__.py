"""Communication cost: interconnect topologies and alpha-beta prices of collectives.

- `topology`: topologies as data, and a chip's default topology (`topology_for`);
- `topology_spec`: a user's topology string ("torus2d:2x4") as a `Topology`;
- `placement`: where a replica group sits on a topology;
- `phases`: collective kinds, algorithm names, `Phase`/`CollectiveCost`, bytes convention;
- `flat`, `torus`, `hierarchical`: the cost formulas per fabric;
- `collectives`: the entry point (`collective_time`) and the algorithm choice;
- `groups`: the device ids a program's collective op runs on;
- `pricing`: a program's collective kernels priced as `CollectiveRow`s.
"""
