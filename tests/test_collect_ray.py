"""`stablecost collect ... --ray`: a sweep spread over a local Ray cluster of two nodes
(one collector each) holds what a local collect of the same sweep holds, each host keeps
a dataset of its own, and a worker or driver killed mid-run loses nothing.

On one machine both nodes share the cores and one fingerprint: these tests check
bookkeeping, never timings."""

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from stablecost.datasets import collect, store
from stablecost.datasets.fleet import collect_fleet
from stablecost.serve.cli import main

CHEAP = "elementwise,convert,iota,select_compare"
SWEEP = dict(max_samples=10, families=CHEAP.split(","), seed=7)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Two Ray nodes of one CPU each on this machine, shared by the tests here."""
    cluster_utils = pytest.importorskip("ray.cluster_utils")
    with pytest.MonkeyPatch.context() as mp:
        # the nodes' workers inherit this environment: keep them off the user's config
        mp.setenv("STABLECOST_CONFIG_DIR", str(tmp_path_factory.mktemp("config")))
        mp.delenv("XLA_FLAGS", raising=False)   # time on the plain host backend
        mp.delenv("RAY_ADDRESS", raising=False)
        # starting the cluster turns Ray's token authentication on (RAY_AUTH_MODE=token in
        # this environment, which the CLI's subprocess inherits); undone at the end
        mp.delenv("RAY_AUTH_MODE", raising=False)
        nodes = cluster_utils.Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
        try:
            nodes.add_node(num_cpus=1)
            nodes.wait_for_nodes()
            yield nodes
        finally:
            nodes.shutdown()   # only this cluster: the one these tests started


def _ids(path):
    ids = store.read_table(path, columns=["sample_id"]).column("sample_id").to_pylist()
    assert len(ids) == len(set(ids)), "a sample is stored twice"
    return set(ids)


def _expected_ids():
    sweep = collect.sweep("kernel", SWEEP["seed"], tuple(SWEEP["families"]))
    return {s.sample_id for s, _ in zip(sweep, range(SWEEP["max_samples"]))}


@pytest.mark.slow
def test_fleet_holds_what_a_local_collect_holds(cluster, tmp_path):
    local = collect.collect("kernel", tmp_path / "local", **SWEEP)
    fleet = collect_fleet("kernel", tmp_path / "fleet", address=cluster.address,
                          chunk_samples=2, **SWEEP)
    assert not local.failures and not fleet.failures and not fleet.warnings
    # one machine, one fingerprint: the merged dataset is where the local one is
    assert fleet.dataset.name == local.dataset.name
    assert _ids(tmp_path / "fleet") == _ids(tmp_path / "local") == _expected_ids()
    assert fleet.samples == fleet.total_rows == 10

    # both hosts measured (each was handed a chunk first), each into its own dataset
    assert len(fleet.hosts) == 2
    by_host = [_ids(path) for path in fleet.hosts.values()]
    assert all(by_host) and set().union(*by_host) == _expected_ids()
    assert all(path.parent.parent == tmp_path / "fleet.hosts" for path in fleet.hosts.values())
    assert all(r.ok for r in store.validate(tmp_path / "fleet"))
    assert all(r.ok for r in store.validate(tmp_path / "fleet.hosts"))
    fingerprints = set(store.read_table(tmp_path / "fleet").column("fingerprint").to_pylist())
    assert fingerprints == {store.DatasetInfo.read(fleet.dataset).fingerprint_id}

    again = collect_fleet("kernel", tmp_path / "fleet", address=cluster.address, **SWEEP)
    assert again.samples == 0 and again.skipped_done == 10 and again.total_rows == 10


@pytest.mark.slow
def test_a_killed_worker_is_restarted_and_measures_nothing_twice(cluster, tmp_path):
    calls = tmp_path / "calls"
    calls.mkdir()
    killed = tmp_path / "killed"

    def measure_or_die(sample, **kwargs):
        """Measure, except that the first call from the 4th on kills its own worker
        process (once in all: the marker file is created exclusively)."""
        import os
        import signal
        import uuid

        from stablecost.datasets.collect import measure_sample

        (calls / uuid.uuid4().hex).touch()
        if len(os.listdir(calls)) >= 4:
            try:
                os.close(os.open(killed, os.O_CREAT | os.O_EXCL))
            except FileExistsError:
                pass
            else:
                os.kill(os.getpid(), signal.SIGKILL)
        return measure_sample(sample, **kwargs)

    fleet = collect_fleet("kernel", tmp_path / "d", address=cluster.address, chunk_samples=3,
                          measure=measure_or_die, **SWEEP)
    assert killed.exists()
    assert len(os.listdir(calls)) == 11   # 10 samples, and the one the kill cut short
    assert _ids(tmp_path / "d") == _expected_ids() and fleet.total_rows == 10
    assert not fleet.failures and not fleet.warnings
    assert all(r.ok for r in store.validate(tmp_path / "d.hosts"))


def _cli(*args):
    return [sys.executable, "-m", "stablecost.serve.cli", *args]


@pytest.mark.slow
def test_a_killed_driver_resumes_on_rerun_with_nothing_lost(cluster, tmp_path):
    out = tmp_path / "d"
    args = _cli("collect", "kernels", "--out", str(out), "--max-samples", "10",
                "--families", CHEAP, "--seed", "7", "--ray", cluster.address)
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        journals = list(out.glob(f"*/{store.JOURNAL}"))
        if journals and journals[0].read_text().count("\n") >= 2:
            break
        time.sleep(0.05)
    assert proc.poll() is None, f"collector ended before it could be killed: {proc.stderr.read()}"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    first = _ids(out)
    assert 2 <= len(first) < 10

    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"{len(first)} already measured were skipped" in done.stdout.replace("\n", " ")
    assert _ids(out) == _expected_ids()
    assert all(r.ok for r in store.validate(out))


@pytest.mark.slow
def test_ray_without_an_address_starts_a_local_cluster_and_stops_it(tmp_path, capsys):
    ray = pytest.importorskip("ray")
    out = tmp_path / "d"
    argv = ["collect", "programs", "--max-samples", "2", "--families", "mlp", "--out", str(out),
            "--ray"]
    assert main(argv) == 0
    assert not ray.is_initialized()
    assert len(_ids(out)) == 2
    printed = capsys.readouterr().out.replace("\n", " ")
    assert "2 new samples" in printed and f"its own dataset is {out}.hosts" in printed


def test_without_ray_installed_the_error_says_which_extra(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)   # `import ray` raises ImportError
    argv = ["collect", "kernels", "--max-samples", "1", "--out", str(tmp_path / "d"), "--ray"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--ray needs Ray" in err and "stablecost[ray]" in err


def test_an_unreachable_address_is_a_one_line_error(capsys, tmp_path):
    pytest.importorskip("ray")
    with socket.socket() as s:   # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = time.monotonic()
    argv = ["collect", "kernels", "--max-samples", "1", "--out", str(tmp_path / "d"),
            "--ray", f"127.0.0.1:{port}"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--ray 127.0.0.1:{port}: no Ray cluster answers" in err
    assert time.monotonic() - start < 30   # not Ray's minute of retries
    assert main([*argv[:-1], "nowhere"]) == 2
    assert "give HOST:PORT" in capsys.readouterr().err
    assert not (tmp_path / "d").exists()


def test_hosts_dir_needs_ray(capsys, tmp_path):
    argv = ["collect", "kernels", "--max-samples", "1", "--out", str(tmp_path / "d"),
            "--hosts-dir", str(tmp_path / "h")]
    assert main(argv) == 2
    assert "give --ray too" in capsys.readouterr().err
