"""Imports a Python module that a Debian package provides.

scripts/install-deps installs test tools as Debian packages (python3-jsonschema,
python3-hypothesis), which land in /usr/lib/python3/dist-packages: the path of
Debian's own interpreter.  A `python3` from pyenv or a venv does not look
there, so the tests would call an installed package missing.  The Debian path
goes last on sys.path, so a module the interpreter already has still wins.
"""
import importlib
import sys

DEBIAN_DIST_PACKAGES = "/usr/lib/python3/dist-packages"


def import_debian(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        if DEBIAN_DIST_PACKAGES in sys.path:
            raise
    sys.path.append(DEBIAN_DIST_PACKAGES)
    # A folder of that name met on the path first (this repository's
    # debian/, from its root) was taken for a namespace package of it:
    # forget it, so that the package with its code is found.
    top = name.split(".")[0]
    if getattr(sys.modules.get(top), "__file__", "") is None:
        del sys.modules[top]
    return importlib.import_module(name)
