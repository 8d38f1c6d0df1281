"""Where cudaperf keeps what it computes once (ptxas resources, cubins, features, C references,
extensions): `$CUDAPERF_CACHE`, else `$XDG_CACHE_HOME/cudaperf`, else `~/.cache/cudaperf`."""
from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    root = os.environ.get("CUDAPERF_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cudaperf")
    return Path(root)
