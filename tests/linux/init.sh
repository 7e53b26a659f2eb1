#!/bin/busybox sh
# /init of the linux-guest initramfs (scripts/linux-guest builds the cpio).
# It boots a real Debian kernel under the QEMU configuration being checked,
# waits until Linux's clocksource decisions have settled, reports them on the
# serial console and powers off.  Every line the harness parses starts with
# "LINUXGUEST" or "CLOCKSOURCE " so kernel noise on the console cannot be
# mistaken for a result.
/bin/busybox --install -s /bin
export PATH=/bin
mkdir -p /proc /sys /dev /tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys

CS=/sys/devices/system/clocksource/clocksource0

# clockprobe.settle=SECONDS on the command line: how long to watch.  The TSC
# is switched from tsc-early to tsc by the refined calibration about 1 s after
# boot, and the clocksource watchdog (every 0.5 s) needs a few rounds to mark
# a drifting TSC unstable, so the decision is not final right after init runs.
settle=8
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	clockprobe.settle=*) settle="${arg#clockprobe.settle=}" ;;
	esac
done

echo "LINUXGUEST uname=$(uname -r) cpus_online=$(cat /sys/devices/system/cpu/online) cpus_possible=$(cat /sys/devices/system/cpu/possible)"
echo "LINUXGUEST cmdline=$(cat /proc/cmdline)"

# Report every change of the current clocksource with the guest's uptime, so
# the time Linux needs to settle can be read from the log.
last=""
ticks=$((settle * 4))
i=0
while [ "$i" -le "$ticks" ]; do
	cur=$(cat $CS/current_clocksource)
	if [ "$cur" != "$last" ]; then
		echo "LINUXGUEST change uptime=$(cut -d' ' -f1 /proc/uptime) current=$cur"
		last="$cur"
	fi
	i=$((i + 1))
	sleep 0.25
done

echo "LINUXGUEST uptime=$(cut -d' ' -f1 /proc/uptime)"
echo "CLOCKSOURCE current=$(cat $CS/current_clocksource) available=$(cat $CS/available_clocksource)"
echo "LINUXGUEST DMESG BEGIN"
dmesg | grep -iE 'tsc|clocksource|hpet|acpi_pm|kvm-clock|kvmclock|watchdog|clock:' | sed 's/^/LINUXGUEST dmesg /'
echo "LINUXGUEST DMESG END"
echo "LINUXGUEST DONE"
sync
poweroff -f
# Only reached if ACPI power-off failed: sysrq 'o' powers off too, and with
# -no-reboot any panic after it ends QEMU as well.
echo o > /proc/sysrq-trigger
sleep 5
