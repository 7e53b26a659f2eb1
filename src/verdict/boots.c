/* Step zero of Linux's boot order: whether this kernel can start the guest
 * at all.  A confidential guest runs with features the kernel must
 * implement before it executes its first CPUID or touches memory: a
 * kernel without them never reaches clocksource selection, and the
 * verdict says so (verdict.boots, GUEST_CANNOT_BOOT) instead of naming a
 * clocksource.  docs/verdict-rules.md, "Guests a kernel cannot boot",
 * gives each requirement's first release and how it was established. */
#include "verdict_model.h"

static bool snp(const struct facts *f)
{
	/* Secure TSC is an SNP feature: the probe reports it only with SNP. */
	return yes(f->in->sev_snp) || yes(f->in->secure_tsc);
}

static bool tdx_applies(const struct facts *f) { return yes(f->in->tdx); }
static bool sev_es_applies(const struct facts *f) { return yes(f->in->sev_es) || snp(f); }
static bool snp_applies(const struct facts *f) { return snp(f); }
static bool secure_tsc_applies(const struct facts *f) { return yes(f->in->secure_tsc); }

/* 8c29f0165405 "x86/sev: Add SEV-SNP guest feature negotiation support":
 * mainline 6.2, and the 6.1.y stable queue ("[PATCH 6.1 306/313]",
 * 2023-01-30, "commit 8c29f016... upstream").  From it snp_check_features()
 * terminates an SNP guest whose SEV_STATUS holds a feature in
 * SNP_FEATURES_IMPL_REQ and not in SNP_FEATURES_PRESENT (GHCB_SNP_UNSUPPORTED);
 * before it the kernel runs on, "undefined ... may fail booting in a
 * non-obvious way" (its commit text). */
#define KV_SNP_NEGOTIATION KV(6, 2)
static const unsigned lts_snp_negotiation[] = { KV(6, 1), 0 };

struct boot_requirement {
	const char *id;
	const char *feature;	/* for the reason */
	const char *cite;
	unsigned since;		/* the first release that boots it */
	unsigned backported[MAX_BACKPORT_LINES];
	bool (*applies)(const struct facts *f);
	const char *why;	/* what happens on an older kernel */
};

/* Outermost first: the first one a kernel lacks is the reason. */
static const struct boot_requirement requirements[] = {
	{ "boot-tdx-guest", "TDX guest",
	  "arch/x86/coco/tdx/tdx.c tdx_early_init(), #VE handling: x86/tdx guest support, 5.19 (59bd54a84d15)",
	  KV(5, 19), { 0 }, tdx_applies,
	  "a TDX guest before 5.19: the kernel has no #VE handler, and its first CPUID or MSR access is fatal" },
	{ "boot-sev-es-guest", "SEV-ES guest",
	  "arch/x86/kernel/sev-es.c #VC handling: x86/seves guest support, 5.10",
	  KV(5, 10), { 0 }, sev_es_applies,
	  "an SEV-ES (or SNP) guest before 5.10: the kernel has no #VC handler, and its first CPUID is fatal" },
	{ "boot-sev-snp-guest", "SEV-SNP guest",
	  "arch/x86/kernel/sev.c SNP guest support (PVALIDATE, page state changes, CPUID table), 5.19",
	  KV(5, 19), { 0 }, snp_applies,
	  "an SEV-SNP guest before 5.19: the kernel cannot validate its memory (PVALIDATE) and stops" },
	{ "boot-snp-secure-tsc", "SEV-SNP Secure TSC",
	  "arch/x86/boot/compressed/sev.c snp_check_features(): SNP_FEATURES_PRESENT gained MSR_AMD64_SNP_SECURE_TSC in 6.14 (0563ee35ae2c)",
	  KV(6, 14), { 0 }, secure_tsc_applies,
	  NULL /* said per kernel: see secure_tsc_why() */ },
};

static const char *secure_tsc_why(unsigned kver)
{
	if (kernel_has(kver, KV_SNP_NEGOTIATION, lts_snp_negotiation))
		return "SEV-SNP with Secure TSC before 6.14: Secure TSC is in SNP_FEATURES_IMPL_REQ, not in "
		       "SNP_FEATURES_PRESENT, and snp_check_features() (8c29f0165405) terminates the guest at "
		       "boot (GHCB_SNP_UNSUPPORTED)";
	return "SEV-SNP with Secure TSC before the feature check (8c29f0165405, 6.2 and 6.1.y): the kernel "
	       "does not implement Secure TSC, which that commit calls undefined (\"may fail booting in a "
	       "non-obvious way\"): counted as not booting, unconfirmed";
}

static const char *release_text(unsigned kv, char *buf, size_t cap)
{
	struct strbuf sb;
	sb_init(&sb, buf, cap);
	sb_u64(&sb, kv / 100);
	sb_char(&sb, '.');
	sb_u64(&sb, kv % 100);
	return buf;
}

void judge_boot(const struct facts *f, struct model *m)
{
	static char first[ARRAY_SIZE(requirements)][8];

	m->no_boot = false;
	for (size_t i = 0; i < ARRAY_SIZE(requirements); i++) {
		const struct boot_requirement *r = &requirements[i];
		if (!r->applies(f) || kernel_has(m->kver, r->since, r->backported))
			continue;
		m->no_boot = true;
		m->boot_id = r->id;
		m->boot_feature = r->feature;
		m->boot_cite = r->cite;
		m->boot_reason = r->why ? r->why : secure_tsc_why(m->kver);
		/* every requirement that applies decides the first release */
		unsigned need = 0;
		for (size_t k = 0; k < ARRAY_SIZE(requirements); k++)
			if (requirements[k].applies(f) && requirements[k].since > need)
				need = requirements[k].since;
		m->boots_from = release_text(need, first[i], sizeof first[i]);
		/* "terminates" is the kernel's own words; "undefined" is not */
		if (str_equal(r->id, "boot-snp-secure-tsc") &&
		    !kernel_has(m->kver, KV_SNP_NEGOTIATION, lts_snp_negotiation))
			cap_confidence(m, VERDICT_CONFIDENCE_MEDIUM);
		return;
	}
}

size_t verdict_boot_requirement_count(void)
{
	return ARRAY_SIZE(requirements);
}
