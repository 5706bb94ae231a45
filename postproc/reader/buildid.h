/*
 * Files found by GNU build-id (buildid.c): the traced objects' build-ids
 * come in their OBJECT records; a file of another name, or in a tree,
 * can be the one.
 */
#ifndef LITIFUT_POSTPROC_BUILDID_H
#define LITIFUT_POSTPROC_BUILDID_H

#include <stdint.h>

/* The build-id of the ELF file at path (at most max bytes, *size 0 if
 * it has none) and whether it has a symbol table: 0, or -1 if it is
 * not a readable ELF file. */
int buildid_of_file(const char *path, uint8_t *id, uint32_t max, uint32_t *size, int *symtab);

/* The NT_GNU_BUILD_ID of a loaded image (its PT_NOTE segments), at
 * most max bytes of it (the tracer keeps LITIFUT_BUILD_ID_MAX); *size 0
 * if it has none. */
struct elf_image;
void buildid_of_image(const struct elf_image *img, uint8_t *id, uint32_t max, uint32_t *size);

/* A build-id as lower-case hex into out (2 * n + 1 bytes). */
void buildid_hex(char *out, const uint8_t *id, uint32_t n);

/* A file under dir (its tree, a few levels deep) whose build-id is id,
 * one with a symbol table if there is one: malloc'd, or NULL.  Each
 * directory's tree is read once per process. */
char *buildid_find(const char *dir, const uint8_t *id, uint32_t size);

/* --debug-dir: the separate debug file of img (stripped), found by its
 * build-id as dir/.build-id/xx/rest.debug or dir/xx/rest.debug: opened,
 * and its symbol table given to img (each symbol's section index
 * that of img's section of the same name): the image to keep open as
 * long as img (its names), or NULL if there is none with symbols. */
struct elf_image *buildid_debug_symbols(struct elf_image *img, const char *dir);

#endif
