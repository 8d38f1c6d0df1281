"""Records that cross the RL loop's module boundaries: a real answer from an oracle."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Protocol, Sequence

from corpus.families.base import Sample
from rewardmodel.reward import Measurement


class NotMeasured(LookupError):
    """A replay oracle was asked about a candidate that no real run ever measured."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "not measured"


@dataclass(frozen=True)
class RealAnswer:
    """What a real run of one candidate said, and what it cost."""

    sample_id: str
    status: str                 # "ok", "wrong_result", "compile_error", "launch_error", "timeout", ...
    time_ms: float | None = None
    message: str = ""
    compile_s: float = 0.0      # seconds spent compiling (0 when the build cache answered)
    run_s: float = 0.0          # seconds the GPU spent on checks and timing
    origin: str = "replay"      # "replay", "gpu" or "ray"

    @property
    def cost_s(self) -> float:
        """GPU-machine seconds this answer cost (what a surrogate answer saves)."""
        return self.compile_s + self.run_s

    @property
    def ok(self) -> bool:
        return self.status == "ok" and self.time_ms is not None

    def measurement(self) -> Measurement:
        return Measurement(self.status, self.time_ms, self.message)

    def to_dict(self) -> dict:
        return {**asdict(self), "cost_s": self.cost_s}


class GatedRecord:
    """Mixed into an evaluation dataclass with `gates` (name -> Gate): its first failed gate,
    and its dict form with that gate named."""

    @property
    def failed_gate(self) -> str | None:
        return next((k for k, g in self.gates.items() if g.passed is False), None)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["failed_gate"] = self.failed_gate
        return d


class Oracle(Protocol):
    """Real measurements: `measure` answers every sample, in order (a failed run is an answer
    with its status, not an exception); `close` frees workers."""

    name: str

    def measure(self, samples: Sequence[Sample]) -> list[RealAnswer]: ...

    def close(self) -> None: ...
