"""monostamp, or python -m monostamp: unique timestamps and ids for shell
scripts, and its commands (docs/python.md).

    $ monostamp --count 3 --digits 6 --zone UTC --z
    $ monostamp run -- python manage.py test --parallel 4   # monostamp/_run.py
    $ monostamp stats "$dir/state"                          # the core's line of its counts
    $ LD_PRELOAD="$(monostamp preload-path)" MONOSTAMP_SHARED="$dir/state" make check

Each line is the next stamp of one clock; the epilog below gives the exit
status.  Usage and messages name the command as it was called: `monostamp`
(the console script calls main()) or `python -m monostamp` (this file run as
__main__ passes that name).
"""
import argparse
import errno
import os
import signal
import sys
import textwrap
import types
from typing import Callable, List, Optional, TextIO, Union

import monostamp


def _count(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("invalid count %r: not an integer" % text) from None
    if n < 1:
        raise argparse.ArgumentTypeError("invalid count %r: must be at least 1" % text)
    return n


def _digits(text: str) -> int:
    try:
        d = int(text)
    except ValueError:
        d = -1
    if not 0 <= d <= 9:
        raise argparse.ArgumentTypeError("invalid digits %r: must be 0 to 9" % text)
    return d


#: The name the console script is called by; `python -m monostamp` passes its own.
PROG = "monostamp"

#: The commands beside the printing form, each a word that comes first:
#: (name, its arguments in the usage, what it does).
COMMANDS = (
    ("run", "[OPTIONS] [--] CMD [ARGS...]",
     "run CMD with one state file in MONOSTAMP_SHARED and MONOSTAMP_PATCH=1: every "
     "Python process it starts patches datetime.now() & co. and draws from one "
     "sequence; --native preloads the library below as well (see: {prog} run --help)"),
    ("stats", "PATH",
     "print one line of what the clocks on the state file at PATH counted, in every "
     "process and language: stamps handed out, how many would have repeated without "
     "monostamp, backward steps met, the largest lead"),
    ("preload-path", "",
     "print the absolute path of the preload library this install ships, for "
     "LD_PRELOAD (docs/preload.md); where there is none, one line on stderr "
     "saying why, status 1"),
)

DESCRIPTION = ("Print the next unique timestamp(s) as ISO 8601 text, integer ns, or "
               "UUIDv7 ids, one per line.")
EXIT_STATUS = ("exit status: 0 all written (also --help, --version); 1 the state "
               "file (missing directory, not yours, not a state file) or standard "
               "output cannot be used (one line on stderr); 2 bad arguments; 141 the "
               "reader went before the end (as with seq | head); 130 interrupted "
               "(Ctrl-C).")
#: Where argparse starts the help of the options ("  --count N, -n N" and two
#: spaces), so the commands' help lines up with it; and the width to wrap to.
HELP_COLUMN, WIDTH = 19, 78


def _commands_help(prog: str) -> str:
    """The commands as argparse lists options: name, then its help in a column."""
    lines = ["commands:"]
    for name, _, text in COMMANDS:
        body = textwrap.wrap(text.format(prog=prog), WIDTH - HELP_COLUMN)
        head = "  " + name
        if len(head) < HELP_COLUMN - 1:
            lines.append(head.ljust(HELP_COLUMN) + body.pop(0))
        else:
            lines.append(head)
        lines += [" " * HELP_COLUMN + line for line in body]
    return "\n".join(lines)


def parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The printing form's parser; its usage and help name the commands too."""
    # Raw text: the commands are laid out in columns, which argparse's own
    # filling of the epilog would run together.
    p = argparse.ArgumentParser(
        prog=prog, formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.fill(DESCRIPTION, WIDTH),
        epilog=_commands_help(prog) + "\n\n" + textwrap.fill(EXIT_STATUS, WIDTH))
    form = p.add_mutually_exclusive_group()
    form.add_argument("--ns", action="store_true",
                      help="print integer nanoseconds since the epoch")
    form.add_argument("--uuid7", action="store_true",
                      help="print a UUIDv7 made from each stamp (docs/ids.md)")
    p.add_argument("--count", "-n", type=_count, default=1, metavar="N",
                   help="how many stamps to print (default 1)")
    p.add_argument("--zone", metavar="ZONE",
                   help="'UTC', an IANA name or a POSIX TZ string (default: the local zone)")
    p.add_argument("--digits", type=_digits, default=None, metavar="D",
                   help="fractional digits of the ISO text, 0 to 9 (default 9); below 9 "
                        "the stamps are whole microseconds, so lines stay distinct down "
                        "to 6 digits (fewer may repeat)")
    p.add_argument("--z", action="store_true", help="write 'Z' for a zero offset")
    p.add_argument("--shared", metavar="PATH",
                   help="a state file shared with other processes (created if missing)")
    p.add_argument("--version", action="version", version="monostamp " + monostamp.__version__)
    # The printing form as argparse words it, then one line per command, so
    # that --help and a usage error alike show every way to call it.  Worded
    # without colour (Python 3.14's argparse colours for a terminal on stdout),
    # since the text may be printed elsewhere, to a file on stderr, say.
    color = getattr(p, "color", None)
    if color is not None:
        setattr(p, "color", False)
    printing = p.format_usage()[len("usage: "):].rstrip("\n")
    if color is not None:
        setattr(p, "color", color)
    p.usage = "\n       ".join([printing] + [" ".join(filter(None, (prog, name, args)))
                                             for name, args, _ in COMMANDS])
    return p


#: What the help of `stats` and `preload-path` adds to their line under
#: "commands:": an example, and the exit status.
DETAILS = {
    "stats": """Each clock adds its counts at its checkpoints (every few ms), when it
leaves the file and at exit:

  monostamp: 13 stamps handed out, 12 would have repeated without
  monostamp, 1 backward step met, largest lead 1.000000012 s

exit status: 0 printed; 1 the file cannot be read (missing, not a state
file) or standard output cannot be written, one line on stderr; 2 bad
arguments.""",
    "preload-path": """  LD_PRELOAD="$({prog} preload-path)" MONOSTAMP_SHARED="$dir/state" CMD

exit status: 0 printed; 1 there is none (not Linux, or a build without
it) or standard output cannot be written, one line on stderr saying why;
2 bad arguments.""",
}


def _command(prog: str, name: str, args: List[str], wrong: Optional[str],
             text: Callable[[], str]) -> int:
    """`stats` and `preload-path`: --help, `wrong` (the arguments' fault) as
    a usage error, else the line text() makes on stdout, or why it cannot."""
    called = prog + " " + name
    _, usage, summary = next(c for c in COMMANDS if c[0] == name)
    usage = " ".join(filter(None, (called, usage)))
    if args in (["-h"], ["--help"]):
        print("usage: {}\n\n{}.\n\n{}".format(
            usage, textwrap.fill(summary[0].upper() + summary[1:], WIDTH),
            DETAILS[name]).replace("{prog}", prog))
        return 0
    if wrong is not None:
        print("usage: {}\n{}: error: it takes {}".format(usage, called, wrong), file=sys.stderr)
        return 2
    from . import _run
    try:
        line = text()
    except (OSError, ValueError, _run.NativeUnavailable) as e:
        print("%s: %s" % (called, e), file=sys.stderr)
        return 1
    # Through _write: a closed or full stdout is one line and status 1 (not
    # an empty LD_PRELOAD with status 0).
    return _write(called, lambda n: line + "\n", 1)


def main(argv: Optional[List[str]] = None, prog: str = PROG) -> int:
    words = sys.argv[1:] if argv is None else argv
    if words[:1] == ["run"]:
        from . import _run
        return _run.main(words[1:])
    command, rest = words[:1], words[1:]
    if command == ["preload-path"]:
        from . import _run
        wrong = "no arguments, not %r" % rest[0] if rest else None
        return _command(prog, "preload-path", rest, wrong, _run.library_path)
    if command == ["stats"]:
        ext = sys.modules["monostamp._monostamp"]  # the counts and their line: the core's
        ok = len(rest) == 1 and not (rest[0].startswith("-") and rest[0] != "-")
        wrong = None if ok else "one PATH, not %s" % (" ".join(map(repr, rest)) or "none")
        return _command(prog, "stats", rest, wrong, lambda: ext._counts_text(ext._state_counts(rest[0])))
    p = parser(prog)
    args = p.parse_args(words)
    # --digits, --z and --zone shape ISO text, which --ns and --uuid7 do
    # not print: asked together, one of them would be ignored.
    if args.ns or args.uuid7:
        shaping = [flag for flag, given in (("--digits", args.digits is not None),
                                            ("--z", args.z), ("--zone", args.zone is not None))
                   if given]
        if shaping:
            p.error("%s shapes ISO 8601 text, which %s does not print: drop one of them"
                    % (shaping[0], "--ns" if args.ns else "--uuid7"))
    if args.digits is None:
        args.digits = 9
    # Below 9 digits two stamps of one µs would read alike: whole µs then
    # (the µs policy, on the same state: one sequence with the ns stamps).
    whole_us = not (args.ns or args.uuid7) and args.digits < 9
    shared = args.shared if args.shared is not None else (
        os.environ.get("MONOSTAMP_SHARED") or None)
    # The default clock (MONOSTAMP_SHARED applies), unless one is asked for.
    source: "Union[monostamp.Clock, types.ModuleType]" = monostamp
    try:
        if args.zone is not None or args.shared is not None or whole_us:
            source = monostamp.Clock("monotonicForceMicrosecondIncrement" if whole_us
                                     else "monotonicForceNanosecondIncrement",
                                     zone=args.zone, shared=shared)
    except ValueError as e:
        # A bad --zone is a bad argument (2); a file that is no state file
        # (ValueError too) is a state file that cannot be used (1).
        if shared is None or not _zone_ok(args.zone):
            p.error(str(e))
        print("%s: %s" % (p.prog, e), file=sys.stderr)
        return 1
    except OSError as e:
        # Said of the flag the user typed, the path once (no "[Errno 2]").
        text = e.strerror if e.filename is None and e.strerror else str(e)
        print("%s: %s" % (p.prog, text.replace("Clock(): shared=", "--shared ", 1)),
              file=sys.stderr)
        return 1
    return _write(p.prog, _line_maker(source, args), args.count)


def _zone_ok(zone: Optional[str]) -> bool:
    """Whether --zone names a zone (None, the local zone, always does)."""
    try:
        monostamp.Clock(zone=zone)
    except ValueError:
        return False
    return True


#: Lines made and written at a time: the per-write cost vanishes, memory
#: stays flat (about 150 kB of text).
CHUNK = 4096
#: The reader has gone: a shell's status for a command that SIGPIPE ended.
EXIT_READER_GONE = 128 + int(signal.SIGPIPE) if hasattr(signal, "SIGPIPE") else 1


def _line_maker(source: "Union[monostamp.Clock, types.ModuleType]",
                args: argparse.Namespace) -> Callable[[int], str]:
    """A function making the text of the next n stamps, one per line."""
    if args.ns or args.uuid7:
        make = source.time_ns if args.ns else source.uuid7
        return lambda n: "\n".join([str(make()) for _ in range(n)]) + "\n"
    now, digits, z = source.now, args.digits, args.z
    return lambda n: "\n".join([now().isoformat(digits, z) for _ in range(n)]) + "\n"


def _write(prog: str, lines: Callable[[int], str], count: int) -> int:
    out = sys.stdout
    if out is None:  # fd 1 was closed when Python started
        print("%s: cannot write to standard output: it is closed" % prog, file=sys.stderr)
        return 1
    left = count
    try:
        write = _all_of_it(out)
        while left:
            n = min(left, CHUNK)
            try:
                text = lines(n)
            except (OSError, ValueError) as e:  # the default clock's MONOSTAMP_SHARED, say
                out.flush()  # the stamps made so far are good ones
                print("%s: %s" % (prog, e), file=sys.stderr)
                return 1
            write(text)
            left -= n
        out.flush()
    except BrokenPipeError:
        # The reader has gone (`| head`): stop as quietly as seq(1) does.
        _silence(out)
        return EXIT_READER_GONE
    except OSError as e:  # full (ENOSPC, EFBIG), or open for reading only (EBADF)
        _silence(out)
        print("%s: cannot write to standard output: %s" % (prog, e), file=sys.stderr)
        return 1
    return 0


def _all_of_it(out: TextIO) -> Callable[[str], object]:
    """A function writing all of a text to out, or raising OSError: under
    `python -u` sys.stdout drops the rest of a partial write(2) (a file at
    its size limit), so the bytes go to the binary layer, in a loop."""
    binary = getattr(out, "buffer", None)
    if binary is None:  # a text stream of Python's own, say io.StringIO
        return out.write
    out.flush()  # anything written to the text layer before goes first

    def write(text: str) -> None:
        data = memoryview(text.encode("ascii"))
        while data:
            n = binary.write(data)
            if n is None:  # a non-blocking descriptor that is full
                raise BlockingIOError(errno.EAGAIN, os.strerror(errno.EAGAIN))
            data = data[n:]
    return write


def _silence(out: TextIO) -> None:
    """Points fd 1 at /dev/null: the interpreter's flush at exit cannot fail
    again ("Exception ignored ... BrokenPipeError")."""
    try:
        fd = out.fileno()
    except (AttributeError, ValueError, OSError):  # not a file: nothing flushes it at exit
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


if __name__ == "__main__":
    # Run as python -m monostamp: usage and messages say so.
    sys.exit(main(prog="python -m monostamp"))
