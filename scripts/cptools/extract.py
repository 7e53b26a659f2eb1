"""`clockprobe extract`: the verified report out of a captured serial log.

What a user does with the console log of a VM booted elsewhere (VMware,
Hyper-V, a cloud's serial output): find the framed report, check its
length and CRC-32, and keep it -- indented for reading, or with --raw the
JSON line exactly as framed (its size and CRC-32 are the END marker's, as
`clockprobe run`'s report.raw.json).  clockprobe-guest's report (the
CLOCKPROBE GUEST frame) is taken the same way when the log holds no probe
report.  It used to be `cpqemu.py extract`, which still calls this.
"""

import argparse
import json
import sys

from . import frame, helpfmt, inputs
from .untrusted import term_json, term_text

EXIT_OK, EXIT_NO_REPORT, EXIT_USAGE = 0, 1, 2


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Extract the verified report from a serial log.",
        formatter_class=helpfmt.Formatter,
        epilog=helpfmt.epilog(
            "The last complete framed report in LOG is taken (a trailing "
            "copy cut off\nby a reset does not hide an earlier whole one); "
            "its JSON must match the\nEND marker's byte count and CRC-32.  "
            "LOG may also be a report already\nextracted as JSON.  Noise, "
            "CR/LF line ends and escape sequences around the\nmarkers are "
            "ignored.  A log with clockprobe-guest's report (CLOCKPROBE "
            "GUEST)\nand no probe report gives the guest report.",
            helpfmt.exit_status(
                (EXIT_OK, "a report verified and was written"),
                (EXIT_NO_REPORT, "no report verified (the reason is "
                                 "printed: no marker, truncated, CRC or "
                                 "length mismatch)"),
                (EXIT_USAGE, "usage error, or LOG cannot be read"))))
    p.add_argument("log", metavar="LOG",
                   help="a serial log or a report as JSON; - reads stdin")
    p.add_argument("--raw", action="store_true",
                   help="write the JSON line exactly as framed (one line, "
                        "the bytes the CRC covers) instead of indented; "
                        "needs a framed log")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the report here instead of stdout")
    return p.parse_args(argv)


def _read(path):
    """The log's bytes through cptools.inputs (a regular file, size-capped;
    stdin read up to the same cap): a FIFO or /dev/zero named as LOG is
    refused, not read forever."""
    if path == "-":
        data = sys.stdin.buffer.read(inputs.MAX_FILE_BYTES + 1)
        if len(data) > inputs.MAX_FILE_BYTES:
            raise inputs.InputError("larger than 64 MiB: refused, not cut")
        return data
    return inputs.read_file(path)


def main(argv, stdout=None, stderr=None):
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    args = parse_args(argv)

    def warn(msg):
        # The log's name and the frame's complaint: shown, not obeyed.
        print(term_text(msg), file=stderr)
    name = "stdin" if args.log == "-" else args.log
    try:
        data = _read(args.log)
    except inputs.InputError as e:
        warn("extract: %s: %s" % (name, e))
        return EXIT_USAGE
    text = data.decode("utf-8", "replace")
    guest = ("CLOCKPROBE GUEST BEGIN" in text
             and not frame.BEGIN_RE.search(text))
    if args.raw:
        meta_of = (frame.extract_guest_report_meta if guest
                   else frame.extract_report_meta)
        _, why, meta = meta_of(text, keep_json=True)
        if meta is None:
            warn("extract: %s: %s" % (name, why))
            return EXIT_NO_REPORT
        out = meta["json"] + b"\n"
    else:
        report, why = (frame.extract_guest_report(text) if guest
                       else frame.load_report_bytes(data))
        if report is None:
            warn("extract: %s: %s" % (name, why))
            return EXIT_NO_REPORT
        # The same JSON, its DEL, C1 and bidi characters as \uNNNN: read
        # on a terminal, they are shown rather than obeyed.
        out = (term_json(json.dumps(report, indent=2, ensure_ascii=False))
               + "\n").encode("utf-8")
    # A different run cut short in the same log is not what was extracted
    # and would otherwise vanish without a word.
    for rid, at in frame.cut_runs(data, *((frame.GUEST_BEGIN_RE, frame.GUEST_END_RE)
                                          if guest else ())):
        warn("extract: %s: warning: %s" % (name, frame.cut_text(rid, at)))
    if args.output:
        try:
            with open(args.output, "wb") as f:
                f.write(out)
        except OSError as e:
            warn("extract: %s: cannot write: %s" % (args.output, e.strerror))
            return EXIT_USAGE
        return EXIT_OK
    buf = getattr(stdout, "buffer", None)
    if buf is None:  # a StringIO in tests
        stdout.write(out.decode("utf-8"))
    else:  # bytes as they are: --raw must not be re-encoded
        stdout.flush()
        buf.write(out)
        buf.flush()
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
