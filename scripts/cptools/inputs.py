"""The one loader of untrusted input: every file and JSON document a host
tool reads from a report, a serial log, a watch record or a matrix shard
comes through here.

A report and its log are written by a guest the operator does not control
(and a log may be damaged on the way), so what may go wrong is bounded
here, once, for scripts/compare, verdict, watch, matrix and the cptools
readers alike:

  read_file()    regular files only (a FIFO, a device or a directory is
                 refused by name before it is read, so nothing blocks or
                 streams forever); at most MAX_FILE_BYTES, a larger file is
                 refused whole, never cut
  input_files()  a directory's candidate files, walked without following
                 symbolic links; a link or anything that is not a regular
                 file is reported as rejected, never opened
  loads()        JSON text of at most MAX_JSON_BYTES, nested at most
                 MAX_DEPTH deep, at most MAX_VALUES values, numbers that
                 the probe can write: NaN, Infinity and floats that
                 overflow (1e999) are refused, integers must fit 64 bits
                 (-2**63 .. 2**64-1: a u64 is valid, one beyond is not)
  parse_count()  a decimal field of a marker line (bytes=, seq=): at most
                 a given value, so "bytes=" followed by 5,000 digits is a
                 named error rather than a ValueError

Every refusal is an InputError whose text names what was wrong; the tools
report it against the file and go on with the rest.  The limits are the
README's ("Reports are untrusted input"); each is far above what the probe
writes (its report buffer is 4 MiB, its reports nest 7 deep).
"""

import errno
import json
import math
import os
import stat

MAX_FILE_BYTES = 64 << 20   # a log: reports, resends, a week of watch records
MAX_JSON_BYTES = 16 << 20   # one document: four times the probe's buffer
MAX_DEPTH = 64
MAX_VALUES = 2000000        # scalars, lists and objects in one document
INT_MIN, INT_MAX = -(1 << 63), (1 << 64) - 1


class InputError(ValueError):
    """An input refused, with the reason as its text."""


def _mib(n):
    return "%d MiB" % (n >> 20) if n % (1 << 20) == 0 else "%d bytes" % n


_KINDS = ((stat.S_ISFIFO, "FIFO"), (stat.S_ISCHR, "character device"),
          (stat.S_ISBLK, "block device"), (stat.S_ISSOCK, "socket"),
          (stat.S_ISDIR, "directory"), (stat.S_ISLNK, "symbolic link"))


def file_kind(mode):
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def read_file(path, limit=MAX_FILE_BYTES):
    """The bytes of a regular file of at most `limit` bytes.

    Opened non-blocking (a FIFO's open() would otherwise wait for a
    writer) and checked with fstat on the open descriptor, so what is read
    is what was checked.  A symbolic link named explicitly is followed to
    what it names, which must itself be a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY |
                     getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        if e.errno == errno.ENXIO:      # a FIFO or socket nobody serves
            raise InputError("not a regular file (%s)" % _lkind(path))
        raise InputError("cannot read: %s" % (e.strerror or e))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputError("not a regular file (%s)"
                             % file_kind(st.st_mode))
        if st.st_size > limit:
            raise InputError("larger than %s (%d bytes): refused, not cut"
                             % (_mib(limit), st.st_size))
        chunks, total = [], 0
        while True:     # the file may grow while it is read: read no more
            try:
                b = os.read(fd, min(1 << 20, limit + 1 - total))
            except OSError as e:
                raise InputError("cannot read: %s" % (e.strerror or e))
            if not b:
                break
            chunks.append(b)
            total += len(b)
            if total > limit:
                raise InputError("larger than %s: refused, not cut"
                                 % _mib(limit))
        return b"".join(chunks)
    finally:
        os.close(fd)


def _lkind(path):
    try:
        return file_kind(os.stat(path).st_mode)
    except OSError:
        return "not a regular file"


def read_text(path, limit=MAX_FILE_BYTES):
    """read_file decoded as UTF-8 (invalid bytes become U+FFFD)."""
    return read_file(path, limit).decode("utf-8", "replace")


def input_files(paths, suffixes):
    """[(path, from_dir, refusal)] for the inputs as given.

    A file named on the command line is taken as it is (read_file checks
    it); a directory stands for the files below it whose names end in one
    of `suffixes`, sorted, walked without following links.  A candidate
    there that is a symbolic link or not a regular file comes back with
    its refusal (a text) instead of being opened."""
    out = []
    for p in paths:
        if not os.path.isdir(p):
            out.append((p, False, None))
            continue
        for top, dirs, files in os.walk(p):
            dirs.sort()
            for f in sorted(files + [d for d in dirs
                                     if os.path.islink(os.path.join(top, d))]):
                if not f.endswith(suffixes):
                    continue
                full = os.path.join(top, f)
                try:
                    mode = os.lstat(full).st_mode
                except OSError as e:
                    out.append((full, True, "cannot read: %s" % e.strerror))
                    continue
                if stat.S_ISLNK(mode):
                    out.append((full, True, "a symbolic link: links in an "
                                "input directory are not followed"))
                elif not stat.S_ISREG(mode):
                    out.append((full, True, "not a regular file (%s)"
                                % file_kind(mode)))
                else:
                    out.append((full, True, None))
    return out


def _refuse_constant(name):
    raise InputError("%s is not a finite number (JSON has no NaN or "
                     "Infinity)" % name)


def loads(text, limit=MAX_JSON_BYTES):
    """Parse one JSON document within the limits (module docstring);
    InputError names the first limit it breaks."""
    size = len(text)
    if size > limit:
        raise InputError("JSON of %d bytes is larger than %s: refused, not "
                         "parsed" % (size, _mib(limit)))
    try:
        obj = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise InputError("JSON nested deeper than %d levels" % MAX_DEPTH)
    except InputError:
        raise
    except ValueError as e:     # json.JSONDecodeError, int digit limit
        raise InputError("JSON does not parse: %s" % e)
    check(obj)
    return obj


def check(obj):
    """Walk a parsed document without recursion: depth, count, numbers.

    Level by level, each container's members looked at by exact type (a
    parsed document holds only dict, list, str, int, float, bool, None):
    this walk runs on every report a fleet loads, so it makes no call per
    value."""
    count, depth = 1, 1
    level = [obj] if type(obj) in (dict, list) else []
    _check_scalar(obj)
    while level:
        if depth > MAX_DEPTH:
            raise InputError("JSON nested deeper than %d levels" % MAX_DEPTH)
        deeper = []
        push = deeper.append
        for v in level:
            members = v.values() if type(v) is dict else v
            count += len(members)
            for x in members:
                t = type(x)
                if t is dict or t is list:
                    push(x)
                elif t is int:
                    if not INT_MIN <= x <= INT_MAX:
                        _check_scalar(x)
                elif t is float:
                    if x - x != 0.0:    # inf or nan
                        _check_scalar(x)
        if count > MAX_VALUES:
            raise InputError("JSON holds more than %d values" % MAX_VALUES)
        level, depth = deeper, depth + 1
    return obj


def _check_scalar(v):
    if isinstance(v, bool):
        return
    if isinstance(v, int) and not INT_MIN <= v <= INT_MAX:
        raise InputError("integer of %d bits is outside the 64-bit range a "
                         "report can hold" % v.bit_length())
    if isinstance(v, float) and not math.isfinite(v):
        raise InputError("a number is not a finite number (it overflows a "
                         "double)")


def parse_count(digits, name, maximum):
    """int(digits) for a marker field, at most `maximum`."""
    if len(digits) > len(str(maximum)) or int(digits) > maximum:
        shown = digits if len(digits) <= 20 else "%s... (%d digits)" % (
            digits[:12], len(digits))
        raise InputError("%s= out of range: %s (at most %d)"
                         % (name, shown, maximum))
    return int(digits)
