import os
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC = os.path.join(REPO, "tests", "integration", "host_tsc.c")
BIN = os.path.join(REPO, "build", "host", "host_tsc")


def measure_hz():
    """Host TSC Hz (best of three), or None when it cannot be measured."""
    try:
        os.makedirs(os.path.dirname(BIN), exist_ok=True)
        subprocess.run(["gcc", "-O2", "-o", BIN, SRC], check=True, capture_output=True)
        runs = [int(subprocess.run([BIN], check=True, capture_output=True, text=True).stdout)
                for _ in range(3)]
    except (OSError, subprocess.CalledProcessError, ValueError):
        return None
    return sorted(runs)[1]
