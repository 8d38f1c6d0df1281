"""The dynamic half of the analyzer: compile, run, check, time and count on a real GPU.

Importing this package is cheap; the CUDA bindings load only when a builder or
runner is used, so machines without a GPU can still read the launch specs.

    from analyzer.profile import Job, profile
    for m in profile(jobs, counters=True):
        print(m.job_id, m.status, m.time_ms)
"""
from .api import Profiler, Settings, profile
from .records import STATUSES, Job, Measurement
from .runner import Timing
from .spec import Arg, Buffer, Problem, Scalar

__all__ = ["Arg", "Buffer", "Problem", "Scalar", "Job", "Measurement", "STATUSES", "Profiler", "Settings",
           "Timing", "profile"]
