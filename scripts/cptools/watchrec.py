"""Watch records in a serial log (the probe's watch mode), for the fleet
database's time series.

After its report a watching probe writes one framed record per interval:

    ==== CLOCKPROBE WATCH BEGIN schema=1 seq=<n> ====
    <one-line JSON: seq, run_id, elapsed_tsc_s, elapsed_rtc_s, ...>
    ==== CLOCKPROBE WATCH END crc32=<hex> bytes=<N> ====

with the CRC-32 and byte count of the JSON line as for the report.  Each
record is verified on its own: a damaged one is named and skipped, the
others are kept.  Only the frame and the fields above are relied on; the
rest of a record is loaded as it is (long format).
"""

from .watchlog import scan


def extract_watch_records(text):
    """([(seq, record)], [(seq, reason)]) for every watch record in a log.

    The frames are found and verified by watchlog.scan, the same reader
    scripts/watch uses, so the fleet database and the watch report can
    never disagree on which records are sound."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if "CLOCKPROBE WATCH BEGIN" not in text:
        return [], []
    good, bad = [], []
    for entry in scan(text):
        if entry["record"] is not None:
            good.append((entry["seq"], entry["record"]))
        else:
            bad.append((entry["seq"], entry["error"]))
    return good, bad
