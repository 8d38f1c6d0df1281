"""Where and when a measurement was made: GPU, driver, CUDA versions, clocks, date (no host names)."""
from __future__ import annotations

import datetime as _dt
from typing import Any

from . import toolkit


def provenance(worker_info: dict[str, Any] | None = None) -> dict[str, Any]:
    """GPU name, driver, CUDA (driver API and NVRTC) versions, SM/memory clocks now, UTC date."""
    info: dict[str, Any] = {"gpu": "", "driver": "", "cuda_driver": "", "nvrtc": "", "sm_clock_mhz": -1,
                            "mem_clock_mhz": -1, "sm_clock_max_mhz": -1, "date": ""}
    row = toolkit.nvidia_smi("name,driver_version,clocks.sm,clocks.mem,clocks.max.sm")
    if row and len(row) >= 5:
        info["gpu"], info["driver"] = row[0], row[1]
        for key, text in zip(("sm_clock_mhz", "mem_clock_mhz", "sm_clock_max_mhz"), row[2:5]):
            try:
                info[key] = int(float(text))
            except ValueError:
                pass
    if worker_info:
        info["gpu"] = info["gpu"] or worker_info.get("gpu", "")
        ver = worker_info.get("driver_cuda")
        if isinstance(ver, int):
            info["cuda_driver"] = f"{ver // 1000}.{(ver % 1000) // 10}"
    try:
        info["nvrtc"] = toolkit.nvrtc_version()
    except toolkit.ToolkitError:
        pass
    info["date"] = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return info
