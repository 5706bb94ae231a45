/*
 * The stream protocol between litifut-agent (on the device, agent/)
 * and litifut-recv (on the host, recv/): one TCP connection from the
 * agent, carrying the agent's followed files as a mirror.  Every
 * integer is little-endian, whatever the device's byte order (the
 * files' bytes themselves are sent as they are).
 *
 *   hello        8 bytes: LITIFUT_STREAM_HELLO
 *   then frames  20-byte header: type (u32), file id (u32), a (u64),
 *                len (u32), then len bytes of payload
 *
 *   OPEN  a=0, payload = the file's name (litifut.<pid>[.<n>].trace or
 *         .maps, no NUL); ids are the agent's, never reused in one
 *         connection
 *   DATA  a = offset in the file; payload = the bytes there.  The
 *         receiver writes them at that offset: a re-sent range simply
 *         overwrites (a chunk still being written, the header page)
 *   SIZE  a = the file's size on the device now (the receiver sets its
 *         copy's size to it: a trace only grows; a maps file is
 *         rewritten whole, SIZE first)
 *   DROP  a = chunks the agent dropped in this file so far (a total),
 *         payload 8 bytes: their bytes (a total)
 *   END   a = the file's final size; nothing more comes for this id
 *         (its process is gone and everything was sent)
 *   CHUNK a = a trace chunk's offset in the file, payload 12 bytes:
 *         its size, its thread id (as its header says; 0 the
 *         process's own, LITIFUT_PAIRS_TID pairs), its state: 0 its
 *         data began to come (sent after its first DATA), 1 complete:
 *         every byte of it was sent (after its last DATA; no DATA
 *         comes for it any more, it reads on its own).  Each at most
 *         once per chunk and state; a dropped chunk gets none.  A
 *         receiver that follows the log (litifut-recv --follow) makes
 *         it of the chunks each refresh completed
 */
#ifndef LITIFUT_STREAM_FORMAT_H
#define LITIFUT_STREAM_FORMAT_H

#define LITIFUT_STREAM_HELLO      "LTSTRM01"   /* 8 bytes, no NUL */
#define LITIFUT_STREAM_HELLO_SIZE 8
#define LITIFUT_FRAME_HEADER      20
#define LITIFUT_FRAME_MAX         65536u       /* payload bytes at most */
#define LITIFUT_STREAM_NAME_MAX   63           /* a file name's bytes at most */

enum litifut_frame_type {
    LITIFUT_FRAME_OPEN = 1,
    LITIFUT_FRAME_DATA = 2,
    LITIFUT_FRAME_SIZE = 3,
    LITIFUT_FRAME_DROP = 4,
    LITIFUT_FRAME_END  = 5,
    LITIFUT_FRAME_CHUNK = 6,
};

enum litifut_chunk_state {
    LITIFUT_CHUNK_BEGUN = 0,
    LITIFUT_CHUNK_COMPLETE = 1,
};

#endif
