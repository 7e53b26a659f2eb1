"""longformat.flatten() for reports of a shape already seen, made cheap.

A fleet's reports come from a handful of probe versions and machine
kinds, so most of them share their shape: the same keys in the same order,
the same types, the same list lengths and list-entry names.  flatten()'s
keys depend on nothing else, and its values are the report's scalars in
document order.  For a shape met twice, Shapes reads a plan from it that
checks the shape (a length per object and list, then two flat C-level
comparisons: every key, every member's type) and takes the values out with
one itemgetter; it returns flatten()'s very key list and the values, or
None when anything differs, and flatten() does the work.  The plan works
per object and list where flatten() works per value, building a key
string for each: a fleet load of 10,000 distinct reports takes about a
sixth less CPU with it (README, the fleet database).  The plan is plain
data walked by one loop (it replaced a function generated per shape and
exec'd, which saved about 6% more and made report text a hazard to
quote into source).

Why it is exact:
- the keys are flatten()'s own for the first report of the shape (the
  seed), and a report passing every check has the same keys: its objects'
  key tuples, every value's type (so where None, objects and lists are),
  every list's length and the fields that name list entries
  (longformat._entry_key: a, b and query.KEY_FIELDS, compared when they
  are str or int, the only types it takes a name from) are the seed's;
- its values are taken at the positions flatten() takes them from, in its
  order, and a plan is kept only when it gives flatten()'s values on its
  seed;
- a string longer than TEXT_CAP (flatten() caps it) sends the report to
  flatten().
"""

import operator

from .longformat import SKIP_SECTIONS, flatten
from .query import KEY_FIELDS
from .untrusted import TEXT_CAP

# The fields longformat._entry_key takes an entry's name from.
_NAME_FIELDS = ("a", "b") + tuple(KEY_FIELDS)


# A probe report has about 1,000 members; a shape far larger (a hostile
# report's list of 100,000 tables) is left to flatten(): its plan would
# hold a copy of every key and type for walks it could hardly save.
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


class _Plan:
    """One shape, read from its seed: the checks and the positions that
    take flatten()'s values out of a report of that shape.

    extract() visits every object and list of the report (but raw) in the
    seed's document order, each one a step from a container already
    visited, checks its length, and appends its keys (objects) and
    members to two flat lists; at the end it compares those with the
    seed's in two C-level comparisons (the keys; the type of every
    member, which says where None, objects and lists are) and takes
    flatten()'s values out of the members with one itemgetter.  The
    lengths make the flat comparisons exact: two objects that split one
    key list differently, or two lists one series of members, fail them.
    Entry names: the fields _entry_key may take a name from are compared
    with the seed's.  The report being some other shape raises no error
    out of extract(): a missing key or member, or a member of another
    type, makes it return None.  Everything the plan holds is data (keys,
    indexes, values): no report text is ever run as code."""

    def __init__(self, report):
        # (container visited, key or index, length, is an object)
        self.steps = []
        # (container visited, index of an entry, field, the seed's name)
        self.names = []
        self.keys = list(report)
        self.members = list(report.values())
        self.at = {id(report): 0}   # id(container) -> its 1st member
        top = []
        for i, (k, x) in enumerate(report.items()):
            if k in SKIP_SECTIONS:
                continue
            if type(x) is dict or type(x) is list:
                self.visit(0, k, x)
                self.order(x, top)
            elif x is not None:
                top.append(i)
        self.types = tuple(map(type, self.members))
        self.getter = _getter(top) if top else (lambda v: ())
        del self.members, self.at

    def visit(self, parent, key, value):
        """Checks and gathers one container, then its containers."""
        slot = len(self.steps) + 1
        self.steps.append((parent, key, len(value), type(value) is dict))
        self.at[id(value)] = len(self.members)
        if type(value) is dict:
            self.keys += value
            members = list(value.values())
            subs = list(value)
        else:
            members = value
            subs = range(len(value))
        self.members += members
        if len(self.members) > MAX_MEMBERS:
            raise _Uncompilable()
        if type(value) is list and any(type(x) is dict for x in members):
            self.entry_names(slot, members)
        for sub, x in zip(subs, members):
            if type(x) is dict or type(x) is list:
                self.visit(slot, sub, x)

    def entry_names(self, slot, members):
        """Checks that fix the entry names _list_names gives a list's
        members (a list holding an object is named by entry)."""
        for i, e in enumerate(members):
            if type(e) is not dict:
                continue
            if e.get("a") is not None and e.get("b") is not None and not (
                    _name_type(e["a"]) and _name_type(e["b"])):
                raise _Uncompilable()
            for f in _NAME_FIELDS:
                x = e.get(f)
                if _name_type(x):
                    self.names.append((slot, i, f, x))

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

    def extract(self, r):
        """flatten(r)'s values when r has the seed's shape, else None."""
        seen = [r]
        keys, members = list(r), list(r.values())
        try:
            for parent, key, n, is_dict in self.steps:
                c = seen[parent][key]
                if len(c) != n:
                    return None
                if is_dict:
                    keys += c
                    members += c.values()
                else:
                    members += c
                seen.append(c)
            for slot, i, f, x in self.names:
                if seen[slot][i][f] != x:
                    return None
        except (KeyError, IndexError, TypeError, AttributeError):
            return None
        if keys != self.keys or tuple(map(type, members)) != self.types:
            return None
        return list(self.getter(members))


def compile_shape(report, keys, vals):
    """The checked plan for report's shape, given flatten(report) as
    keys, vals; None when the shape cannot be planned, or when the
    plan does not give flatten()'s values on report itself."""
    try:
        fn = _Plan(report).extract
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
