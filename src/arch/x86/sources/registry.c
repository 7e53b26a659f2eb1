/* Every clock source the probe knows, in report order: built from the
 * registry's list (src/arch/x86/include/source_registry.h). */
#include "source.h"

#define SOURCE_DECLARE(id, name) extern const struct clock_source source_##name;
CLOCK_SOURCES(SOURCE_DECLARE)
#undef SOURCE_DECLARE

const struct clock_source *const clock_sources[SOURCE_ID_COUNT] = {
#define SOURCE_ENTRY(id, name) [SOURCE_ID_##id] = &source_##name,
	CLOCK_SOURCES(SOURCE_ENTRY)
#undef SOURCE_ENTRY
};
const unsigned clock_source_count = ARRAY_SIZE(clock_sources);
