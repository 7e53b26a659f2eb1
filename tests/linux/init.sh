#!/bin/busybox sh
# /init of the linux-guest initramfs (scripts/linux-guest builds the cpio).
# It boots a real Debian kernel under the QEMU configuration being checked
# and runs clockprobe-guest, the same program users run inside their own
# VMs: it watches current_clocksource settle (--settle), reads the kernel's
# clocksource history from its log, measures clock_gettime on every
# available clocksource (--switch, restoring the original) and prints the
# framed GUEST report on the serial console; then this script powers off.
# Every line the harness parses is inside that frame (CRC-checked) or
# starts with "LINUXGUEST", so kernel noise on the console cannot be
# mistaken for a result.
/bin/busybox --install -s /bin
export PATH=/bin
# /run: where clockprobe-guest --switch takes its lock, as on any real system.
mkdir -p /proc /sys /dev /tmp /run
mount -t proc proc /proc
mount -t sysfs sysfs /sys
# The shell gives a background job /dev/null as its stdin.
[ -e /dev/null ] || mknod -m 666 /dev/null c 1 3

CS=/sys/devices/system/clocksource/clocksource0

# clockprobe.settle=SECONDS on the command line: how long to watch.  The TSC
# is switched from tsc-early to tsc by the refined calibration about 1 s after
# boot, and the clocksource watchdog (every 0.5 s) needs a few rounds to mark
# a drifting TSC unstable, so the decision is not final right after init runs.
# clockprobe.killtest=1: afterwards, kill a second --switch run with SIGTERM
# in the middle of it and report whether the clocksource came back.
settle=8
killtest=0
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	clockprobe.settle=*) settle="${arg#clockprobe.settle=}" ;;
	clockprobe.killtest=1) killtest=1 ;;
	esac
done

# 150 ms per measurement: a few seconds for three clocksources under TCG.
/bin/clockprobe-guest --settle "$settle" --switch --budget-ms 150
echo "LINUXGUEST clockprobe-guest exit=$?"

if [ "$killtest" = 1 ]; then
	orig=$(cat $CS/current_clocksource)
	# Slow clocksources take the whole budget per measurement: the kill
	# lands on the second clocksource, a few seconds in.
	/bin/clockprobe-guest --switch --quiet --budget-ms 500 --samples 2000000 \
		>/tmp/killtest.out 2>/tmp/killtest.err &
	pid=$!
	# Until it has switched away from the original (at most 20 s).
	i=0
	while [ "$(cat $CS/current_clocksource)" = "$orig" ] && [ $i -lt 400 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	during=$(cat $CS/current_clocksource)
	kill -TERM "$pid"
	wait "$pid"
	status=$?
	echo "LINUXGUEST killtest original=$orig during=$during after=$(cat $CS/current_clocksource) status=$status"
	sed 's/^/LINUXGUEST killtest stderr /' /tmp/killtest.err
fi
echo "LINUXGUEST DONE"
sync
poweroff -f
# Only reached if ACPI power-off failed: sysrq 'o' powers off too, and with
# -no-reboot any panic after it ends QEMU as well.
echo o > /proc/sysrq-trigger
sleep 5
