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
};

/* (by name, for a binary search: keep them sorted, as strcmp sorts) */
static const struct litifut_proto litifut_protos[] = {
    { "access",   "arg1/s,arg2,retval",           "pathname,mode" },
    { "atoi",     "arg1/s,retval",                "nptr" },
    { "calloc",   "arg1,arg2,retval",             "nmemb,size" },
    { "chdir",    "arg1/s,retval",                "path" },
    { "close",    "arg1,retval",                  "fd" },
    { "dlopen",   "arg1/s,arg2,retval",           "filename,flags" },
    { "dlsym",    "arg1,arg2/s,retval",           "handle,symbol" },
    { "execv",    "arg1/s,arg2,retval",           "pathname,argv" },
    { "execve",   "arg1/s,arg2,arg3,retval",      "pathname,argv,envp" },
    { "execvp",   "arg1/s,arg2,retval",           "file,argv" },
    { "exit",     "arg1",                         "status" },
    { "fclose",   "arg1,retval",                  "stream" },
    { "fopen",    "arg1/s,arg2/s,retval",         "pathname,mode" },
    { "fopen64",  "arg1/s,arg2/s,retval",         "pathname,mode" },
    { "fputs",    "arg1/s,arg2,retval",           "s,stream" },
    { "free",     "arg1",                         "ptr" },
    { "fwrite",   "arg1,arg2,arg3,arg4,retval",   "ptr,size,nmemb,stream" },
    { "getenv",   "arg1/s,retval/s",              "name" },
    { "malloc",   "arg1,retval",                  "size" },
    { "memcmp",   "arg1,arg2,arg3,retval",        "s1,s2,n" },
    { "memcpy",   "arg1,arg2,arg3,retval",        "dest,src,n" },
    { "memmove",  "arg1,arg2,arg3,retval",        "dest,src,n" },
    { "memset",   "arg1,arg2,arg3,retval",        "s,c,n" },
    { "mkdir",    "arg1/s,arg2,retval",           "pathname,mode" },
    { "open",     "arg1/s,arg2,arg3,retval",      "pathname,flags,mode" },
    { "open64",   "arg1/s,arg2,arg3,retval",      "pathname,flags,mode" },
    { "openat",   "arg1,arg2/s,arg3,arg4,retval", "dirfd,pathname,flags,mode" },
    { "printf",   "arg1/s,retval",                "format" },
    { "puts",     "arg1/s,retval",                "s" },
    { "read",     "arg1,arg2,arg3,retval",        "fd,buf,count" },
    { "realloc",  "arg1,arg2,retval",             "ptr,size" },
    { "remove",   "arg1/s,retval",                "pathname" },
    { "rename",   "arg1/s,arg2/s,retval",         "oldpath,newpath" },
    { "setenv",   "arg1/s,arg2/s,arg3,retval",    "name,value,overwrite" },
    { "stat",     "arg1/s,arg2,retval",           "pathname,statbuf" },
    { "strchr",   "arg1/s,arg2,retval",           "s,c" },
    { "strcmp",   "arg1/s,arg2/s,retval",         "s1,s2" },
    { "strcpy",   "arg1,arg2/s,retval",           "dest,src" },
    { "strdup",   "arg1/s,retval",                "s" },
    { "strlen",   "arg1/s,retval",                "s" },
    { "strncmp",  "arg1/s,arg2/s,arg3,retval",    "s1,s2,n" },
    { "strrchr",  "arg1/s,arg2,retval",           "s,c" },
    { "strstr",   "arg1/s,arg2/s,retval",         "haystack,needle" },
    { "strtol",   "arg1/s,arg2,arg3,retval",      "nptr,endptr,base" },
    { "system",   "arg1/s,retval",                "command" },
    { "unlink",   "arg1/s,retval",                "pathname" },
    { "write",    "arg1,arg2,arg3,retval",        "fd,buf,count" },
};
#define LITIFUT_N_PROTOS (sizeof litifut_protos / sizeof litifut_protos[0])

#endif
