"""python -m corpus collect|stats|validate|fit-registers"""
from __future__ import annotations

import importlib
import sys

USAGE = "usage: python -m corpus {collect,stats,validate,fit-registers} [options]  (each takes --help)"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "collect":
        from .collect import main as run
    elif cmd == "stats":
        from .stats import main as run
    elif cmd == "fit-registers":
        from .registers import main as run
    elif cmd == "validate":
        try:
            module = importlib.import_module("corpus.validate")
        except ModuleNotFoundError as exc:
            if exc.name != "corpus.validate":
                raise
            print("error: corpus.validate is not written yet", file=sys.stderr)
            return 2
        run = module.main
    else:
        print(f"error: unknown command {cmd!r}\n{USAGE}", file=sys.stderr)
        return 2
    return int(run(rest) or 0)


if __name__ == "__main__":
    sys.exit(main())
