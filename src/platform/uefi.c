/* UEFI implementation of the platform layer (gnu-efi).  All firmware calls
 * of the probe live in this file. */
#include <efi.h>
#include <efilib.h>
#include "platform.h"
#include "memmap.h"
#include "strbuf.h"
#include "probe.h"
#include "arch_api.h"

/* PI MP Services protocol: gnu-efi 3.0.15 does not define it. */
#define MP_SERVICES_GUID \
	{ 0x3fdda605, 0xa76e, 0x4f46, { 0xad, 0x29, 0x12, 0xf4, 0x53, 0x1b, 0x3d, 0x08 } }

typedef struct {
	UINT32 Package, Core, Thread;
} CPU_LOCATION;

typedef struct {
	UINT64 ProcessorId;
	UINT32 StatusFlag; /* bit0 BSP, bit1 enabled, bit2 healthy */
	CPU_LOCATION Location;
	/* ExtendedInformation follows in newer PI versions; with bit 24 of the
	 * processor number clear, firmware fills only the part above. */
	UINT8 Extended[24];
} PROCESSOR_INFORMATION;

typedef VOID(EFIAPI *AP_PROCEDURE)(VOID *Arg);
struct mp_services;
typedef struct mp_services {
	EFI_STATUS(EFIAPI *GetNumberOfProcessors)(struct mp_services *, UINTN *, UINTN *);
	EFI_STATUS(EFIAPI *GetProcessorInfo)(struct mp_services *, UINTN, PROCESSOR_INFORMATION *);
	EFI_STATUS(EFIAPI *StartupAllAPs)(struct mp_services *, AP_PROCEDURE, BOOLEAN, EFI_EVENT, UINTN, VOID *, UINTN **);
	EFI_STATUS(EFIAPI *StartupThisAP)(struct mp_services *, AP_PROCEDURE, UINTN, EFI_EVENT, UINTN, VOID *, BOOLEAN *);
	EFI_STATUS(EFIAPI *SwitchBSP)(struct mp_services *, UINTN, BOOLEAN);
	EFI_STATUS(EFIAPI *EnableDisableAP)(struct mp_services *, UINTN, BOOLEAN, UINT32 *);
	EFI_STATUS(EFIAPI *WhoAmI)(struct mp_services *, UINTN *);
} MP_SERVICES;

static EFI_HANDLE image;
static struct platform plat;
static struct mp_services *mp;
static EFI_FILE_HANDLE boot_volume;
/* Per AP, so starting the next one cannot change what a late one runs. */
static struct ap_job {
	ap_work_fn fn;
	void *arg;
} ap_jobs[PLATFORM_MAX_CPUS];

static bool guid_equal(const EFI_GUID *a, const EFI_GUID *b)
{
	return mem_equal(a, b, sizeof *a);
}

static void *config_table(EFI_GUID guid)
{
	for (UINTN i = 0; i < ST->NumberOfTableEntries; i++)
		if (guid_equal(&ST->ConfigurationTable[i].VendorGuid, &guid))
			return ST->ConfigurationTable[i].VendorTable;
	return NULL;
}

static void uefi_screen_write(const char *text)
{
	CHAR16 chunk[128];
	size_t n = 0;
	for (; *text; text++) {
		if (*text == '\n')
			chunk[n++] = L'\r';
		chunk[n++] = (CHAR16)(unsigned char)*text;
		if (n >= ARRAY_SIZE(chunk) - 2) {
			chunk[n] = 0;
			uefi_call_wrapper(ST->ConOut->OutputString, 2, ST->ConOut, chunk);
			n = 0;
		}
	}
	chunk[n] = 0;
	if (n)
		uefi_call_wrapper(ST->ConOut->OutputString, 2, ST->ConOut, chunk);
}

static void *uefi_alloc_pages(size_t bytes)
{
	EFI_PHYSICAL_ADDRESS addr = 0;
	UINTN pages = (bytes + 4095) / 4096;
	if (uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, EfiLoaderData, pages, &addr) != EFI_SUCCESS)
		return NULL;
	memset((void *)(uintptr_t)addr, 0, pages * 4096);
	return (void *)(uintptr_t)addr;
}

static unsigned uefi_cpu_list(struct platform_cpu *cpus, unsigned cap)
{
	UINTN total = 0, enabled = 0;
	if (!mp || uefi_call_wrapper(mp->GetNumberOfProcessors, 3, mp, &total, &enabled) != EFI_SUCCESS)
		return 0;
	for (UINTN i = 0; i < total && i < cap; i++) {
		PROCESSOR_INFORMATION info;
		memset(&info, 0, sizeof info);
		if (uefi_call_wrapper(mp->GetProcessorInfo, 3, mp, i, &info) != EFI_SUCCESS)
			continue;
		cpus[i].apic_id = (uint32_t)info.ProcessorId;
		cpus[i].package = info.Location.Package;
		cpus[i].core = info.Location.Core;
		cpus[i].thread = info.Location.Thread;
		cpus[i].bsp = info.StatusFlag & 1;
		cpus[i].enabled = info.StatusFlag & 2;
		cpus[i].healthy = info.StatusFlag & 4;
	}
	return (unsigned)total;
}

/* MP services calls AP procedures with the Microsoft x64 convention. */
static VOID EFIAPI ap_trampoline(VOID *job)
{
	struct ap_job *j = job;
	j->fn(j->arg);
}

/* One completion event per started AP: OVMF signals them from a ~50 ms
 * poll, so the core tracks completion through shared memory and only the
 * final aps_wait looks at the events. */
static EFI_EVENT ap_events[PLATFORM_MAX_CPUS];
static unsigned ap_event_count;

static int uefi_ap_start(unsigned cpu, ap_work_fn fn, void *arg, uint64_t timeout_us)
{
	EFI_EVENT ev;
	if (!mp || ap_event_count >= ARRAY_SIZE(ap_events) || cpu >= ARRAY_SIZE(ap_jobs))
		return -1;
	ap_jobs[cpu].fn = fn;
	ap_jobs[cpu].arg = arg;
	if (uefi_call_wrapper(BS->CreateEvent, 5, 0, 0, NULL, NULL, &ev) != EFI_SUCCESS)
		return -1;
	EFI_STATUS s = uefi_call_wrapper(mp->StartupThisAP, 7, mp, ap_trampoline, (UINTN)cpu, ev,
					 (UINTN)timeout_us, &ap_jobs[cpu], NULL);
	if (s != EFI_SUCCESS) {
		uefi_call_wrapper(BS->CloseEvent, 1, ev);
		return -1;
	}
	ap_events[ap_event_count++] = ev;
	return 0;
}

static bool uefi_aps_wait(uint64_t timeout_us)
{
	bool all_done = false;
	/* Bounded by 1 ms stalls: CheckEvent never blocks. */
	for (uint64_t waited = 0; waited <= timeout_us && !all_done; waited += 1000) {
		all_done = true;
		for (unsigned i = 0; i < ap_event_count; i++)
			if (ap_events[i] && uefi_call_wrapper(BS->CheckEvent, 1, ap_events[i]) == EFI_SUCCESS) {
				uefi_call_wrapper(BS->CloseEvent, 1, ap_events[i]);
				ap_events[i] = NULL;
			} else if (ap_events[i]) {
				all_done = false;
			}
		if (!all_done)
			uefi_call_wrapper(BS->Stall, 1, 1000);
	}
	/* Keep only the events still open: every stage that starts APs adds
	 * one per AP, and the table must not fill over a run. */
	unsigned kept = 0;
	for (unsigned i = 0; i < ap_event_count; i++)
		if (ap_events[i])
			ap_events[kept++] = ap_events[i];
	ap_event_count = kept;
	return all_done;
}

/* One StartupThisAP per member (non-blocking), then the group's barrier:
 * StartupAllAPs would also start APs outside the group and fails outright
 * when any AP is still busy.  The firmware's timeout per AP lies past the
 * barrier's wait and the work, so it never resets an AP that is still
 * inside them. */
static uint32_t uefi_aps_start_together(struct ap_group *g, uint64_t arrive_ms, uint64_t work_ms)
{
	uint64_t firmware_timeout_us = (2 * (2 * arrive_ms + work_ms) + 1000) * 1000;
	ap_group_open(g, arrive_ms);
	for (uint32_t i = 0; i < g->n; i++) {
		ap_group_starting(&g->m[i]);
		if (uefi_ap_start(g->m[i].cpu, ap_group_member_main, &g->m[i], firmware_timeout_us))
			ap_group_start_failed(&g->m[i]);
	}
	return ap_group_gather(g);
}

/* The group's flags first (shared memory: exact), then the firmware's
 * completion events, which OVMF signals from a ~50 ms poll: until then
 * StartupThisAP refuses those APs (EFI_NOT_READY). */
#define GROUP_EVENT_WAIT_US 200000

static bool uefi_aps_finish_together(struct ap_group *g, uint64_t finish_ms)
{
	bool all = ap_group_finish(g, finish_ms);
	return uefi_aps_wait(GROUP_EVENT_WAIT_US) && all;
}

/* UTF-16 load options to ASCII ('?' for the rest); returns the first
 * character that did not fit (0 when all did), *len the length kept. */
static char options_to_ascii(char *buf, size_t cap, const CHAR16 *s, size_t max_chars, size_t *len_out)
{
	size_t len = 0, i = 0;
	for (; i < max_chars && s[i] && len + 1 < cap; i++)
		buf[len++] = s[i] < 0x80 ? (char)s[i] : '?';
	buf[len] = 0;
	*len_out = len;
	return i == max_chars || !s[i] ? 0 : s[i] < 0x80 ? (char)s[i] : '?';
}

/* Reads SETTINGS_FILE_MAX + 1 bytes at most: a file that fills them is
 * too long, and is refused whole rather than cut. */
static void read_settings_file(struct settings *s)
{
	static uint8_t raw[SETTINGS_FILE_MAX + 1];
	static char text[SETTINGS_FILE_MAX + 1];
	EFI_FILE_HANDLE f;
	if (!boot_volume || uefi_call_wrapper(boot_volume->Open, 5, boot_volume, &f, L"\\clockprobe.cfg",
					      EFI_FILE_MODE_READ, 0) != EFI_SUCCESS)
		return;
	UINTN n = sizeof raw;
	EFI_STATUS st = uefi_call_wrapper(f->Read, 3, f, &n, raw);
	uefi_call_wrapper(f->Close, 1, f);
	if (st != EFI_SUCCESS) {
		settings_problem(s, "\\clockprobe.cfg could not be read", "", 0);
		return;
	}
	settings_decode_file(s, raw, n, text, sizeof text);
	settings_parse(s, text);
}

static void uefi_read_settings(struct settings *s)
{
	static char options[4096];
	read_settings_file(s);
	EFI_LOADED_IMAGE *li;
	if (uefi_call_wrapper(BS->HandleProtocol, 3, image, &LoadedImageProtocol, (void **)&li) == EFI_SUCCESS &&
	    li->LoadOptions && li->LoadOptionsSize >= 2) {
		size_t len;
		char next = options_to_ascii(options, sizeof options, li->LoadOptions, li->LoadOptionsSize / 2,
					     &len);
		if (next)
			settings_drop_cut_word(s, options, len, next,
					       "load options longer than 4095 characters, the rest not read");
		settings_parse_load_options(s, options);
	}
}

/* The map as it is now: boot services may change it between calls.
 * NULL on success, else why the map cannot be used. */
static const char *uefi_memmap(struct memmap_range *ranges, size_t cap, size_t *count)
{
	UINTN entries = 0, key, desc_size;
	UINT32 desc_version;
	EFI_MEMORY_DESCRIPTOR *map = LibMemoryMap(&entries, &key, &desc_size, &desc_version);
	size_t n = 0;
	*count = 0;
	if (map) {
		for (UINTN i = 0; i < entries && n < cap; i++) {
			const EFI_MEMORY_DESCRIPTOR *d = (const void *)((const uint8_t *)map + i * desc_size);
			ranges[n].base = d->PhysicalStart;
			ranges[n].length = d->NumberOfPages << 12;
			ranges[n].type = d->Type;
			ranges[n].kind = memmap_kind_of_uefi_type(d->Type);
			n++;
		}
		FreePool(map);
		/* A map longer than ours: what is left unread could be RAM. */
		if (entries > cap)
			return "UEFI memory map has over 1024 entries";
	}
	*count = n;
	return NULL;
}

static struct memmap_range uefi_ranges[1024];

static const char *uefi_mmio_write_refusal(uint64_t phys, uint64_t len)
{
	static char reason[REASON_LEN];
	size_t n;
	const char *bad = uefi_memmap(uefi_ranges, ARRAY_SIZE(uefi_ranges), &n);
	return bad ? bad : memmap_write_refusal(uefi_ranges, n, "UEFI memory map", phys, len, reason, sizeof reason);
}

/* The PI specification's DXE services table (vol. 2, "DXE Services
 * Table"): only the part up to GetMemorySpaceDescriptor is declared.  Its
 * Global Coherency Domain map describes the whole address space,
 * MMIO and reserved ranges included, where the UEFI memory map lists only
 * memory and the MMIO runtime services need: OVMF leaves QEMU's
 * E820-reserved VMClock page out of the UEFI map (a hole there) but the
 * GCD knows what the platform set aside. */
#define GCD_NON_EXISTENT 0
#define GCD_RESERVED 1
#define GCD_MMIO 3
struct gcd_descriptor {
	uint64_t base, length, capabilities, attributes;
	uint32_t type; /* EFI_GCD_MEMORY_TYPE */
	EFI_HANDLE image, device;
};
struct dxe_services {
	EFI_TABLE_HEADER hdr;
	void *add_memory_space, *allocate_memory_space, *free_memory_space, *remove_memory_space;
	EFI_STATUS(EFIAPI *get_memory_space_descriptor)(uint64_t base, struct gcd_descriptor *out);
};

/* Every GCD descriptor over the range is reserved, MMIO, or non-existent
 * (no device and no memory the firmware knows of: OVMF 2022.11 gives
 * QEMU's E820-reserved VMClock page this type).  *nonexistent: some part
 * was. */
static const char *gcd_refusal(uint64_t phys, uint64_t len, char *buf, size_t cap, bool *nonexistent)
{
	static const EFI_GUID dxe_guid = { 0x05ad34ba, 0x6f02, 0x4214,
					   { 0x95, 0x2e, 0x4d, 0xa0, 0x39, 0x8e, 0x2b, 0xb9 } };
	struct dxe_services *dxe = config_table(dxe_guid);
	struct strbuf sb;
	sb_init(&sb, buf, cap);
	if (!dxe || !dxe->get_memory_space_descriptor) {
		sb_str(&sb, "0x");
		sb_hex(&sb, phys, 1);
		sb_str(&sb, " is a hole in the UEFI memory map and there are no DXE services to ask");
		return buf;
	}
	/* One descriptor per step, each ending past the last: bounded. */
	uint64_t at = phys, end = phys + len;
	for (int step = 0; step < 64 && at < end; step++) {
		struct gcd_descriptor d;
		if (uefi_call_wrapper(dxe->get_memory_space_descriptor, 2, at, &d) != EFI_SUCCESS || !d.length ||
		    d.base > at || d.base + d.length <= at) {
			sb_str(&sb, "0x");
			sb_hex(&sb, at, 1);
			sb_str(&sb, " has no GCD descriptor");
			return buf;
		}
		if (d.type != GCD_RESERVED && d.type != GCD_MMIO && d.type != GCD_NON_EXISTENT) {
			sb_str(&sb, "0x");
			sb_hex(&sb, at, 1);
			sb_str(&sb, " is a hole in the UEFI memory map but memory in the GCD map (type ");
			sb_u64(&sb, d.type);
			sb_str(&sb, ")");
			return buf;
		}
		*nonexistent |= d.type == GCD_NON_EXISTENT;
		at = d.base + d.length;
	}
	return at >= end ? NULL : "the GCD map splits the range into over 64 pieces";
}

/* Reserved in the UEFI memory map, or -- where that map has a hole --
 * reserved, MMIO or non-existent in the GCD map; memory in either is
 * refused. */
static const char *uefi_reserved_read_refusal(uint64_t phys, uint64_t len, const char **basis)
{
	static char reason[REASON_LEN];
	size_t n;
	bool nonexistent = false;
	const char *bad = uefi_memmap(uefi_ranges, ARRAY_SIZE(uefi_ranges), &n);
	if (bad)
		return bad;
	*basis = "reserved in the UEFI memory map";
	const char *refused = memmap_reserved_refusal(uefi_ranges, n, "UEFI memory map", phys, len, reason, sizeof reason);
	if (!refused || !str_equal(refused + str_len(refused) - str_len("(a hole)"), "(a hole)"))
		return refused;
	refused = gcd_refusal(phys, len, reason, sizeof reason, &nonexistent);
	*basis = nonexistent ? "a hole in the UEFI memory map, non-existent in the GCD map (the firmware knows no "
			       "memory or device there)"
			     : "a hole in the UEFI memory map, reserved or MMIO in the GCD map";
	return refused;
}

static const char *uefi_write_file(const char *name, const void *data, size_t len)
{
	CHAR16 path[64];
	size_t i = 0;
	if (!boot_volume)
		return "boot volume has no file system protocol";
	path[i++] = L'\\';
	for (; name[i - 1] && i < ARRAY_SIZE(path) - 1; i++)
		path[i] = (CHAR16)name[i - 1];
	path[i] = 0;
	EFI_FILE_HANDLE f;
	EFI_STATUS s = uefi_call_wrapper(boot_volume->Open, 5, boot_volume, &f, path,
					 EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE, 0);
	if (s == EFI_WRITE_PROTECTED || s == EFI_ACCESS_DENIED || s == EFI_MEDIA_CHANGED)
		return "boot volume is read-only";
	if (s != EFI_SUCCESS)
		return "cannot create the file on the boot volume";
	/* Truncate an older, longer report. */
	EFI_FILE_INFO *info = LibFileInfo(f);
	if (info) {
		info->FileSize = 0;
		uefi_call_wrapper(f->SetInfo, 4, f, &GenericFileInfo, info->Size, info);
		FreePool(info);
	}
	UINTN n = len;
	s = uefi_call_wrapper(f->Write, 3, f, &n, (void *)data);
	uefi_call_wrapper(f->Close, 1, f);
	if (s == EFI_WRITE_PROTECTED)
		return "boot volume is read-only";
	return s == EFI_SUCCESS && n == len ? NULL : "write failed";
}

static int uefi_wait_key(uint64_t timeout_ms)
{
	static bool reset_done;
	EFI_EVENT events[2];
	EFI_EVENT timer;
	EFI_INPUT_KEY key;
	UINTN index = 0;
	/* Keys typed during the run are not answers to the prompt; later
	 * calls keep what arrives between them. */
	if (!reset_done) {
		uefi_call_wrapper(ST->ConIn->Reset, 2, ST->ConIn, FALSE);
		reset_done = true;
	}
	if (uefi_call_wrapper(BS->CreateEvent, 5, EVT_TIMER, 0, NULL, NULL, &timer) != EFI_SUCCESS)
		return -1;
	uefi_call_wrapper(BS->SetTimer, 3, timer, TimerRelative, timeout_ms * 10000);
	events[0] = ST->ConIn->WaitForKey;
	events[1] = timer;
	uefi_call_wrapper(BS->WaitForEvent, 3, 2, events, &index);
	uefi_call_wrapper(BS->CloseEvent, 1, timer);
	if (index != 0)
		return -1;
	/* Taken, or WaitForKey stays signalled and every later wait returns
	 * at once; an escape sequence's bytes come as several keys. */
	int first = 0;
	for (int i = 0; i < 16; i++) {
		if (uefi_call_wrapper(ST->ConIn->ReadKeyStroke, 2, ST->ConIn, &key) != EFI_SUCCESS)
			break;
		if (i == 0)
			first = key.UnicodeChar < 0x80 ? key.UnicodeChar : 0;
	}
	return first;
}

/* EFI_TIME's TimeZone changed sign between spec versions (UTC - TimeZone
 * in 2.3, + in 2.7): an offset is named, never applied.  OVMF and most
 * firmware leave it unspecified over an RTC kept in UTC. */
static bool uefi_get_time(struct utc_time *t, const char **basis)
{
	EFI_TIME now;
	if (uefi_call_wrapper(RT->GetTime, 2, &now, NULL) != EFI_SUCCESS)
		return false;
	t->year = now.Year;
	t->month = now.Month;
	t->day = now.Day;
	t->hour = now.Hour;
	t->minute = now.Minute;
	t->second = now.Second;
	*basis = now.TimeZone == EFI_UNSPECIFIED_TIMEZONE || now.TimeZone == 0
			 ? "UEFI GetTime (no time zone given: read as UTC)"
			 : "UEFI GetTime (a time zone offset is given and not applied)";
	return true;
}

static void __attribute__((noreturn)) uefi_power_off(void)
{
	uefi_call_wrapper(RT->ResetSystem, 4, EfiResetShutdown, EFI_SUCCESS, 0, NULL);
	cpu_halt_forever();
}

/* OVMF (and most server firmware with console redirection) mirrors ConOut
 * onto a serial terminal.  When the ConOut variable names a UART node, the
 * firmware already copies screen text to the serial port, so the core must
 * not write those lines to the UART a second time. */
static bool conout_has_uart(void)
{
	UINTN size = 0;
	UINT8 *dp = LibGetVariableAndSize(L"ConOut", &EfiGlobalVariable, &size);
	bool found = false;
	if (!dp)
		return false;
	for (UINTN off = 0; off + 4 <= size;) {
		UINT8 type = dp[off] & 0x7f, subtype = dp[off + 1];
		UINT16 len = (UINT16)(dp[off + 2] | (dp[off + 3] << 8));
		if (type == 3 && subtype == 14) { /* messaging / UART */
			found = true;
			break;
		}
		if (len < 4 || (type == 0x7f && subtype == 0xff))
			break;
		off += len;
	}
	FreePool(dp);
	return found;
}

static void open_boot_volume(void)
{
	EFI_LOADED_IMAGE *li;
	if (uefi_call_wrapper(BS->HandleProtocol, 3, image, &LoadedImageProtocol, (void **)&li) != EFI_SUCCESS)
		return;
	boot_volume = LibOpenRoot(li->DeviceHandle);
}

/* Everything that needs boot services goes: after ExitBootServices (or a
 * failed attempt, after which the firmware may be half shut down) only the
 * UART and runtime services remain. */
static void drop_boot_services(void)
{
	plat.screen_write = NULL;
	plat.screen_mirrors_serial = false;
	plat.alloc_pages = NULL;
	plat.cpu_list = NULL;
	plat.ap_start = NULL;
	plat.aps_wait = NULL;
	plat.aps_start_together = NULL;
	plat.aps_finish_together = NULL;
	plat.read_settings = NULL;
	plat.write_file = NULL;
	plat.wait_key = NULL;
	mp = NULL;
	boot_volume = NULL;
}

#define EXIT_BOOT_SERVICES_TRIES 8
/* Descriptors the pool allocation for the map may add to it. */
#define MEMORY_MAP_SLACK_DESCRIPTORS 16

static const char *uefi_leave_firmware(void)
{
	UINTN size = 0, key = 0, desc_size = 0;
	UINT32 desc_version = 0;
	EFI_MEMORY_DESCRIPTOR *map = NULL;
	EFI_STATUS st = uefi_call_wrapper(BS->GetMemoryMap, 5, &size, NULL, &key, &desc_size, &desc_version);
	if (st != EFI_BUFFER_TOO_SMALL || !desc_size)
		return "GetMemoryMap did not report the size of the memory map";
	UINTN cap = size + MEMORY_MAP_SLACK_DESCRIPTORS * desc_size;
	if (uefi_call_wrapper(BS->AllocatePool, 3, EfiLoaderData, cap, (void **)&map) != EFI_SUCCESS)
		return "no memory for the memory map";
	/* A stale key (the map changed since it was read: an event, a timer
	 * callback) fails with EFI_INVALID_PARAMETER; read the map again into
	 * the same buffer, allocating nothing in between, and retry. */
	for (int tries = 0; tries < EXIT_BOOT_SERVICES_TRIES; tries++) {
		size = cap;
		st = uefi_call_wrapper(BS->GetMemoryMap, 5, &size, map, &key, &desc_size, &desc_version);
		if (st != EFI_SUCCESS) {
			if (tries)
				drop_boot_services();
			return "GetMemoryMap failed while leaving boot services";
		}
		st = uefi_call_wrapper(BS->ExitBootServices, 2, image, key);
		if (st == EFI_SUCCESS) {
			drop_boot_services();
			return NULL;
		}
	}
	drop_boot_services();
	return "ExitBootServices refused the memory map key 8 times";
}

EFI_STATUS efi_main(EFI_HANDLE image_handle, EFI_SYSTEM_TABLE *system_table)
{
	plat.entry_tsc = tb_now(); /* probe.elapsed_ms counts from here */
	InitializeLib(image_handle, system_table);
	image = image_handle;
	/* The boot manager's 5-minute watchdog must not cut a thorough run. */
	uefi_call_wrapper(BS->SetWatchdogTimer, 4, 0, 0, 0, NULL);

	plat.boot = "uefi";
	size_t n = 0;
	CHAR16 *v = ST->FirmwareVendor;
	for (; v && *v && n + 1 < sizeof plat.firmware_vendor; v++)
		plat.firmware_vendor[n++] = *v < 0x80 ? (char)*v : '?';
	plat.firmware_vendor_truncated = v && *v;
	plat.firmware_revision = ST->FirmwareRevision;
	plat.uefi_revision = ST->Hdr.Revision;

	void *rsdp = config_table((EFI_GUID)ACPI_20_TABLE_GUID);
	plat.acpi_rsdp_via = "EFI configuration table (ACPI 2.0 GUID)";
	if (!rsdp) {
		rsdp = config_table((EFI_GUID)ACPI_TABLE_GUID);
		plat.acpi_rsdp_via = "EFI configuration table (ACPI 1.0 GUID)";
	}
	if (!rsdp)
		plat.acpi_rsdp_via = "no ACPI table in the EFI configuration table";
	plat.acpi_rsdp = (uint64_t)(uintptr_t)rsdp;
	plat.smbios3_entry = (uint64_t)(uintptr_t)config_table((EFI_GUID)SMBIOS3_TABLE_GUID);
	plat.smbios_entry = (uint64_t)(uintptr_t)config_table((EFI_GUID)SMBIOS_TABLE_GUID);

	EFI_GUID mp_guid = MP_SERVICES_GUID;
	if (uefi_call_wrapper(BS->LocateProtocol, 3, &mp_guid, NULL, (void **)&mp) != EFI_SUCCESS)
		mp = NULL;
	open_boot_volume();

	plat.screen_write = uefi_screen_write;
	plat.screen_mirrors_serial = conout_has_uart();
	plat.alloc_pages = uefi_alloc_pages;
	plat.cpu_list = mp ? uefi_cpu_list : NULL;
	plat.cpu_list_source = mp ? "EFI MP services" : NULL;
	plat.ap_start = mp ? uefi_ap_start : NULL;
	plat.aps_wait = mp ? uefi_aps_wait : NULL;
	plat.aps_start_together = mp ? uefi_aps_start_together : NULL;
	plat.aps_finish_together = mp ? uefi_aps_finish_together : NULL;
	plat.read_settings = uefi_read_settings;
	plat.write_file = uefi_write_file;
	plat.get_time = uefi_get_time;
	plat.mmio_write_refusal = uefi_mmio_write_refusal;
	plat.reserved_read_refusal = uefi_reserved_read_refusal;
	plat.wait_key = uefi_wait_key;
	plat.power_off = uefi_power_off;
	plat.leave_firmware = uefi_leave_firmware;

	probe_main(&plat);
	/* probe_main leaves through the platform; reaching here is a bug. */
	uefi_power_off();
}
