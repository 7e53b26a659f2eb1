/* Recorded costs (cycles) from design.md / clock-abi-facts.md and the
 * task's reference numbers; boundaries worked out by hand:
 *   TCG: sqrt(26 * 40) = 32.2,  sqrt(40 * 150) = 77.5
 *   KVM: sqrt(20 * 1200) = 154.9, sqrt(1200 * 4500) = 2323.8 */
#include "check.h"
#include "readpath.h"

static const struct read_path_baselines tcg = {
	.harness = 26, .rdtsc = 26, .cpuid = 40, .port = 150,
};
static const struct read_path_baselines kvm = {
	.harness = 40, .rdtsc = 20, .cpuid = 1200, .port = 4500,
};

TEST(readpath_names)
{
	CHECK_STR(read_path_name(READ_PATH_NATIVE), "native");
	CHECK_STR(read_path_name(READ_PATH_EXIT), "exit");
	CHECK_STR(read_path_name(READ_PATH_DEVICE_MODEL), "device_model");
	CHECK_STR(read_path_name(READ_PATH_UNKNOWN), "unknown");
	CHECK_STR(read_path_name((enum read_path)42), "unknown");
}

TEST(readpath_tcg)
{
	CHECK(read_path_baselines_usable(&tcg));
	CHECK_EQ_U64(read_path_classify(26, &tcg), READ_PATH_NATIVE);  /* tsc */
	CHECK_EQ_U64(read_path_classify(32, &tcg), READ_PATH_NATIVE);  /* 1024 < 1040 */
	CHECK_EQ_U64(read_path_classify(33, &tcg), READ_PATH_EXIT);    /* 1089 */
	CHECK_EQ_U64(read_path_classify(40, &tcg), READ_PATH_EXIT);    /* cpuid */
	CHECK_EQ_U64(read_path_classify(77, &tcg), READ_PATH_EXIT);    /* 5929 < 6000 */
	CHECK_EQ_U64(read_path_classify(78, &tcg), READ_PATH_DEVICE_MODEL);
	CHECK_EQ_U64(read_path_classify(170, &tcg), READ_PATH_DEVICE_MODEL); /* pm */
	CHECK_EQ_U64(read_path_classify(400, &tcg), READ_PATH_DEVICE_MODEL); /* hpet */
}

TEST(readpath_kvm)
{
	CHECK(read_path_baselines_usable(&kvm));
	CHECK_EQ_U64(read_path_classify(20, &kvm), READ_PATH_NATIVE);   /* tsc */
	CHECK_EQ_U64(read_path_classify(40, &kvm), READ_PATH_NATIVE);   /* pvclock */
	CHECK_EQ_U64(read_path_classify(154, &kvm), READ_PATH_NATIVE);  /* 23716 < 24000 */
	CHECK_EQ_U64(read_path_classify(155, &kvm), READ_PATH_EXIT);    /* 24025 */
	CHECK_EQ_U64(read_path_classify(1100, &kvm), READ_PATH_EXIT);   /* MSR read */
	CHECK_EQ_U64(read_path_classify(2323, &kvm), READ_PATH_EXIT);   /* < 5.4e6 */
	CHECK_EQ_U64(read_path_classify(2324, &kvm), READ_PATH_DEVICE_MODEL);
	CHECK_EQ_U64(read_path_classify(5000, &kvm), READ_PATH_DEVICE_MODEL); /* hpet */
	CHECK_EQ_U64(read_path_classify(0, &kvm), READ_PATH_NATIVE);
	CHECK_EQ_U64(read_path_classify(UINT64_MAX, &kvm),
		     READ_PATH_DEVICE_MODEL);
}

TEST(readpath_icount_is_unknown)
{
	/* -icount shift=0: every cost is a handful of instructions */
	struct read_path_baselines icount = {
		.harness = 3, .rdtsc = 3, .cpuid = 4, .port = 4,
	};

	CHECK(!read_path_baselines_usable(&icount));
	CHECK_EQ_U64(read_path_classify(3, &icount), READ_PATH_UNKNOWN);
	CHECK_EQ_U64(read_path_classify(4, &icount), READ_PATH_UNKNOWN);
	/* ordered, 25 % apart, but all within twice the harness: 5 < 6 */
	icount.rdtsc = 1;
	icount.cpuid = 3;
	icount.port = 5;
	CHECK(!read_path_baselines_usable(&icount));
	CHECK_EQ_U64(read_path_classify(5, &icount), READ_PATH_UNKNOWN);
}

TEST(readpath_degenerate_orders)
{
	struct read_path_baselines b = kvm;

	b.port = b.cpuid;		/* port <= cpuid */
	CHECK_EQ_U64(read_path_classify(5000, &b), READ_PATH_UNKNOWN);
	b.port = 1500;			/* exactly 25 % above: not clear */
	CHECK_EQ_U64(read_path_classify(5000, &b), READ_PATH_UNKNOWN);
	b.port = 1501;
	CHECK_EQ_U64(read_path_classify(5000, &b), READ_PATH_DEVICE_MODEL);
	b = kvm;
	/* cpuid not clearly above rdtsc while the port is: no exits exist
	 * (emulation), so only native vs device_model, split at
	 * sqrt(20 * 4500) = 300 */
	b.cpuid = 25;
	CHECK(read_path_emulated(&b));
	CHECK_EQ_U64(read_path_classify(20, &b), READ_PATH_NATIVE);
	CHECK_EQ_U64(read_path_classify(300, &b), READ_PATH_DEVICE_MODEL);
	b.cpuid = 10;
	CHECK_EQ_U64(read_path_classify(299, &b), READ_PATH_NATIVE);
	b.port = 24;			/* port not clearly above rdtsc either */
	CHECK(!read_path_emulated(&b));
	CHECK_EQ_U64(read_path_classify(20, &b), READ_PATH_UNKNOWN);
}

TEST(readpath_zero_rdtsc_floor)
{
	/* rdtsc net cost 0 after harness subtraction: treated as 1 cycle,
	 * native band below sqrt(1 * 1200) = 34.6 */
	struct read_path_baselines b = kvm;

	b.rdtsc = 0;
	CHECK(read_path_baselines_usable(&b));
	CHECK_EQ_U64(read_path_classify(34, &b), READ_PATH_NATIVE);
	CHECK_EQ_U64(read_path_classify(35, &b), READ_PATH_EXIT);
}

/* Measured on QEMU 7.2 TCG under OVMF (raw batch means per call, loop and
 * call overhead included): harness 21, rdtsc 35.5, cpuid 37.6, port 0xed
 * 91, acpi_pm 161, hpet 227.  CPUID is no dearer than RDTSC: emulation, no
 * exits; split at sqrt(35 * 91) = 56.4. */
static const struct read_path_baselines tcg_measured = {
	.harness = 21, .rdtsc = 35, .cpuid = 37, .port = 91,
};

TEST(readpath_emulated_two_way)
{
	CHECK(read_path_emulated(&tcg_measured));
	CHECK(!read_path_baselines_usable(&tcg_measured));
	CHECK_EQ_U64(read_path_classify(35, &tcg_measured), READ_PATH_NATIVE);
	CHECK_EQ_U64(read_path_classify(56, &tcg_measured), READ_PATH_NATIVE);  /* 3136 < 3185 */
	CHECK_EQ_U64(read_path_classify(57, &tcg_measured), READ_PATH_DEVICE_MODEL); /* 3249 */
	CHECK_EQ_U64(read_path_classify(161, &tcg_measured), READ_PATH_DEVICE_MODEL);
	CHECK_EQ_U64(read_path_classify(227, &tcg_measured), READ_PATH_DEVICE_MODEL);
}

/* Recorded on this project's nested KVM (direct boot): every yardstick is
 * an exit, RDTSC included (harness ~36,000 ticks at 2.45 GHz). */
static const struct read_path_baselines nested = {
	.harness = 16240, .rdtsc = 29426, .cpuid = 29213, .kernel_port = 20456, .port = 42719,
	.rdtsc_traps = true,
};

TEST(readpath_hardware_without_hypervisor)
{
	struct read_path_baselines b = tcg;
	char basis[200];

	b.no_hypervisor = true;
	b.cpuid_cheap = true;
	b.port_fits_hardware = true;
	/* Costs that fit hardware, nothing to exit to: hardware, whatever the
	 * source's own cost (an HPET read is ~1 us on some chipsets). */
	CHECK_EQ_U64(read_path_judge(&b, 400, false, basis, sizeof basis), READ_PATH_HARDWARE);
	CHECK_EQ_U64(read_path_judge(&b, 26, true, basis, sizeof basis), READ_PATH_HARDWARE);
	CHECK(strstr(basis, "no hypervisor") != NULL);
	CHECK_STR(read_path_name(READ_PATH_HARDWARE), "hardware");
	/* A hidden hypervisor: CPUID exits (not cheap): unknown, not hardware. */
	b.cpuid_cheap = false;
	CHECK_EQ_U64(read_path_judge(&b, 4000, false, basis, sizeof basis), READ_PATH_UNKNOWN);
	CHECK(strstr(basis, "hidden hypervisor") != NULL);
	/* An emulator with the bit cleared (TCG -cpu qemu64,-hypervisor): the
	 * port answers in tens of ns: unknown. */
	b.cpuid_cheap = true;
	b.port_fits_hardware = false;
	CHECK_EQ_U64(read_path_judge(&b, 400, false, basis, sizeof basis), READ_PATH_UNKNOWN);
	CHECK(strstr(basis, "emulator") != NULL);
	/* 300 ns at 2 GHz is 600 cycles. */
	CHECK(port_read_fits_hardware(600, 2000000000ull));
	CHECK(!port_read_fits_hardware(599, 2000000000ull));
}

TEST(readpath_trapping_rdtsc)
{
	char basis[200];

	/* Reads that execute RDTSC exit, however cheap they look. */
	CHECK_EQ_U64(read_path_judge(&nested, 5995, true, basis, sizeof basis), READ_PATH_EXIT);
	CHECK(strstr(basis, "traps") != NULL);
	/* Others: exit/device_model at sqrt(cpuid * port) = 35,326 (the
	 * kernel port is not between CPUID and the port here). */
	CHECK_EQ_U64(read_path_judge(&nested, 35000, false, basis, sizeof basis), READ_PATH_EXIT);
	CHECK_EQ_U64(read_path_judge(&nested, 42680, false, basis, sizeof basis), READ_PATH_DEVICE_MODEL);
	CHECK(strstr(basis, "sqrt(cpuid*port)") != NULL);
}

TEST(readpath_kernel_port_splits_exit_from_device_model)
{
	/* KVM with the irqchip in the kernel: ELCR ~2,000, unassigned port
	 * 4,500 -> boundary sqrt(2000 * 4500) = 3,000 instead of 2,324. */
	struct read_path_baselines b = kvm;
	char basis[200];

	b.kernel_port = 2000;
	CHECK_EQ_U64(read_path_judge(&b, 2900, false, basis, sizeof basis), READ_PATH_EXIT);
	CHECK_EQ_U64(read_path_judge(&b, 3001, false, basis, sizeof basis), READ_PATH_DEVICE_MODEL);
	CHECK(strstr(basis, "kernel_port") != NULL);
	/* Without it, 2,900 is past sqrt(cpuid * port). */
	CHECK_EQ_U64(read_path_classify(2900, &kvm), READ_PATH_DEVICE_MODEL);
}

TEST(readpath_spread_overlap_is_unknown)
{
	/* KVM bands, 10 % spreads: the native/exit boundary 154.9 becomes
	 * [140.8, 170.4]; inside it no label is claimed. */
	struct read_path_baselines b = kvm;

	b.rdtsc_spread = 100;
	b.cpuid_spread = 100;
	CHECK_EQ_U64(read_path_classify(140, &b), READ_PATH_NATIVE);
	CHECK_EQ_U64(read_path_classify(141, &b), READ_PATH_UNKNOWN);
	CHECK_EQ_U64(read_path_classify(170, &b), READ_PATH_UNKNOWN);
	CHECK_EQ_U64(read_path_classify(171, &b), READ_PATH_EXIT);
}

TEST(harness_anomaly_rules)
{
	/* TCG: harness 98 ticks at 2.45 GHz (40 ns), CPUID 25 net but no exit
	 * (10 ns): dearer than CPUID, and still sane. */
	CHECK(harness_anomaly(98, 25, 2445000000ull, false) == NULL);
	/* Nested KVM: 35,794 ticks = 14.6 us. */
	CHECK(harness_anomaly(35794, 12078, 2445000000ull, true) != NULL);
	/* Dearer than a CPUID exit where CPUID exits, even if quick. */
	CHECK(harness_anomaly(2400, 1200, 0, true) != NULL);
	CHECK(harness_anomaly(60, 1200, 3000000000ull, true) == NULL);
	/* Exactly 1 us at 1 GHz is already too slow for any RDTSC. */
	CHECK(harness_anomaly(1000, 0, 1000000000ull, true) != NULL);
	CHECK(harness_anomaly(999, 0, 1000000000ull, true) == NULL);
}

TEST(readpath_cheap_cpuid_means_emulation)
{
	/* 100 ns at 2.45 GHz is 244.5 ticks: TCG's CPUID (25) is far below,
	 * a real exit (1,200 on KVM at 3 GHz = 400 ns) far above. */
	CHECK(cpuid_is_cheap(25, 2445000000ull));
	CHECK(cpuid_is_cheap(244, 2445000000ull));
	CHECK(!cpuid_is_cheap(245, 2445000000ull));
	CHECK(!cpuid_is_cheap(1200, 3000000000ull));
	CHECK(!cpuid_is_cheap(1, 0));
	/* TCG with CPUID clearly dearer than RDTSC in this run: still two-way,
	 * split at sqrt(26 * 150) = 62.4, instead of exit bands that do not
	 * exist under emulation. */
	struct read_path_baselines b = tcg;
	CHECK_EQ_U64(read_path_classify(40, &b), READ_PATH_EXIT);
	b.cpuid_cheap = true;
	CHECK(read_path_emulated(&b));
	CHECK_EQ_U64(read_path_classify(40, &b), READ_PATH_NATIVE);
	CHECK_EQ_U64(read_path_classify(62, &b), READ_PATH_NATIVE);
	CHECK_EQ_U64(read_path_classify(63, &b), READ_PATH_DEVICE_MODEL);
}

/* Recorded on the nested KVM of the PVM kind (2-core AMD EPYC, 2.596 GHz):
 * 1000 iterations of the 3-instruction reference loop in 5,319,860 ticks;
 * tsc read 69,756 ticks, CPUID 66,476, unassigned port 147,368.  QEMU TCG
 * on the same host: 3,666 ticks for the loop. */
TEST(readpath_emulated_vcpu)
{
	CHECK_EQ_U64(ref_loop_insn_ps(5319860, 3000, 2596000000ull), 683084);
	CHECK(vcpu_emulated(683084));
	CHECK_EQ_U64(ref_loop_insn_ps(3666, 3000, 2596000000ull), 470);
	CHECK(!vcpu_emulated(470));
	CHECK(!vcpu_emulated(VCPU_EMULATED_INSN_PS - 1) && vcpu_emulated(VCPU_EMULATED_INSN_PS));
	CHECK_EQ_U64(ref_loop_insn_ps(0, 3000, 2596000000ull), 0);
	CHECK_EQ_U64(ref_loop_insn_ps(5319860, 0, 2596000000ull), 0);
	CHECK_EQ_U64(ref_loop_insn_ps(UINT64_MAX, 3000, 2596000000ull), 0);

	struct read_path_baselines pvm = {
		.harness = 44407, .rdtsc = 69756, .cpuid = 66476, .port = 147368, .kernel_port = 46141,
		.rdtsc_traps = true, .all_emulated = true, .insn_ticks_milli = 1773286,
	};
	char basis[256];
	CHECK_EQ_U64(read_path_judge(&pvm, 69756, true, basis, sizeof basis), READ_PATH_EMULATED);
	CHECK(strstr(basis, "emulates every instruction") && strstr(basis, "no exit of its own"));
	CHECK_STR(read_path_name(READ_PATH_EMULATED), "emulated");
	/* Dearer than twice CPUID there: an exit on top of the emulation. */
	pvm.rdtsc = 140000;
	CHECK_EQ_U64(read_path_judge(&pvm, 140000, true, basis, sizeof basis), READ_PATH_EXIT);
	CHECK(strstr(basis, "exits on top of the emulation"));
	/* A read that does not execute RDTSC is split exit / device_model as
	 * under a trapping RDTSC. */
	CHECK_EQ_U64(read_path_judge(&pvm, 300000, false, basis, sizeof basis), READ_PATH_DEVICE_MODEL);
}
