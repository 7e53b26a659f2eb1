"""A minimal QMP client for the test bed's fault injection: stop/cont a
running VM, migrate it to a second QEMU, query its status.

QEMU is started with `-qmp unix:PATH,server=on,wait=off`; connect() then
waits (bounded) for the socket, reads the greeting and negotiates
capabilities.  Every read has a timeout: a QEMU that dies mid-command
raises QmpError instead of hanging the test.
"""

import json
import os
import socket
import time


class QmpError(Exception):
    pass


class Qmp:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def _read_msg(self, deadline):
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise QmpError("no answer from QMP in time")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                raise QmpError("no answer from QMP in time")
            if not chunk:
                raise QmpError("QMP connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line.decode("utf-8", "replace"))

    def command(self, name, timeout=10, **args):
        """Runs one command; returns its "return" value (events skipped)."""
        msg = {"execute": name}
        if args:
            msg["arguments"] = args
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_msg(deadline)
            if "return" in reply:
                return reply["return"]
            if "error" in reply:
                raise QmpError("%s: %s" % (name, reply["error"].get("desc")))

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def connect(path, timeout=20):
    """Connects to QEMU's QMP socket at path, waiting up to timeout s."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        if os.path.exists(path):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(path)
                q = Qmp(s)
                q._read_msg(deadline)  # greeting
                q.command("qmp_capabilities")
                return q
            except (OSError, QmpError) as e:
                last = e
                s.close()
        time.sleep(0.05)
    raise QmpError("QMP socket %s not ready: %s" % (path, last))


def qmp_argv(path):
    """The QEMU arguments that open a QMP server socket at path."""
    return ["-qmp", "unix:%s,server=on,wait=off" % path]
