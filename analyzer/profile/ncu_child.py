"""Run under ncu by counters.collect: launch each item of a manifest once, in order.

Writes 'B i' before and 'E i' after each launch (or 'F i reason') to the
progress file, flushed, so the parent knows which CSV row is which launch and
where a crash or hang happened. Launches nothing else: no check kernels.
"""
from __future__ import annotations

import pickle
import sys


def main(argv: list[str]) -> int:
    manifest, progress = argv
    with open(manifest, "rb") as f:
        items = pickle.load(f)
    from .runner import CudaError, Device

    device = Device(with_check=False)
    with open(progress, "w", buffering=1) as log:
        for i, item in enumerate(items):
            log.write(f"B {i}\n")
            log.flush()
            try:
                device.launch_once(item.job, item.cubin_path, item.lowered, item.problem_dir)
            except CudaError as exc:
                log.write(f"F {i} {exc}\n")
                if not device.context_alive():
                    return 3
                continue
            except Exception as exc:  # one bad item must not stop the rest
                log.write(f"F {i} {type(exc).__name__}: {exc}\n".replace("\n", " ") + "\n")
                continue
            log.write(f"E {i}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
