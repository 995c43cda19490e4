"""Runs several `python3 -m memopt_torch` commands in one process.

    run_each.py DIR -- NAME COMMAND ARGS... [-- NAME COMMAND ARGS...]...

Each group after a `--` is a NAME and the arguments of one
`python3 -m memopt_torch` command (export, train, compare); its stdout
goes to DIR/NAME.out, its stderr to DIR/NAME.err, and run_each prints
`NAME: exit status STATUS`. Python starts and imports torch once for all
of them (about 2 s a process on the test machines), which keeps a test
that checks many refusals fast. An exception memopt_torch lets escape, a
crash where a message is due, is written to NAME.err as its traceback,
with the status `traceback`.
"""

import contextlib
import io
import os
import sys
import traceback

from memopt_torch.__main__ import main


def groups(argv):
    group = None
    for arg in argv:
        if arg == "--":
            if group:
                yield group
            group = []
        elif group is not None:
            group.append(arg)
    if group:
        yield group


def run(directory, name, args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(args)
        except SystemExit as exit:  # argparse's errors
            status = exit.code
        except Exception:  # a crash: the test sees the traceback
            traceback.print_exc()
            status = "traceback"
    for suffix, text in (("out", out.getvalue()), ("err", err.getvalue())):
        with open(os.path.join(directory, f"{name}.{suffix}"), "w") as f:
            f.write(text)
    print(f"{name}: exit status {status}", flush=True)


def main_each(argv):
    directory = argv[0]
    os.makedirs(directory, exist_ok=True)
    for group in groups(argv[1:]):
        run(directory, group[0], group[1:])


if __name__ == "__main__":
    main_each(sys.argv[1:])
