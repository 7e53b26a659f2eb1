"""Shared set-up for the host tool tests: paths, and importing the
extension-less scripts (scripts/matrix, scripts/compare) as modules."""
import importlib.machinery
import importlib.util
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(REPO, "scripts")
FIX = os.path.join(REPO, "tests", "fixtures", "reports")
sys.dont_write_bytecode = True  # keep scripts/ free of __pycache__
sys.path.insert(0, SCRIPTS)


def load_script(name):
    """Import scripts/<name> (no .py suffix) as a module."""
    path = os.path.join(SCRIPTS, name)
    loader = importlib.machinery.SourceFileLoader("cp_" + name, path)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod
