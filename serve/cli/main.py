"""The `stablecost` command line: the parser, and the dispatch to each command's module.

    stablecost analyze PROGRAM [--json] [--mesh data=4,model=2]
    stablecost predict PROGRAM --hardware NAME[,NAME...]
                       [--fidelity auto|roofline|learned|measured|all|all+measured]
                       [--json] [--top N] [--mesh data=4,model=2]
                       [--topology switch|torus2d:2x4|...] [--no-overlap]
    stablecost hardware list | show NAME | calibrate [--quick]
    stablecost collect | dataset | import ...   (see serve/cli/data.py)
    stablecost serve [--host H] [--port P] ...   (see serve/cli/serve.py)
    stablecost train xgboost|gnn | evaluate ... (see serve/cli/train.py)

PROGRAM is a .mlir / .mlirbc path (text, bytecode, a StableHLO portable artifact), a
jax.export artifact, or `-` for stdin. User errors print one line and
exit with code 2.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from typing import NoReturn, Sequence

from ...errors import StablecostError
from . import data, hardware, program, serve, train

EXIT_USER_ERROR = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2, like every user error
        sys.stderr.write(f"stablecost: error: {message} (see `{self.prog} --help`)\n")
        raise SystemExit(EXIT_USER_ERROR)


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="stablecost", description="Predict ML step time from StableHLO.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    program.add_parsers(sub, _Parser)
    hardware.add_parsers(sub, _Parser)
    data.add_parsers(sub, _Parser)
    serve.add_parsers(sub, _Parser)
    train.add_parsers(sub, _Parser)
    return parser


_STORAGE_ERRORS = {errno.ENOSPC, errno.EDQUOT}


def main(argv: Sequence[str] | None = None) -> int:
    args = _build_parser().parse_args(argv)
    try:
        if args.command in ("analyze", "predict"):
            return program.run(args)
        if args.command == "hardware":
            return hardware.run(args)
        if args.command == "serve":
            return serve.run(args)
        if args.command in ("train", "evaluate"):
            return train.run(args)
        return data.run(args)
    except StablecostError as exc:
        sys.stderr.write(f"stablecost: error: {exc}\n")
        return EXIT_USER_ERROR
    except BrokenPipeError:
        # `stablecost ... --json | head`: the reader had enough, which is not an error;
        # stdout goes to /dev/null so the interpreter's final flush does not fail too
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:
        if exc.errno not in _STORAGE_ERRORS:
            raise
        # a full disk or quota: what was measured before is kept (journal, atomic
        # writes); the same command continues once there is room
        where = f" writing {exc.filename}" if exc.filename else ""
        sys.stderr.write(f"stablecost: error: {exc.strerror}{where}; free some space and "
                         "run the same command again\n")
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        sys.stderr.write("stablecost: interrupted\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
