"""The machine fingerprint: what tells CPUs apart, and how a recorded fingerprint is
compared with this machine's."""

import json

from stablecost.hardware.fingerprint import ISA_FLAGS, cache_sizes_bytes, cpu_identity, differences
from stablecost.serve.cli import main

CPUINFO = """processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 17
model name\t: AMD EPYC
stepping\t: 1
flags\t\t: fpu sse2 avx2 fma avx512f avx512bw avx512_vnni avx512_bf16 sha_ni

processor\t: 1
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 143
"""


def _fake_caches(root):
    for index, (level, kind, size) in enumerate(
            [(1, "Data", "32K"), (1, "Instruction", "32K"), (2, "Unified", "1024K"),
             (3, "Unified", "32M")]):
        d = root / f"index{index}"
        d.mkdir()
        (d / "level").write_text(f"{level}\n")
        (d / "type").write_text(f"{kind}\n")
        (d / "size").write_text(f"{size}\n")
    return root


def test_cpu_identity_reads_the_first_processor_and_the_isa_that_matters(tmp_path):
    identity = cpu_identity(CPUINFO, cache_dir=_fake_caches(tmp_path))
    assert identity["cpu_vendor"] == "AuthenticAMD"
    assert (identity["cpu_family"], identity["cpu_model_number"], identity["cpu_stepping"]) \
        == (25, 17, 1)
    # only the extensions that change kernel speed, in ISA_FLAGS order (sha_ni, sse2 dropped)
    assert identity["cpu_isa"] == "avx2,fma,avx512f,avx512bw,avx512_vnni,avx512_bf16"
    assert set(identity["cpu_isa"].split(",")) <= set(ISA_FLAGS)
    # 32K = 32 x 1024, 1024K = 1 MiB, 32M = 32 MiB
    assert identity["cache_bytes"] == {"L1d": 32768, "L1i": 32768, "L2": 1048576,
                                       "L3": 33554432}


def test_cache_sizes_of_a_machine_without_sysfs(tmp_path):
    assert cache_sizes_bytes(tmp_path / "missing") == {}


def test_differences_name_what_is_missing_or_different_and_skip_device_count():
    ours = {"backend": "cpu", "device_count": 1, "cpu_family": 25, "cpu_isa": "avx2"}
    assert differences(dict(ours, device_count=8), ours) == []
    assert differences({"backend": "cpu", "cpu_family": 23}, ours) == [
        "cpu_family: 23 (this machine: 25)", "cpu_isa: not recorded (this machine: avx2)"]


def test_hardware_show_reports_this_machine_for_cpus_only(capsys, monkeypatch):
    from stablecost.models import adaptation as adaptation_module

    # a machine none of the bundle's data comes from (on one it does, its own factors
    # apply: tests/test_adapt.py)
    monkeypatch.setattr(adaptation_module, "local_fingerprint_id", lambda: "0123456789ab")
    assert main(["hardware", "show", "host-cpu", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["this_machine"]["cpu_isa"] == cpu_identity()["cpu_isa"]
    # the bundled host-cpu data records only the CPU model name and cores
    assert any(d.startswith("cpu_family: not recorded")
               for d in shown["learned_model"]["differences"])
    # no adaptation of this machine in the test config: the bundle's default applies
    adaptation = shown["learned_model"]["adaptation"]
    assert adaptation["source"] == "the bundle's default for other machines"
    assert len(adaptation["machines"]) >= 2 and adaptation["step_factor"] > 0
    # on a machine the bundle's data does not show to be this one, steps are composed by
    # the in-step corrector's calibration
    assert shown["learned_model"]["steps"].startswith("the in-step corrector's")
    assert main(["hardware", "show", "host-cpu"]) == 0
    assert "adaptation: the bundle's default for other machines" in \
        capsys.readouterr().out.replace("\n", " ")
    assert main(["hardware", "show", "H100-SXM", "--json"]) == 0
    assert "this_machine" not in json.loads(capsys.readouterr().out)


def test_a_learned_prediction_says_when_its_data_may_come_from_another_cpu(examples_dir):
    import stablecost

    p = stablecost.predict(examples_dir / "mlp_train_step.mlir", "host-cpu",
                           fidelity="learned")
    assert any("may come from another CPU (cpu_vendor: not recorded" in n for n in p.notes)
