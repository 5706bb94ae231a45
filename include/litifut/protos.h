/*
 * Well-known C library prototypes, for LITIFUT_ARGS rules that name a
 * function and nothing more (`LITIFUT_ARGS=open`): what the tracer
 * records of its calls (stub/args.c, in LITIFUT_ARGS's own syntax), and
 * the names the post-processor gives those values (--auto-args,
 * postproc/views/args.c).  A function not here gets every integer
 * argument register and its return value.  One table for both ends, as
 * uftrace keeps one; only #defines and a static array, so that the
 * tracer (no libc) and the host tools include it alike.
 */
#ifndef LITIFUT_PROTOS_H
#define LITIFUT_PROTOS_H

struct litifut_proto {
    const char *name;
    const char *spec;           /* LITIFUT_ARGS items */
    const char *arg_names;      /* the arguments' names, comma-separated, in spec's order */
    const char *types;          /* LITIFUT_PROTO_* letters: the return value's, then argument 1's ... */
};

/* The type letters (--auto-args shows an integer register as its type
 * says; the DWARF of a function with it gives the same letters):
 * a char in an int, int, unsigned int, long (a register), size_t (an
 * unsigned register), a pointer, a string's pointer, open's flags, a
 * mode in octal, hexadecimal, void; '?' unknown. */
#define LITIFUT_PROTO_TYPES "ciulzpsFoxv?"

/* (by name, for a binary search: keep them sorted, as strcmp sorts) */
static const struct litifut_proto litifut_protos[] = {
    { "access",   "arg1/s,arg2,retval",           "pathname,mode", "isi" },
    { "atoi",     "arg1/s,retval",                "nptr", "is" },
    { "calloc",   "arg1,arg2,retval",             "nmemb,size", "pzz" },
    { "chdir",    "arg1/s,retval",                "path", "is" },
    { "close",    "arg1,retval",                  "fd", "ii" },
    { "dlopen",   "arg1/s,arg2,retval",           "filename,flags", "psx" },
    { "dlsym",    "arg1,arg2/s,retval",           "handle,symbol", "pps" },
    { "execv",    "arg1/s,arg2,retval",           "pathname,argv", "isp" },
    { "execve",   "arg1/s,arg2,arg3,retval",      "pathname,argv,envp", "ispp" },
    { "execvp",   "arg1/s,arg2,retval",           "file,argv", "isp" },
    { "exit",     "arg1",                         "status", "vi" },
    { "fclose",   "arg1,retval",                  "stream", "ip" },
    { "fopen",    "arg1/s,arg2/s,retval",         "pathname,mode", "pss" },
    { "fopen64",  "arg1/s,arg2/s,retval",         "pathname,mode", "pss" },
    { "fputs",    "arg1/s,arg2,retval",           "s,stream", "isp" },
    { "free",     "arg1",                         "ptr", "vp" },
    { "fwrite",   "arg1,arg2,arg3,arg4,retval",   "ptr,size,nmemb,stream", "zpzzp" },
    { "getenv",   "arg1/s,retval/s",              "name", "ss" },
    { "malloc",   "arg1,retval",                  "size", "pz" },
    { "memcmp",   "arg1,arg2,arg3,retval",        "s1,s2,n", "ippz" },
    { "memcpy",   "arg1,arg2,arg3,retval",        "dest,src,n", "pppz" },
    { "memmove",  "arg1,arg2,arg3,retval",        "dest,src,n", "pppz" },
    { "memset",   "arg1,arg2,arg3,retval",        "s,c,n", "ppcz" },
    { "mkdir",    "arg1/s,arg2,retval",           "pathname,mode", "iso" },
    { "open",     "arg1/s,arg2,arg3,retval",      "pathname,flags,mode", "isFo" },
    { "open64",   "arg1/s,arg2,arg3,retval",      "pathname,flags,mode", "isFo" },
    { "openat",   "arg1,arg2/s,arg3,arg4,retval", "dirfd,pathname,flags,mode", "iisFo" },
    { "printf",   "arg1/s,retval",                "format", "is" },
    { "puts",     "arg1/s,retval",                "s", "is" },
    { "read",     "arg1,arg2,arg3,retval",        "fd,buf,count", "lipz" },
    { "realloc",  "arg1,arg2,retval",             "ptr,size", "ppz" },
    { "remove",   "arg1/s,retval",                "pathname", "is" },
    { "rename",   "arg1/s,arg2/s,retval",         "oldpath,newpath", "iss" },
    { "setenv",   "arg1/s,arg2/s,arg3,retval",    "name,value,overwrite", "issi" },
    { "stat",     "arg1/s,arg2,retval",           "pathname,statbuf", "isp" },
    { "strchr",   "arg1/s,arg2,retval",           "s,c", "psc" },
    { "strcmp",   "arg1/s,arg2/s,retval",         "s1,s2", "iss" },
    { "strcpy",   "arg1,arg2/s,retval",           "dest,src", "pps" },
    { "strdup",   "arg1/s,retval",                "s", "ps" },
    { "strlen",   "arg1/s,retval",                "s", "zs" },
    { "strncmp",  "arg1/s,arg2/s,arg3,retval",    "s1,s2,n", "issz" },
    { "strrchr",  "arg1/s,arg2,retval",           "s,c", "psc" },
    { "strstr",   "arg1/s,arg2/s,retval",         "haystack,needle", "pss" },
    { "strtol",   "arg1/s,arg2,arg3,retval",      "nptr,endptr,base", "lspi" },
    { "system",   "arg1/s,retval",                "command", "is" },
    { "unlink",   "arg1/s,retval",                "pathname", "is" },
    { "write",    "arg1,arg2,arg3,retval",        "fd,buf,count", "lipz" },
};
#define LITIFUT_N_PROTOS (sizeof litifut_protos / sizeof litifut_protos[0])

#endif
