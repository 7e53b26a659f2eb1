"""cptools/flatshape.py: a report of a shape already seen is flattened by
its shape's checked plan, and the outcome is always
longformat.flatten()'s -- for the fixtures, for reports that differ from
their shape in one structural way (each way that could fool a flat
comparison), and for random reports and their variants (Debian's
python3-hypothesis)."""
import copy
import glob
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import FIX  # noqa: E402
from cptools import flatshape, frame, longformat  # noqa: E402
from cptools.untrusted import TEXT_CAP  # noqa: E402

try:
    from test_untrusted_properties import HealthCheck, given, settings, st
except ImportError:
    given = None


def fixtures():
    out = []
    for p in sorted(glob.glob(os.path.join(FIX, "*.json")) +
                    glob.glob(os.path.join(FIX, "*.log"))):
        found = frame.load_reports_file(p)
        out += [r for r, why, _ in found if r is not None]
    return out


def exact(out):
    """flatten()'s outcome with each value's type and repr, so that 3 and
    3.0, 1 and True, 0.0 and -0.0 differ as they do in the database."""
    keys, vals = out
    return keys, [(type(v).__name__, repr(v)) for v in vals]


def learnt(report):
    """A Shapes that has met report twice, so holds its compiled shape."""
    shapes = flatshape.Shapes()
    shapes.flatten(report)
    shapes.flatten(report)
    return shapes


class FixtureTest(unittest.TestCase):
    def test_fixtures_compile_and_match(self):
        reps = fixtures()
        self.assertGreater(len(reps), 8)
        compiled = 0
        for r in reps:
            keys, vals = longformat.flatten(r)
            shape = flatshape.compile_shape(r, keys, vals)
            if shape is None:
                continue
            compiled += 1
            self.assertEqual(exact(shape.flatten(r)), exact((keys, vals)))
        # Every fixture is a plain probe report: each compiles.
        self.assertEqual(compiled, len(reps))

    def test_shapes_give_flatten_for_a_mixed_fleet(self):
        reps = fixtures()
        shapes = flatshape.Shapes()
        for _ in range(3):
            for r in reps:
                self.assertEqual(exact(shapes.flatten(r)),
                                 exact(longformat.flatten(r)))
        self.assertTrue(shapes.shapes, "no shape was compiled")

    def test_a_known_shape_is_taken_from_the_compiled_function(self):
        r = fixtures()[0]
        shapes = learnt(r)
        other = copy.deepcopy(r)
        other["probe"]["run_id"] = "another"
        keys, vals = shapes.flatten(other)
        # The shared key list of the shape, not a new one.
        [shape] = [s for v in shapes.shapes.values() for s in v]
        self.assertIs(keys, shape.keys)
        self.assertEqual(exact((keys, vals)),
                         exact(longformat.flatten(other)))


BASE = {
    "schema": 1,
    "probe": {"version": "0.1", "run_id": "r1", "n": 3,
              "meta": {"x": 1, "y": 2}, "more": {"z": 3}},
    "sources": [{"name": "tsc", "cost": {"ns": 9.5, "bins": [1, 2, 3]}},
                {"name": "hpet", "cost": {"ns": 100.0, "bins": [4]}}],
    "platform": {"cpu": {"vendor": "x", "leaf": [1, 2]},
                 "tables": [{"signature": "APIC", "len": 10},
                            {"signature": "HPET", "len": 56}],
                 "pairs": [{"a": "hpet", "b": "pm", "ppm": 2}]},
    "raw": {"whatever": [1, {"x": 2}]},
    "top": "scalar",
}


def changed(edit):
    r = copy.deepcopy(BASE)
    edit(r)
    return r


# Each differs from BASE in one way its flatten() keys or values show, and
# each is one a compiled BASE must not take as its own.
VARIANTS = {
    "key order": lambda r: r["probe"].update(
        {"version": r["probe"].pop("version")}),
    "key added": lambda r: r["probe"].update(extra=1),
    "key removed": lambda r: r["probe"].pop("n"),
    "key renamed": lambda r: r["probe"].update(m=r["probe"].pop("n")),
    "key renamed in place": lambda r: r.update(probe={
        ("m" if k == "n" else k): v for k, v in r["probe"].items()}),
    "int to float": lambda r: r["probe"].update(n=3.0),
    "int to bool": lambda r: r["probe"].update(n=True),
    "scalar to None": lambda r: r["probe"].update(n=None),
    "scalar to object": lambda r: r["probe"].update(n={"k": 1}),
    "scalar to list": lambda r: r["probe"].update(n=[1]),
    "list longer": lambda r: r["sources"][0]["cost"]["bins"].append(9),
    "list element moved to its sibling": lambda r: r["sources"][1]["cost"][
        "bins"].insert(0, r["sources"][0]["cost"]["bins"].pop()),
    "key moved to its sibling object": lambda r: _move_key(r),
    "entry renamed": lambda r: r["sources"][1].update(name="pit"),
    "entry name a duplicate": lambda r: r["sources"][1].update(name="tsc"),
    "entry name int": lambda r: r["sources"][1].update(name=7),
    "entry name empty": lambda r: r["sources"][1].update(name=""),
    "entry name with a dot": lambda r: r["sources"][1].update(name="a.b"),
    "table signature changed": lambda r: r["platform"]["tables"][0].update(
        signature="SSDT"),
    "pair member changed": lambda r: r["platform"]["pairs"][0].update(
        b="pit"),
    "entries swapped": lambda r: r["sources"].reverse(),
    "section order": lambda r: r.update(probe=r.pop("probe")),
    "top scalar to None": lambda r: r.update(top=None),
    "string past the cap": lambda r: r["probe"].update(
        version="v" * (TEXT_CAP + 5)),
    "raw changed type": lambda r: r.update(raw=[1]),
}


def _move_key(r):
    """probe.meta's last key moves to the front of probe.more: the flat
    key list and the members stay as they were, only the two objects'
    sizes tell."""
    meta, more = r["probe"]["meta"], r["probe"]["more"]
    v = meta.pop("y")
    rest = dict(more)
    more.clear()
    more["y"] = v
    more.update(rest)


class VariantTest(unittest.TestCase):
    def test_base_compiles(self):
        keys, vals = longformat.flatten(BASE)
        self.assertIsNotNone(flatshape.compile_shape(BASE, keys, vals))

    def test_every_variant_gets_flattens_outcome(self):
        for name, edit in VARIANTS.items():
            with self.subTest(name):
                r = changed(edit)
                want = exact(longformat.flatten(r))
                if name != "raw changed type":  # raw is not flattened
                    self.assertNotEqual(want, exact(longformat.flatten(
                        BASE)), name)
                shapes = learnt(BASE)
                self.assertEqual(exact(shapes.flatten(r)), want)
                # ...and its own shape, once learnt, still is flatten's.
                shapes = learnt(r)
                self.assertEqual(exact(shapes.flatten(r)), want)
                self.assertEqual(exact(shapes.flatten(BASE)),
                                 exact(longformat.flatten(BASE)))

    def test_raw_content_changes_nothing(self):
        r = changed(lambda r: r["raw"]["whatever"].append(5))
        self.assertEqual(exact(learnt(BASE).flatten(r)),
                         exact(longformat.flatten(r)))

    def test_values_of_the_same_shape_are_the_reports_own(self):
        r = changed(lambda r: (r["probe"].update(n=4, version="0.2"),
                               r["sources"][0]["cost"].update(ns=1.25)))
        got = learnt(BASE).flatten(r)
        self.assertEqual(exact(got), exact(longformat.flatten(r)))
        self.assertIn(1.25, got[1])

    def test_report_text_that_reads_as_python_is_only_data(self):
        """Keys and strings that read as Python are compared and taken as
        values: the plan runs no code made from a report."""
        evil = '"); import os; os._exit(3) #\n\\'
        r = {"probe": {evil: evil, "n": 1},
             "sources": [{"name": evil, "x": {evil: [evil]}}]}
        fn = flatshape._Plan(r).extract
        self.assertEqual(exact((0, fn(r))),
                         exact((0, longformat.flatten(r)[1])))
        self.assertEqual(exact(learnt(r).flatten(r)),
                         exact(longformat.flatten(r)))

    def test_an_a_b_pair_of_other_types_is_left_to_flatten(self):
        r = {"pairs": [{"a": 1.5, "b": "x", "v": 1}]}
        keys, vals = longformat.flatten(r)
        self.assertIsNone(flatshape.compile_shape(r, keys, vals))
        self.assertEqual(exact(learnt(r).flatten(r)), exact((keys, vals)))

    def test_a_huge_shape_is_left_to_flatten(self):
        r = {"platform": {"tables": [{"signature": "T%d" % i, "n": i}
                                     for i in range(flatshape.MAX_MEMBERS)]}}
        keys, vals = longformat.flatten(r)
        self.assertIsNone(flatshape.compile_shape(r, keys, vals))
        self.assertEqual(exact(learnt(r).flatten(r)), exact((keys, vals)))

    def test_outlines_are_bounded(self):
        shapes = flatshape.Shapes()
        for i in range(3 * shapes.OUTLINES):
            r = {"s": list(range(i % 700)), "k%d" % i: 1}
            shapes.flatten(r)
            shapes.flatten(r)
        self.assertLessEqual(len(shapes.tries), shapes.OUTLINES)
        self.assertLessEqual(len(shapes.shapes), shapes.OUTLINES)


if given is not None:
    keys_ = st.sampled_from(["a", "b", "name", "code", "leaf", "x", "y.z",
                             "w]", "raw"])
    leaf = st.none() | st.booleans() | st.integers(-2, 2) | \
        st.sampled_from([0.5, -0.0, 1.0]) | \
        st.sampled_from(["", "tsc", "1", "x.y", "a]", "tsc"])
    tree = st.recursive(leaf, lambda kids: st.lists(kids, max_size=3) |
                        st.dictionaries(keys_, kids, max_size=4),
                        max_leaves=14)
    reports = st.dictionaries(st.sampled_from(
        ["probe", "sources", "raw", "platform", "drift", "top"]), tree,
        max_size=5)
    swap = leaf | st.lists(leaf, max_size=2) | \
        st.dictionaries(keys_, leaf, max_size=2)

    def vary(value, data):
        """value with some scalars replaced (maybe by containers or
        None), drawn from data: a shape's near neighbours."""
        if type(value) is dict:
            return {k: vary(v, data) for k, v in value.items()}
        if type(value) is list:
            return [vary(v, data) for v in value]
        if data.draw(st.integers(0, 5)) == 0:
            return data.draw(swap)
        return value

    class ShapeProperties(unittest.TestCase):
        @settings(max_examples=200, deadline=None, derandomize=True,
                  database=None,
                  suppress_health_check=[HealthCheck.too_slow,
                                         HealthCheck.data_too_large])
        @given(reports, st.data())
        def test_shapes_always_give_flatten(self, base, data):
            shapes = flatshape.Shapes()
            seq = [base, base] + [vary(base, data) for _ in range(6)]
            seq += [base] + seq[2:]
            for r in seq:
                self.assertEqual(exact(shapes.flatten(r)),
                                 exact(longformat.flatten(r)),
                                 json.dumps(r))
else:
    class ShapeProperties(unittest.TestCase):
        def test_hypothesis_installed(self):
            self.fail("python3-hypothesis is missing: run "
                      "scripts/install-deps")


if __name__ == "__main__":
    unittest.main()
