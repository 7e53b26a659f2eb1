"""longformat.flatten() for reports of a shape already seen, made cheap.

A fleet's reports come from a handful of probe versions and machine
kinds, so most of them share their shape: the same keys in the same order,
the same types, the same list lengths and list-entry names.  flatten()'s
keys depend on nothing else, and its values are the report's scalars in
document order.  For a shape met twice, Shapes compiles a function that
checks the shape (a length per object and list, then two flat C-level
comparisons: every key, every member's type) and takes the values out with
one itemgetter; it returns flatten()'s very key list and the values, or
None when anything differs, and flatten() does the work.  A fleet load
spent a quarter of its CPU in flatten()'s per-value walk (0.28 of ~1.2 ms
a report); the checked function takes about a third of the walk's time.

Why it is exact:
- the keys are flatten()'s own for the first report of the shape (the
  seed), and a report passing every check has the same keys: its objects'
  key tuples, every value's type (so where None, objects and lists are),
  every list's length and the fields that name list entries
  (longformat._entry_key: a, b and query.KEY_FIELDS, compared when they
  are str or int, the only types it takes a name from) are the seed's;
- its values are taken at the positions flatten() takes them from, in its
  order, and a compiled function is kept only when it gives flatten()'s
  values on its seed;
- a string longer than TEXT_CAP (flatten() caps it) sends the report to
  flatten().

The generated source holds only names and integers made here: keys, values
and types from a report reach the function as constants in its namespace,
never as source text.
"""

import operator

from .longformat import SKIP_SECTIONS, flatten
from .query import KEY_FIELDS
from .untrusted import TEXT_CAP

# The fields longformat._entry_key takes an entry's name from.
_NAME_FIELDS = ("a", "b") + tuple(KEY_FIELDS)


# A probe report has about 1,000 members; a shape far larger (a hostile
# report's list of 100,000 tables) is left to flatten(): its function's
# source would cost more to compile than the walks it could save.
MAX_MEMBERS = 20000


class _Uncompilable(Exception):
    """A shape whose names could come from values no comparison here
    vouches for (an a or b that is neither str nor int), or one past
    MAX_MEMBERS."""


def _getter(positions):
    """A function of a list returning the items at positions, as a tuple
    even for one (itemgetter returns a bare item then)."""
    if len(positions) == 1:
        p = positions[0]
        return lambda v: (v[p],)
    return operator.itemgetter(*positions)


def _name_type(x):
    return type(x) is str or type(x) is int


class _Compiler:
    """Writes one shape's function from its seed.

    The function visits every object and list of the report (but raw) in
    document order, checks its length, and appends its keys (objects) and
    members to two flat lists; at the end it compares those with the
    seed's in two C-level comparisons (the keys; the type of every
    member, which says where None, objects and lists are) and takes
    flatten()'s values out of the members with one itemgetter.  The
    lengths make the flat comparisons exact: two objects that split one
    key list differently, or two lists one series of members, fail them.
    Entry names: the fields _entry_key may take a name from are compared
    with the seed's.  The report being some other shape raises no error
    out of the function: a missing key or member, or a member of another
    type, makes it return None."""

    def __init__(self):
        self.lines = []
        self.ns = {"_tuple": tuple, "_map": map, "_type": type,
                   "_list": list, "_len": len}
        self.n = 0
        self.keys, self.members = [], []
        self.at = {}        # id(container) -> position of its 1st member

    def const(self, value):
        name = "c%d" % len(self.ns)
        self.ns[name] = value
        return name

    def emit(self, text):
        self.lines.append("        " + text)

    def visit(self, expr, value):
        """Checks and gathers one container, then its containers."""
        self.n += 1
        v = "v%d" % self.n
        self.emit("%s = %s" % (v, expr))
        self.emit("if _len(%s) != %d: return None" % (v, len(value)))
        self.at[id(value)] = len(self.members)
        if type(value) is dict:
            self.emit("ek(%s)" % v)
            self.emit("ev(%s.values())" % v)
            self.keys += value
            members = list(value.values())
            subs = ["%s[%s]" % (v, self.const(k)) for k in value]
        else:
            self.emit("ev(%s)" % v)
            members = value
            subs = ["%s[%d]" % (v, i) for i in range(len(value))]
        self.members += members
        if len(self.members) > MAX_MEMBERS:
            raise _Uncompilable()
        if type(value) is list and any(type(x) is dict for x in members):
            self.names(subs, members)
        for sub, x in zip(subs, members):
            if type(x) is dict or type(x) is list:
                self.visit(sub, x)

    def names(self, subs, members):
        """Checks that fix the entry names _list_names gives a list's
        members (a list holding an object is named by entry)."""
        for sub, e in zip(subs, members):
            if type(e) is not dict:
                continue
            if e.get("a") is not None and e.get("b") is not None and not (
                    _name_type(e["a"]) and _name_type(e["b"])):
                raise _Uncompilable()
            for f in _NAME_FIELDS:
                x = e.get(f)
                if _name_type(x):
                    self.emit("if %s[%s] != %s: return None"
                              % (sub, self.const(f), self.const(x)))

    def order(self, value, out):
        """flatten()'s value order: every scalar but None, depth first in
        document order, as positions among the gathered members."""
        base = self.at[id(value)]
        members = value.values() if type(value) is dict else value
        for i, x in enumerate(members):
            if type(x) is dict or type(x) is list:
                self.order(x, out)
            elif x is not None:
                out.append(base + i)

    def build(self, report):
        self.emit("ek(r)")
        self.emit("ev(r.values())")
        self.keys += report
        self.members += report.values()
        self.at[id(report)] = 0
        subs = ["r[%s]" % self.const(k) for k in report]
        top = []
        for i, (k, sub, x) in enumerate(zip(report, subs,
                                            report.values())):
            if k in SKIP_SECTIONS:
                continue
            if type(x) is dict or type(x) is list:
                self.visit(sub, x)
                self.order(x, top)
            elif x is not None:
                top.append(i)
        return top

    def function(self, report):
        top = self.build(report)
        getter = self.const(_getter(top) if top else (lambda v: ()))
        src = ("def extract(r):\n"
               "    keys, members = [], []\n"
               "    ek, ev = keys.extend, members.extend\n"
               "    try:\n%s\n"
               "    except (KeyError, IndexError, TypeError, "
               "AttributeError):\n"
               "        return None\n"
               "    if keys != %s: return None\n"
               "    if _tuple(_map(_type, members)) != %s: return None\n"
               "    return _list(%s(members))\n"
               % ("\n".join(self.lines), self.const(self.keys),
                  self.const(tuple(map(type, self.members))), getter))
        exec(compile(src, "<flatshape>", "exec"), self.ns)
        return self.ns["extract"]


def compile_shape(report, keys, vals):
    """The checked function for report's shape, given flatten(report) as
    keys, vals; None when the shape cannot be compiled, or when the
    function does not give flatten()'s values on report itself."""
    try:
        fn = _Compiler().function(report)
    except _Uncompilable:
        return None
    got = fn(report)
    # The very objects flatten() took (== would let 1 stand for True).
    if got is None or len(got) != len(vals) or \
            not all(a is b for a, b in zip(got, vals)):
        return None
    strings = [i for i, v in enumerate(vals) if type(v) is str]
    return _Shape(fn, keys, _getter(strings) if strings else None)


class _Shape:
    __slots__ = ("fn", "keys", "strings")

    def __init__(self, fn, keys, strings):
        self.fn, self.keys, self.strings = fn, keys, strings

    def flatten(self, report):
        vals = self.fn(report)
        if vals is None:
            return None
        if self.strings is not None and \
                max(map(len, self.strings(vals))) > TEXT_CAP:
            return None     # flatten() caps it
        return self.keys, vals


class Shapes:
    """flatten() with the shapes of a fleet remembered (one per loading
    process).  A shape is compiled the second time its outline (the
    top-level keys and their sizes) is met, so a fleet of all-different
    reports pays for no compiling; an outline gets at most PER_OUTLINE
    compilations, and at most OUTLINES outlines are remembered (then all
    are forgotten and learnt again)."""

    PER_OUTLINE = 4
    OUTLINES = 256

    def __init__(self):
        self.shapes = {}    # outline -> [_Shape], the latest used first
        self.tries = {}     # outline -> compilations so far (0: met once)

    @staticmethod
    def outline(report):
        return tuple(report), tuple(
            len(v) if type(v) is dict or type(v) is list else -1
            for v in report.values())

    def flatten(self, report):
        """longformat.flatten(report) (no watch records): the same keys
        and values.  The key list may be shared with other reports of the
        shape: callers do not change it."""
        key = self.outline(report)
        known = self.shapes.get(key)
        if known:
            for i, shape in enumerate(known):
                out = shape.flatten(report)
                if out is not None:
                    if i:
                        known.insert(0, known.pop(i))
                    return out
        keys, vals = flatten(report)
        tries = self.tries.get(key)
        if tries is None:
            if len(self.tries) >= self.OUTLINES:
                self.tries.clear()
                self.shapes.clear()
            self.tries[key] = 0
        elif tries < self.PER_OUTLINE:
            self.tries[key] = tries + 1
            shape = compile_shape(report, keys, vals)
            if shape is not None:
                self.shapes.setdefault(key, []).insert(0, shape)
        return keys, vals


__all__ = ["Shapes", "compile_shape"]
