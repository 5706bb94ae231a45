/* litifut-ld --install / --uninstall TRIPLE: the wrapper in the cross
 * toolchain, where TRIPLE-gcc finds its linker. */
#ifndef LITIFUT_INSTALL_H
#define LITIFUT_INSTALL_H

/* TRIPLE-gcc's ld (and its sibling ld.bfd) are renamed NAME.litifut-real
 * and NAME becomes a symlink to this program.  Idempotent; refuses,
 * changing nothing, what it does not recognise.  Silent on success;
 * otherwise one error line and -1. */
int install_wrapper(const char *triple);

/* Undoes install_wrapper() exactly; nothing to do if not installed. */
int uninstall_wrapper(const char *triple);

/* The usage text of `litifut-ld --help`. */
void print_usage(void);

#endif
