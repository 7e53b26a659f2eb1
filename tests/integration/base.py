import unittest

import probe_runs


class ProbeTest(unittest.TestCase):
    """Helpers: boot() returns a finished, verified boot or fails clearly."""

    def boot(self, name):
        b = probe_runs.get(name)
        if b.skip:
            self.skipTest(b.skip)
        if b.result is None:
            self.fail("%s: %s" % (name, b.error))
        if b.result.timed_out:
            self.fail("%s: QEMU timed out; log tail:\n%s" % (name, b.log[-2000:]))
        # A machine without the hypervisor bit is bare metal to the probe:
        # it never touches the debug-exit port and leaves by powering off.
        want = probe_runs.CONFIGS[name].get("exit_status", 33)
        self.assertEqual(b.result.exit_status, want,
                         "%s: QEMU exit status %s (%d expected); log tail:\n%s"
                         % (name, b.result.exit_status, want, b.log[-2000:]))
        self.assertIsNone(b.error, "%s: report does not verify: %s" % (name, b.error))
        return b

    def report(self, name):
        return self.boot(name).report

    def source(self, name, src):
        return probe_runs.source(self.report(name), src)
