# The arm64 verdict on the host (issue 37): build/host/verdict-arm64 runs
# src/verdict/arm64.c on recorded arm64 facts, decoded by src/decode/arm64_*.c
# (both in libpure.a); the arm64 ground-truth test feeds it each real
# guest's facts.  Part of `unit`, so make test has it.
$(BUILD)/host/verdict-arm64: src/host/verdict_arm64.c $(BUILD)/host/libpure.a $(ALL_HDRS)
	@mkdir -p $(dir $@)
	@echo "  HOSTLD  $@"; $(CC) $(HOST_CFLAGS) $< $(BUILD)/host/libpure.a -o $@

unit: $(BUILD)/host/verdict-arm64
