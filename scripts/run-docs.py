#!/usr/bin/env python3
"""Runs the shell blocks of README.md and docs/*.md as a reader would.

Every fenced block of the pages names its language. Two of them are run:

  ```sh        a script: run with bash (errexit, pipefail); it must exit 0.
  ```console   commands after "$ " (a line ending in "\\" continues on the
               next), each followed by the output the page quotes. The
               command's stdout and stderr together must equal the quoted
               lines (trailing blanks ignored); a quoted line "..." (indented or not) stands
               for any number of lines, and "[...]" in a line for any text
               (a time, a path that differs from run to run). A command must exit 0 unless its
               quoted output has an "error:" line.

Every other language (text, mlir, json, c++, cmake, ...) is read, not run. A
block with no language is an error: a reader cannot tell a command from an
output, and neither can this script.

Every relative link must name a file that exists and, after "#", one of
its headings (GitHub's anchors).

An HTML comment on the line before a block's fence changes how it runs:

  <!-- docs-test: long -->               only with --long (the long tier)
  <!-- docs-test: requires torchvision --> only where Python imports it
                                           (also: torch, mpi, cuda-driver)
  <!-- docs-test: skip REASON -->        never run (the build itself, CI's
                                           own stages, a GPU); listed with
                                           its reason in the summary

The blocks of one page run in order, in one fresh directory per page that
holds a link to every entry of the source tree (`build` links to the build
directory), so that `build/bin/mem-opt examples/...` works as written and
files a block writes are there for the blocks after it, as they are for a
reader in one terminal. Exports and `cd` carry from block to block too.
PATH and PYTHONPATH are the environment's own: a page that runs a bare tool
name or imports memopt_torch must set them itself, as the reader must.

Usage: run-docs.py --src SRC --build BUILD [--long] [--part I/N] [--keep] [PAGE...]
Exit status 0 when every block that runs gives what its page says.
"""

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(.*)$")
DIRECTIVE = re.compile(r"^<!--\s*docs-test:\s*(.*?)\s*-->\s*$")
RUN_LANGS = {"sh", "console"}


class Block:
    def __init__(self, page, line, lang, body, directives):
        self.page, self.line, self.lang = page, line, lang
        self.body, self.directives = body, directives

    def where(self):
        return "%s:%d" % (self.page, self.line)


def parse_page(path, rel):
    """The fenced blocks of one page, and the errors of their markup."""
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, errors, i = [], [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        lang = m.group(1).strip()
        start = i
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            i += 1
        if i == len(lines):
            errors.append("%s:%d: the block is not closed" % (rel, start + 1))
            break
        directives = []
        j = start - 1
        while j >= 0 and DIRECTIVE.match(lines[j]):
            directives.insert(0, DIRECTIVE.match(lines[j]).group(1))
            j -= 1
        if not lang:
            errors.append("%s:%d: the block names no language (sh and console "
                          "are run; text, mlir, json, ... are not)" % (rel, start + 1))
        blocks.append(Block(rel, start + 1, lang, lines[start + 1:i], directives))
        i += 1
    return blocks, errors


LINK = re.compile(r"\]\(([^)\s]+)\)")


def slug(heading):
    """GitHub's anchor of a heading."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    result, fenced = set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            result.add(slug(line.lstrip("#")))
    return result


def check_links(src, rel):
    """The errors of a page's relative links: a missing file or heading."""
    errors, fenced = [], False
    page = os.path.join(src, rel)
    for number, line in enumerate(open(page, encoding="utf-8"), 1):
        if line.startswith("```"):
            fenced = not fenced
        if fenced:
            continue
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(resolved):
                errors.append("%s:%d: the link '%s' names no file" % (rel, number, target))
            elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                errors.append("%s:%d: the link '%s' names no heading of %s"
                              % (rel, number, target, os.path.relpath(resolved, src)))
    return errors


def parse_console(block):
    """[(command, [expected lines])] of a console block."""
    items, cmd, expected, cont = [], None, [], False
    for text in block.body:
        if cont:
            cmd += "\n" + text
            cont = text.endswith("\\")
            continue
        if text.startswith("$ "):
            if cmd is not None:
                items.append((cmd, expected))
            cmd, expected = text[2:], []
            cont = cmd.endswith("\\")
        elif cmd is None:
            raise ValueError("%s: a console block starts with '$ COMMAND'" % block.where())
        else:
            expected.append(text.rstrip())
    if cmd is not None:
        items.append((cmd, expected))
    return items


def line_matches(expected, actual):
    if "[...]" not in expected:
        return expected == actual
    parts = [re.escape(p) for p in expected.split("[...]")]
    return re.fullmatch(".*".join(parts), actual) is not None


def output_matches(expected, actual):
    """Whether the actual lines match the quoted ones ("..." matches any run)."""
    exp = [line.rstrip() for line in expected]
    act = [line.rstrip() for line in actual]
    while exp and not exp[-1]:
        exp.pop()
    while act and not act[-1]:
        act.pop()

    memo = {}

    def match(i, j):
        key = (i, j)
        if key in memo:
            return memo[key]
        if i == len(exp):
            result = j == len(act)
        elif exp[i].strip() == "...":
            result = any(match(i + 1, k) for k in range(j, len(act) + 1))
        else:
            result = j < len(act) and line_matches(exp[i], act[j]) and match(i + 1, j + 1)
        memo[key] = result
        return result

    sys.setrecursionlimit(max(10000, 4 * (len(exp) + len(act))))
    return match(0, 0)


def feature_present(name):
    if name in ("torch", "torchvision"):
        return importlib.util.find_spec(name) is not None
    if name == "mpi":
        return shutil.which("mpiexec") is not None
    if name == "cuda-driver":
        try:
            import ctypes
            ctypes.CDLL("libcuda.so.1")
            return True
        except OSError:
            return False
    raise ValueError("unknown feature '%s'" % name)


class Session:
    """One page's directory and the shell state that carries between blocks."""

    def __init__(self, src, build, workdir):
        self.dir = workdir
        for entry in os.listdir(src):
            if entry in (".git", "build"):
                continue
            os.symlink(os.path.join(src, entry), os.path.join(workdir, entry))
        os.symlink(build, os.path.join(workdir, "build"))
        # A reader's shell: the build's tools are not on PATH and memopt_torch
        # is not importable until a page says how (lit sets both for tests).
        tools = os.path.realpath(os.path.join(build, "bin"))
        self.env = dict(os.environ)
        self.env["PATH"] = os.pathsep.join(
            p for p in self.env.get("PATH", "").split(os.pathsep)
            if p and os.path.realpath(p) != tools)
        self.env.pop("PYTHONPATH", None)
        self.state = os.path.join(workdir, ".docs-test-env")
        self.cwd = os.path.join(workdir, ".docs-test-cwd")
        with open(self.state, "w") as f:
            f.write("")
        with open(self.cwd, "w") as f:
            f.write(workdir)

    def run(self, script, strict):
        """Runs script in the page's shell state; (status, output)."""
        prologue = "source %s\ncd \"$(cat %s)\"\n" % (self.state, self.cwd)
        if strict:
            prologue += "set -eo pipefail\n"
        epilogue = ("\n__status=$?\nexport -p > %s\npwd > %s\nexit $__status\n"
                    % (self.state, self.cwd))
        proc = subprocess.run(["bash", "-c", prologue + script + epilogue], env=self.env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        return proc.returncode, proc.stdout.decode("utf-8", "replace")


def run_block(session, block):
    """None when the block gives what the page says, else the failure."""
    if block.lang == "sh":
        # errexit stops at the failing command; the epilogue still records
        # the state because bash runs it only on success: then a failure
        # leaves the state of the block before, which the report says.
        status, out = session.run("\n".join(block.body), strict=True)
        if status != 0:
            return "exit status %d\n%s" % (status, out)
        return None
    for cmd, expected in parse_console(block):
        status, out = session.run(cmd, strict=False)
        actual = out.split("\n")
        may_fail = any("error:" in line for line in expected)
        if status != 0 and not may_fail:
            return "$ %s\nexit status %d\n%s" % (cmd, status, out)
        if not output_matches(expected, actual):
            return ("$ %s\nthe page quotes:\n%s\nthe command printed:\n%s"
                    % (cmd, "\n".join(expected), out))
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", required=True, help="the source tree")
    ap.add_argument("--build", required=True, help="the build directory")
    ap.add_argument("--long", action="store_true", help="run the long tier's blocks too")
    ap.add_argument("--keep", action="store_true", help="keep the pages' directories")
    ap.add_argument("--check-markup", action="store_true",
                    help="only check that every block names its language and every directive parses")
    ap.add_argument("--part", default="1/1", metavar="I/N",
                    help="run the I-th of N interleaved parts of the pages (lit runs the parts in parallel)")
    ap.add_argument("pages", nargs="*", help="pages relative to --src (default: README.md, docs/*.md)")
    args = ap.parse_args()
    src, build = os.path.abspath(args.src), os.path.abspath(args.build)
    pages = args.pages or ["README.md"] + sorted(
        os.path.join("docs", p) for p in os.listdir(os.path.join(src, "docs")) if p.endswith(".md"))

    part, _, parts = args.part.partition("/")
    if not (part.isdigit() and parts.isdigit() and 1 <= int(part) <= int(parts)):
        ap.error("--part: expected I/N with 1 <= I <= N, got '%s'" % args.part)
    pages = pages[int(part) - 1::int(parts)]

    failures, counts, skipped = [], {"ran": 0, "long": 0, "unsupported": 0}, []
    for rel in pages:
        blocks, errors = parse_page(os.path.join(src, rel), rel)
        failures += errors + check_links(src, rel)
        runnable = []
        for block in blocks:
            if block.lang not in RUN_LANGS:
                continue
            why, long_only, missing = None, False, []
            for d in block.directives:
                word, _, rest = d.partition(" ")
                if word == "skip":
                    if not rest:
                        failures.append("%s: 'skip' needs a reason" % block.where())
                    why = rest
                elif word == "long":
                    long_only = True
                elif word == "requires":
                    try:
                        missing += [f for f in rest.split() if not feature_present(f)]
                    except ValueError as e:
                        failures.append("%s: %s" % (block.where(), e))
                else:
                    failures.append("%s: unknown directive '%s'" % (block.where(), d))
            if why is not None:
                skipped.append("%s: %s" % (block.where(), why))
            elif long_only and not args.long:
                counts["long"] += 1
            elif missing:
                counts["unsupported"] += 1
            else:
                runnable.append(block)
        if args.check_markup or not runnable:
            continue
        workdir = tempfile.mkdtemp(prefix="docs-test-")
        session = Session(src, build, workdir)
        for block in runnable:
            print("docs-test: %s (%s)" % (block.where(), block.lang), flush=True)
            failure = run_block(session, block)
            counts["ran"] += 1
            if failure:
                failures.append("%s: %s" % (block.where(), failure))
                print("docs-test: FAILED %s" % block.where(), flush=True)
        if args.keep:
            print("docs-test: %s ran in %s" % (rel, workdir))
        else:
            shutil.rmtree(workdir, ignore_errors=True)

    for line in skipped:
        print("docs-test: skipped %s" % line)
    print("docs-test: %d blocks ran, %d left to the long tier, %d need what is missing here, "
          "%d skipped, %d failed" % (counts["ran"], counts["long"], counts["unsupported"],
                                     len(skipped), len(failures)))
    for failure in failures:
        print("\nerror: " + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
