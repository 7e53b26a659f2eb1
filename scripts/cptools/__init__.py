"""clockprobe's host-side QEMU plumbing, one job per module.

Python 3 standard library only.  The tools in scripts/ (run, matrix,
linux-guest, compare) and the tests boot the probe and read its report
through these modules, so that every one of them boots QEMU the same way
and judges a report by the same rules:

  qemu     the QEMU argv (the probe's media and a Linux guest's direct
           boot), the QEMU binary (CLOCKPROBE_QEMU=PATH), OVMF lookup, default
           images, exit statuses
  process  running an argv with a timeout, logging and killing it cleanly
  kvm      "does KVM really boot this boot path here?" (cached)
  standin  tiny boot images that print a text and exit (KVM check, tests)
  frame    finding, verifying and extracting the framed report in a log
  screen   dropping a firmware console's escape sequences from the echo
  query    the path language that addresses a field of a report
  boot     boot the probe with these options and collect its report
  matrixconf  the matrix config language: rows and expectations; the one
           machine table (tests/matrix.conf), its guest rows included
  matrixout   the matrix's results.json, JUnit, summary, TAP
  matrixmerge --merge: the shards' results.json read as untrusted input
  policy   --fail-on SEVERITY|CODE: which verdict warnings fail a pipeline
  vocabulary  the words a user gives (--fail-on codes, kernels, settings)
           checked against the probe's own lists before any boot
  runfolder   each run in a folder of its own, `latest`, run.record
  progress    k/N with rate and ETA, and a watch run's live values, on a
           terminal only
  untrusted   report strings as data: HTML/Markdown escaping, CSV
           formulas, caps
  inputs   the one loader of untrusted input: regular files only, size
           caps, JSON depth/size/count/number limits, marker digits
  fleetinput  a fleet's inputs as runs: every report of every log, run
           ids (collisions kept and flagged), watch records
  fleetlabels the runs' labels: --label, probe.label, else the file name
  fleet    the headline row of compare's fleet outputs
  longformat  the tidy long format: one row per scalar of a report
  flatshape   longformat's flatten for a report shape met before: a
           plan that checks the shape first
  fleetschema the fleet database's tables, one definition for both dialects
  fleetdb  the fleet database in SQLite (compare --sqlite)
  fleetrows   one run as those tables' rows (measurements as layouts)
  fleetpg  the same tables in PostgreSQL (compare --postgres)
  fleetload   inputs straight into a database, read by --jobs processes
  fleetpage   the fleet page (compare --html)
  charts   matplotlib SVG charts: histograms, gaps, strips
  watchchart  the watch's chart: the TSC against every clock over time
  chartpick   which sources and runs the charts draw (a cap, named)
  kernels  kernel sets (--kernels lts|all|LIST) and by_kernel ranges
  judgment a report judged over a kernel set (--fail-on, the headline)
  headline the verdict over a kernel set in one line
  fields   compare's field table: what is shown, from where, judged how
  guestjoin   a clockprobe-guest report next to the probe report of the
           same VM: pairing, predicted vs actual, findings
  guestout    the joins in compare's Markdown, long format and SQLite
  watchlog    watch-mode records in logs, verified one by one and together
  qmp      QMP: stop, cont, migrate a running VM (watch tests)
  debfetch Debian packages through the host's apt sources, unpacked
  schema   the report's JSON Schema check and its coverage of real reports
  debpkg   importing a Debian-packaged module from any python3
  paths    where the images, schema and helpers are: source tree or install
  helpfmt  one --help layout (defaults, exit statuses) for every command
  cli      the `clockprobe COMMAND` dispatcher (scripts/clockprobe)
  extract  `clockprobe extract`: the verified report out of a serial log
  images   `clockprobe images` (make images): every VM and cloud format
  guest    `clockprobe guest`: runs clockprobe-guest inside a Linux guest
  settings run --label/--kernel/--settings: where each boot reads them

scripts/cpqemu.py re-exports the public names of the plumbing (qemu,
process, standin, kvm, frame, query, boot) for older callers; the
package's own scripts and tests import cptools directly.
"""
