/* The channel between the runner and a case child (channel.c): a socket
   pair that carries only benchcore's own messages, one per line, "TAG" or
   "TAG PAYLOAD" and a newline. The module's stdout and stderr are other
   descriptors (isolate.c relays them), so anything on this channel that
   does not decode is a case lying about itself, and fails the case.

   The messages, and who sends them:
     child -> runner  PHASE       "P <phase>"  a phase began (the watchdog's bound)
     child -> runner  RESULT      "J <json>"   the case's report (bc_case_to_json), last
     child -> runner  SERVER      "S <json>"   start a private server (bc_service_spec_json)
     runner -> child  SERVER_OK   "OK <pid>"   it runs, as that process group
     runner -> child  SERVER_ERR  "E <json>"   it did not start: the reason, a JSON string
   A message is a whole line, from the start of a line: the decoder sees one
   line at a time, so a tag inside another line is never taken for one.
   Any thread; no state. */
#ifndef BC_CHANNEL_H
#define BC_CHANNEL_H
#include <stddef.h>

typedef enum bc_msg_kind {
	BC_MSG_PHASE,
	BC_MSG_RESULT,
	BC_MSG_SERVER,
	BC_MSG_SERVER_OK,
	BC_MSG_SERVER_ERR,
	BC_MSG_NKINDS
} bc_msg_kind;

/* The phases a case reports, in the order the engine goes through them
   (engine.c passes their names to on_phase). */
typedef enum bc_phase {
	BC_PHASE_INIT,
	BC_PHASE_PREPARE,
	BC_PHASE_PREPARED,		/* prepare is over: the threads' thread_init follows */
	BC_PHASE_WARMUP,
	BC_PHASE_MEASURE,
	BC_PHASE_FINISH,
	BC_PHASE_CLEANUP,
	BC_PHASE_DESTROY,
	BC_PHASE_N
} bc_phase;

/* The phase called name, or -1. */
int bc_phase_parse(const char *name);
/* Its name on the wire ("prepared"), and what a message calls the time
   after it began ("thread_init", "the measured window"). Static strings. */
const char *bc_phase_name(bc_phase ph);
const char *bc_phase_where(bc_phase ph);

/* A decoded message. payload is NUL-terminated and points into the line
   decoded (for SERVER_ERR: the reason, unescaped). */
typedef struct bc_msg {
	bc_msg_kind kind;
	const char *payload;
	size_t len;
	bc_phase phase;			/* PHASE: which one */
	int pid;			/* SERVER_OK: the server's pid, 0 when not said */
} bc_msg;

/* Sends one message in one write: payload is the phase name, the JSON, the
   pid in decimal, or for SERVER_ERR the plain reason (escaped here). 0, or
   -1: errno EINVAL for a payload that would not stay one line, else the
   write's (the other end gone). */
int bc_msg_send(int fd, bc_msg_kind kind, const char *payload);
/* Decodes line[0..n), without its newline; line[n] must be writable (the
   newline's place: the payload's NUL goes there, and SERVER_ERR's reason
   is unescaped in place). 0, or -1 with *why saying what is wrong
   (static): an unknown tag, a NUL byte, a missing or malformed payload. */
int bc_msg_decode(char *line, size_t n, bc_msg *m, const char **why);
#endif
