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
