/* preload.c - defines own_public before libown.so does (LD_PRELOAD):
 * libown's own call of it must come here (tests/linking.sh). */
__attribute__((noipa)) int own_public(int x) { return x + 1000; }
