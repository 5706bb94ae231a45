/* What the libraries of a link provide: the wrapped functions a static
 * link's archives define, and the C library a link is for. */
#ifndef LITIFUT_LIBSEARCH_H
#define LITIFUT_LIBSEARCH_H

#include "wrapper/linkargs.h"

/* Sets defined[k] for each names[k] (NULL-terminated) that an archive
 * the link searches defines (its symbol index).  -1 if a library could
 * not be found (ld's built-in folders are not known here): then what
 * it defines is unknown. */
int static_link_defines(const struct link_args *la, const char *const *names,
                        unsigned char *defined);

/* Whether lib<lib>.a in the link's -L folders defines `name` (its
 * symbol index): 1, 0, or -1 if there is none there. */
int archive_in_folders_defines(const struct link_args *la, const char *lib, const char *name);

enum c_library { C_LIBRARY_GLIBC, C_LIBRARY_MUSL, C_LIBRARY_UCLIBC };

/* The C library a link is for: by its dynamic linker's name
 * (ld-musl-*, ld-uClibc*: whatever the compiler's triple, as
 * musl-gcc.specs links), else by the triple's last part (*-musl*,
 * *-uclibc*), else glibc. */
enum c_library link_c_library(const struct link_args *la, const char *triple);

#endif
