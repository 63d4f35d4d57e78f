"""Pick the torch device an embedding model runs on.

`auto` prefers CUDA, then an Ascend NPU (only when `torch_npu` imports and
`torch.npu.is_available()`), then Apple MPS, then CPU. The availability checks
are injectable (`DeviceProbes`) so tests can fake any accelerator; the real
probes import torch / torch_npu lazily, never at module import.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import ConfigError, ModelError

__all__ = ["DeviceProbes", "parse_device", "select_device"]

log = logging.getLogger(__name__)

VALID_KINDS = ("auto", "cpu", "cuda", "npu", "mps")


def _cuda_available() -> bool:
    try:
        import torch
    except Exception:  # pragma: no cover - torch is a dependency
        return False
    return bool(torch.cuda.is_available())


def _npu_available() -> bool:
    try:
        import torch
        import torch_npu  # noqa: F401  (registers torch.npu)
    except Exception:
        return False
    npu = getattr(torch, "npu", None)
    try:
        return bool(npu is not None and npu.is_available())
    except Exception:
        return False


def _mps_available() -> bool:
    try:
        import torch
    except Exception:  # pragma: no cover
        return False
    mps = getattr(torch.backends, "mps", None)
    try:
        return bool(mps is not None and mps.is_available())
    except Exception:
        return False


@dataclass(frozen=True)
class DeviceProbes:
    """Availability checks, one per accelerator kind (replace them in tests)."""

    cuda: Callable[[], bool] = _cuda_available
    npu: Callable[[], bool] = _npu_available
    mps: Callable[[], bool] = _mps_available


def parse_device(pref: str) -> tuple[str, int | None]:
    """`"cuda:1"` → `("cuda", 1)`; rejects unknown kinds with a one-line ConfigError."""
    text = (pref or "auto").strip().lower()
    kind, _, idx = text.partition(":")
    if kind not in VALID_KINDS:
        raise ConfigError(f"unknown device {pref!r}; valid: auto, cpu, cuda[:n], npu[:n], mps")
    if idx:
        if kind not in ("cuda", "npu") or not idx.isdigit():
            raise ConfigError(f"bad device {pref!r}; only cuda and npu take an index, e.g. cuda:0")
        return kind, int(idx)
    return kind, None


def select_device(pref: str = "auto", probes: DeviceProbes | None = None) -> str:
    """Resolve a device preference to a concrete torch device string.

    An explicitly requested accelerator that is not available is a ModelError
    (rather than a silent fallback to a 50x slower CPU).
    """
    probes = probes or DeviceProbes()
    kind, idx = parse_device(pref)
    if kind == "auto":
        if probes.cuda():
            chosen = "cuda"
        elif probes.npu():
            chosen = "npu"
        elif probes.mps():
            chosen = "mps"
        else:
            chosen = "cpu"
        log.debug("device auto → %s", chosen)
        return chosen
    if kind == "cpu":
        return "cpu"
    available = {"cuda": probes.cuda, "npu": probes.npu, "mps": probes.mps}[kind]()
    if not available:
        hint = {
            "cuda": "no CUDA GPU visible to torch",
            "npu": "torch_npu is not installed (pip install 'trendlens[npu]') or no Ascend NPU is visible",
            "mps": "Apple MPS is not available",
        }[kind]
        raise ModelError(f"device {pref!r} requested but {hint}; use --device auto or cpu")
    return kind if idx is None else f"{kind}:{idx}"
