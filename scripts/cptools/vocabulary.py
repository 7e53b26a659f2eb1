"""Words a user gives the tools, checked before anything runs.

A word the tools do not understand must never pass quietly: a `--fail-on`
code with a typo would make a CI gate that never fails, a settings word the
probe refuses would boot with defaults and say so only after the run, and
`clockprobe images --settings` would bake it into every disk.  So `run`,
`matrix`, `compare`, `verdict` and `images` refuse such a word before any
boot, with exit status 2 and a message that names the word and the nearest
valid one (difflib).

The valid words are never a copy kept here.  They come from the probe's
own code through the host build of it, the verdict judge
(src/host/verdict_judge.c, cptools/kernels.py finds it):

    verdict-judge --vocabulary          warning codes (src/verdict/fixes.c),
                                        severities, settings keys and their
                                        listed values (src/lib/settings.c)
    verdict-judge --releases            the kernel releases the rules know
    verdict-judge --check-settings W..  the probe's own settings parse on
                                        each word: what it would refuse

Without the judge nothing can be checked, and that is said the same way
(exit 2): a check skipped silently is the typo that passes.
"""

import argparse
import difflib
import json
import os
import subprocess

from . import kernels, paths

EXIT_USAGE = 2


class NotUnderstood(ValueError):
    """A word the tools refuse; str() is the whole message."""


_vocab = {}


def _run_judge(args, what):
    judge = kernels.JUDGE
    if not os.path.isfile(judge):
        raise NotUnderstood("cannot check %s before running: the verdict "
                            "judge %s" % (what, paths.not_built(judge,
                                                                "unit")))
    try:
        p = subprocess.run([judge] + list(args), capture_output=True,
                           text=True, timeout=60)
        if p.returncode != 0:
            raise ValueError(p.stderr.strip() or "exit %d" % p.returncode)
        return json.loads(p.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired) as e:
        raise NotUnderstood("cannot check %s before running: %s %s: %s"
                            % (what, judge, " ".join(args[:1]), e))


def vocabulary():
    """{"warning_codes", "severities", "modes", "settings": [{name, bare,
    values}]} from the judge (cached per judge path)."""
    judge = kernels.JUDGE
    if judge not in _vocab:
        _vocab[judge] = _run_judge(["--vocabulary"], "the words given")
    return _vocab[judge]


def nearest(word, choices, fold=str.upper):
    """The valid word closest to `word` (difflib), or None with no
    choices.  Always one when there are choices: a message that names a
    candidate, even a far one, beats one that names none."""
    choices = list(choices)
    if not choices:
        return None
    folded = {fold(c): c for c in choices}
    for cutoff in (0.6, 0.0):
        m = difflib.get_close_matches(fold(word), list(folded), 1, cutoff)
        if m:
            return folded[m[0]]
    return choices[0]


# ------------------------------------------------------------- --fail-on

def check_fail_on(fail_on):
    """Refuse a --fail-on code the verdict cannot raise (policy.FailOn has
    already refused what is neither a severity nor UPPER_CASE)."""
    if fail_on is None:
        return fail_on
    v = vocabulary()
    codes, sevs = v["warning_codes"], v["severities"]
    bad = []
    for code in sorted(fail_on.codes):
        if code not in codes:
            # Codes all have an underscore; a bare word (SEVERE, CRIT) was
            # meant as a severity.
            near = nearest(code, codes if "_" in code else sevs)
            bad.append("%s is neither a warning code the verdict raises "
                       "nor a severity (%s); did you mean %s?"
                       % (code, "|".join(sevs), near))
    if bad:
        raise NotUnderstood("--fail-on %s: %s" % (fail_on.text,
                                                  "; ".join(bad)))
    return fail_on


# ------------------------------------------------------------- --kernels

def release_table():
    table = kernels.judge_release_table(kernels.JUDGE)
    if table is None:
        _run_judge(["--releases"], "the kernels given")   # says why
        raise NotUnderstood("cannot check the kernels given: %s --releases "
                            "printed no table" % kernels.JUDGE)
    return table


def check_kernels(kset, option="--kernels"):
    """Refuse a release in a KernelSet the rules do not know."""
    if kset is None or kset.word is not None:
        return kset
    table = release_table()
    bad = ["%s is not a release the rules know (%s .. %s); did you mean "
           "%s?" % (r, table.releases[0], table.releases[-1],
                    nearest(r, table.releases))
           for r in kset.named if r not in table.releases]
    if bad:
        raise NotUnderstood("%s %s: %s" % (option, kset.text, "; ".join(bad)))
    return kset


# ------------------------------------------------------------- settings

def _suggest(word, v, table):
    """The nearest word the probe takes instead of `word`."""
    key, eq, value = word.partition("=")
    keys = {k["name"]: k for k in v["settings"]}
    if not eq:      # a flag, a mode's name, or a key missing its value
        bare = [k for k in keys if keys[k]["bare"]] + v["modes"]
        if key in keys:
            vals = keys[key]["values"] or []
            return "%s=%s" % (key, vals[0] if vals else "VALUE")
        return nearest(key, bare + ["%s=" % k for k in keys
                                    if not keys[k]["bare"]], str.lower)
    if key not in keys:
        return "%s=%s" % (nearest(key, keys, str.lower), value)
    values = keys[key]["values"]
    if key == "kernel" and table is not None:
        values = table.releases
    if key == "kernels" and table is not None:
        values = ["lts", "all"] + table.releases
    if values:
        return "%s=%s" % (key, nearest(value, values, str.lower))
    return None     # a number: the probe's refusal names its range


def check_settings(words, option="--settings"):
    """Refuse the words the probe would refuse (its own parse, through
    the judge): each named with the probe's reason and the nearest word it
    takes.  Returns the words."""
    words = [w for w in words if w]
    if not words:
        return words
    what = "the %s words" % option
    v = vocabulary()
    checked = _run_judge(["--check-settings"] + words, what)
    bad = []
    table = None
    for entry in checked:
        if not entry["problems"]:
            continue
        if table is None and entry["word"].startswith("kernel"):
            table = kernels.judge_release_table(kernels.JUDGE)
        near = _suggest(entry["word"], v, table)
        bad.append("%s (the probe: %s)%s" % (
            entry["word"], "; ".join(entry["problems"]),
            ": did you mean %s?" % near if near else ""))
    if bad:
        raise NotUnderstood("%s: the probe would refuse%s" % (
            option, ":\n  " + "\n  ".join(bad) if len(bad) > 1
            else " " + bad[0]))
    return words


# ------------------------------------------------------------- argparse

def argtype(check, parse):
    """An argparse type: parse the text, then check it; a refusal is an
    argparse error (exit 2, the option named)."""
    def convert(text):
        value = parse(text)
        try:
            return check(value)
        except NotUnderstood as e:
            raise argparse.ArgumentTypeError(str(e))
    return convert


def fail_on_arg(text):
    """argparse type of --fail-on: a policy.FailOn whose codes the
    verdict can raise."""
    from . import policy
    return argtype(check_fail_on, policy.parse_fail_on)(text)


def kernels_arg(text):
    """argparse type of --kernels: a KernelSet of releases the rules
    know."""
    return argtype(check_kernels, kernels.parse_kernels)(text)
