/*
 * A second sled, for the start of the object's code: the wrapper links
 * this object first.  With the tracer's sled at the end, calls within
 * 128 KB of either end reach a sled with a PC-relative bal.  See sled.S.
 */
#include "sled.S"

    SLED_COPY .text.litifut_island, litifut_island_sled, litifut_island
