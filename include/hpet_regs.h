/* HPET register block (IA-PC HPET specification 1.0a, section 2.3). */
#ifndef CP_HPET_REGS_H
#define CP_HPET_REGS_H

#define HPET_CAP 0x000           /* general capabilities and ID */
#define HPET_CONFIG 0x010        /* general configuration */
#define HPET_COUNTER 0x0f0       /* main counter */
#define HPET_BLOCK_BYTES 1024u   /* the register block is 1 KiB */

#define HPET_ENABLE_CNF 1u                 /* CONFIG: counter runs */
#define HPET_COUNT_SIZE_CAP (1ull << 13)   /* CAP: 64-bit main counter */
#define HPET_CAP_PERIOD_SHIFT 32           /* CAP[63:32]: period in fs */

#endif
