#!/usr/bin/env python3
"""Runs both safetensors readers on every file of DIR and checks that they
refuse it alike (test/Import/safetensors-invalid.test):

    same_refusals.py DIR 'MEM-RUN COMMAND'

mem-run (MEM-RUN COMMAND followed by the file) exits non-zero with one
`mem-run: error: MESSAGE`; `python3 -m memopt_torch compare FILE FILE`, run
in this process (torch is imported once), returns non-zero having printed
`memopt_torch: error: MESSAGE`, the same MESSAGE, and raises nothing (no
traceback). Prints `NAME: MESSAGE` for each file, FILE standing for its
path; exits 1 after the first file they disagree on.
"""

import contextlib
import io
import os
import shlex
import subprocess
import sys

from memopt_torch.__main__ import main as memopt_torch_main


def message(output, program):
    prefix = program + ": error: "
    lines = [line for line in output.splitlines() if line.startswith(prefix)]
    return lines[-1][len(prefix):] if len(lines) == 1 else None


def python_reader(path):
    """(status, output) of `python3 -m memopt_torch compare PATH PATH`."""
    output = io.StringIO()
    with contextlib.redirect_stderr(output), contextlib.redirect_stdout(output):
        try:
            status = memopt_torch_main(["compare", path, path])
        except BaseException as error:  # what would be a traceback
            return f"raised {type(error).__name__}: {error}", output.getvalue()
    return status, output.getvalue()


def main():
    directory, command = sys.argv[1], shlex.split(sys.argv[2])
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        cpp = subprocess.run(command + [path], capture_output=True, text=True,
                             errors="replace")
        cpp_output = cpp.stdout + cpp.stderr
        status, py_output = python_reader(path)
        cpp_message = message(cpp_output, "mem-run")
        py_message = message(py_output, "memopt_torch")
        problems = []
        if cpp.returncode == 0 or cpp_message is None or "Traceback" in cpp_output:
            problems.append(f"mem-run exited {cpp.returncode}:\n{cpp_output}")
        if status == 0 or not isinstance(status, int) or py_message is None:
            problems.append(f"memopt_torch returned {status}:\n{py_output}")
        if not problems and cpp_message != py_message:
            problems.append(f"different messages:\n  mem-run:      {cpp_message}\n"
                            f"  memopt_torch: {py_message}")
        if problems:
            print(f"{name}: FAILED\n" + "\n".join(problems))
            return 1
        print(f"{os.path.splitext(name)[0]}: {cpp_message.replace(path, 'FILE')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
