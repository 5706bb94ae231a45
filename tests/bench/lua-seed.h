/* Included into every Lua source file by tests/bench.sh: a fixed
   string-hash seed (Lua 5.4 mixes time() and addresses into it), so
   every build makes the same calls in every run. */
#define luai_makeseed(L) 0x2545f491u
