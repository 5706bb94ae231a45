/*
 * Where this copy's sled entries go (sled.h): to litifut_rv_start, the
 * slow path in C, in every mode.  RISC-V has no assembly hot path yet:
 * the slow path does everything a mode asks (it records, counts, pairs,
 * pauses, or only finds the target while the process records nothing),
 * at its cost.  So nothing is rewritten here.
 */
#include "tracer-arch.h"
#include "tracer.h"

int arch_sleds_select(enum sleds_mode mode)
{
    (void)mode;
    return 1;
}
