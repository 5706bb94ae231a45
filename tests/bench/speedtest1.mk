# speedtest1.mk: SQLite's speedtest1 linked against the library the
# package builds, libsqlite3.la, as the package links its own sqlite3
# shell (Debian's 32-dynamic_link.patch).  Read after the package's
# configured Makefile, whose variables it uses (tests/bench/programs.sh):
#
#   make -f Makefile -f .../speedtest1.mk speedtest1-lib [BENCH_LDFLAGS=...]
#
# (The package's own speedtest1 rule compiles the 8 MB amalgamation
# into every link: half a minute of compiling in each link measured.)
# BENCH_LDFLAGS: link-only arguments (a handler object, -all-static).

speedtest1.lo: $(TOP)/test/speedtest1.c sqlite3.h
	$(LTCOMPILE) $(ST_OPT) -c $(TOP)/test/speedtest1.c

speedtest1-lib: speedtest1.lo libsqlite3.la
	$(LTLINK) $(ST_OPT) -o speedtest1 speedtest1.lo libsqlite3.la $(TLIBS) $(BENCH_LDFLAGS)

.PHONY: speedtest1-lib
