/*
 * shlib.h - the interfaces of the shared-library test programs
 * (tests/shlib.sh): libcalc (C), libshapes (C++, extern "C" entry
 * points), the dlopen plugin, and the load-map writer the two programs
 * share.
 */
#ifndef SHLIB_H
#define SHLIB_H

#ifdef __cplusplus
extern "C" {
#endif

/* libcalc.so.1 */
typedef int (*calc_fn)(int value, void *ctx);
extern int calc_init_total;                         /* set by its constructor */
int calc_square(int x);
int calc_poly(int x);                               /* x*x + 3x + 7 */
int calc_sum(const int *v, int n);
int calc_map_reduce(const int *v, int n, calc_fn fn, void *ctx);
int calc_with_shapes(int n);                        /* calls into libshapes */
unsigned calc_thread_work(int index, int iters);

/* libshapes.so.1 */
int shapes_total_area(int n);
int shapes_checked_sum(const int *sides, int n, int *errors);

/* libplugin.so (through dlsym) */
typedef int (*plugin_cb)(int value);
typedef int (*plugin_apply_fn)(int x, plugin_cb cb);
typedef const char *(*plugin_name_fn)(void);

#ifdef __cplusplus
}
#endif

#endif
