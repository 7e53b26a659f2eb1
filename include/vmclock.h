/* The VMClock page (Linux include/uapi/linux/vmclock-abi.h, struct
 * vmclock_abi; uapi-group specifications vmclock.md): a hypervisor-written,
 * seqcount-protected structure that tells a guest whether its counter was
 * disrupted (live migration: disruption_marker), whether it was restored
 * from a snapshot (vm_generation_counter), and optionally the counter's
 * relation to UTC/TAI with error bounds.  Pure: decoding, validation, the
 * bounded seqcount read over any memory, names and the period arithmetic
 * (src/decode/vmclock.c); the vmclock source's facts, what its hardware
 * side (src/arch/x86/sources/vmclock.c, which maps the page) learned, and their
 * JSON (src/arch/x86/sources/vmclock_facts.c). */
#ifndef CP_VMCLOCK_H
#define CP_VMCLOCK_H
#include "util.h"

#define VMCLOCK_MAGIC 0x4b4c4356u /* "VCLK" little-endian */
#define VMCLOCK_VERSION 1
/* Bytes through time_maxerror_nanosec: the structure as first published. */
#define VMCLOCK_MIN_SIZE 104u
/* Bytes through vm_generation_counter (added later under version 1,
 * announced by flag bit 8). */
#define VMCLOCK_ABI_SIZE 112u

/* Field offsets (all little-endian, packed as the header lays them out). */
#define VMCLOCK_OFF_MAGIC 0
#define VMCLOCK_OFF_SIZE 4
#define VMCLOCK_OFF_VERSION 8
#define VMCLOCK_OFF_COUNTER_ID 10
#define VMCLOCK_OFF_TIME_TYPE 11
#define VMCLOCK_OFF_SEQ_COUNT 12
#define VMCLOCK_OFF_DISRUPTION_MARKER 16
#define VMCLOCK_OFF_FLAGS 24
#define VMCLOCK_OFF_CLOCK_STATUS 34
#define VMCLOCK_OFF_SMEARING_HINT 35
#define VMCLOCK_OFF_TAI_OFFSET 36
#define VMCLOCK_OFF_LEAP_INDICATOR 38
#define VMCLOCK_OFF_PERIOD_SHIFT 39
#define VMCLOCK_OFF_COUNTER_VALUE 40
#define VMCLOCK_OFF_PERIOD_FRAC 48
#define VMCLOCK_OFF_PERIOD_ESTERROR 56
#define VMCLOCK_OFF_PERIOD_MAXERROR 64
#define VMCLOCK_OFF_TIME_SEC 72
#define VMCLOCK_OFF_TIME_FRAC 80
#define VMCLOCK_OFF_TIME_ESTERROR 88
#define VMCLOCK_OFF_TIME_MAXERROR 96
#define VMCLOCK_OFF_VM_GENERATION 104

#define VMCLOCK_COUNTER_ARM_VCNT 0
#define VMCLOCK_COUNTER_X86_TSC 1
#define VMCLOCK_COUNTER_INVALID 0xff

#define VMCLOCK_FLAG_TAI_OFFSET_VALID (1u << 0)
#define VMCLOCK_FLAG_DISRUPTION_SOON (1u << 1)
#define VMCLOCK_FLAG_DISRUPTION_IMMINENT (1u << 2)
#define VMCLOCK_FLAG_PERIOD_ESTERROR_VALID (1u << 3)
#define VMCLOCK_FLAG_PERIOD_MAXERROR_VALID (1u << 4)
#define VMCLOCK_FLAG_TIME_ESTERROR_VALID (1u << 5)
#define VMCLOCK_FLAG_TIME_MAXERROR_VALID (1u << 6)
#define VMCLOCK_FLAG_TIME_MONOTONIC (1u << 7)
#define VMCLOCK_FLAG_VM_GEN_COUNTER_PRESENT (1u << 8)
#define VMCLOCK_FLAG_COUNT 9

/* Every field of the page, decoded. */
struct vmclock_page {
	uint32_t magic, size;
	uint16_t version;
	uint8_t counter_id, time_type;
	uint32_t seq_count;
	uint64_t disruption_marker;
	uint64_t flags;
	uint8_t clock_status, leap_second_smearing_hint;
	int16_t tai_offset_sec;
	uint8_t leap_indicator, counter_period_shift;
	uint64_t counter_value;
	uint64_t counter_period_frac_sec;       /* units of 2^-(64 + shift) s */
	uint64_t counter_period_esterror_rate_frac_sec;
	uint64_t counter_period_maxerror_rate_frac_sec;
	uint64_t time_sec, time_frac_sec;       /* time_frac in units of 2^-64 s */
	uint64_t time_esterror_nanosec, time_maxerror_nanosec;
	uint64_t vm_generation_counter;         /* 0 when size < VMCLOCK_ABI_SIZE */
};

/* Decodes the fields from n bytes (n >= VMCLOCK_MIN_SIZE; the generation
 * counter only when n >= VMCLOCK_ABI_SIZE). */
void vmclock_decode(struct vmclock_page *out, const uint8_t *b, size_t n);

enum vmclock_check {
	VMCLOCK_OK,
	VMCLOCK_BAD_MAGIC,
	VMCLOCK_BAD_VERSION,
	VMCLOCK_BAD_SIZE,   /* size below the structure, or beyond the range the firmware reserved */
	VMCLOCK_BUSY,       /* seq_count odd or changing through every retry */
};
const char *vmclock_check_name(enum vmclock_check c);

/* Validates the constant fields against the range the firmware declared
 * (the _CRS length).  On failure why receives the reason ("magic
 * 0x12345678, not VCLK", ...). */
enum vmclock_check vmclock_validate(const struct vmclock_page *p, uint64_t region_len, char *why, size_t cap);

/* The read protocol (vmclock-abi.h, as Linux ptp_vmclock reads it): read
 * seq_count; if odd, retry; copy the fields; re-read seq_count; retry if it
 * changed.  At most max_tries attempts; *retries counts the failed ones.
 * page must hold at least VMCLOCK_ABI_SIZE readable bytes when size says
 * so (the caller validated size against the mapping), else
 * VMCLOCK_MIN_SIZE. */
enum vmclock_check vmclock_snapshot(const volatile uint8_t *page, size_t readable, struct vmclock_page *out,
				    uint32_t max_tries, uint32_t *retries);

/* Names for the report ("x86_tsc", "synchronized", ...); "undefined" for
 * values the header does not define. */
const char *vmclock_counter_name(uint8_t id);
const char *vmclock_time_type_name(uint8_t t);
const char *vmclock_status_name(uint8_t s);
const char *vmclock_leap_name(uint8_t l);
const char *vmclock_smearing_name(uint8_t h);
/* Name of flag bit i (0..VMCLOCK_FLAG_COUNT-1), NULL beyond. */
const char *vmclock_flag_name(unsigned bit);

/* The counter's rate the page advertises: 2^(64 + shift) / period, in Hz
 * (rounded down); 0 when period is 0 or the quotient does not fit. */
uint64_t vmclock_counter_hz(uint64_t period_frac_sec, uint8_t shift);

/* What the vmclock source learned (its member of union source_facts),
 * filled by its collect hook; all zero for a run that never prepared it. */
struct vmclock_facts {
	/* prepare's outcome, for the report's vmclock section: "ok",
	 * "absent", "error"; NULL when never examined. */
	const char *status;
	char reason[REASON_LEN];   /* why absent or in error; "" when ok */
	bool page_read;            /* a snapshot passed the seqcount */
	uint64_t address, length;  /* the _CRS range */
	const char *address_basis; /* which firmware map set it aside */
	int check;                 /* enum vmclock_check of the page */
	struct vmclock_page page;
	uint32_t snapshot_retries; /* failed seqcount tries taking it */
	uint32_t read_retries;     /* failed tries during the measured reads */
	uint32_t busy_reads;       /* measured reads that gave up on the seqcount */
	uint64_t counter_hz;       /* the advertised counter period as a rate, 0 when none */
};

struct json;
union source_facts;
/* vmclock_facts.c: the report's top-level "vmclock" section (in every
 * report: status absent, "not examined", when the source was never
 * prepared), every page field decoded and the advertised counter period
 * against tsc_hz, the TSC rate this run converts at. */
void vmclock_report_section(struct json *j, const union source_facts *f, uint64_t tsc_hz);
#endif
