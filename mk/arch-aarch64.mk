# aarch64 through the seam: not built yet.  Today's arm64 probe
# (src/arch/arm64/, its own stage list over the pure rooms) is built by
# mk/arm64-probe.mk (`make arm64-probe`, `make arm64-run`); the next step
# of issue 37 moves it behind include/arch_api.h and fills this file in
# the shape of mk/arch-x86_64.mk, so that ARCH=aarch64 builds `all`.
$(error ARCH=aarch64 does not build through the seam yet: the arm64 probe is `make arm64-probe` / `make arm64-run` (mk/arm64-probe.mk) until issue 37 moves it behind include/arch_api.h)
