# aarch64: not built yet.  Issue 37's arm64 step adds src/arch/arm64/ behind
# include/arch_api.h and fills this file in the shape of mk/arch-x86_64.mk.
$(error ARCH=aarch64 is not buildable yet: the arm64 probe is issue 37's second step (src/arch/arm64/ behind include/arch_api.h))
