/* `benchcore serve`: runs the server half of a module (its serve hook) until
   SIGINT, SIGTERM or SIGHUP. The core parses the flags and site.conf's
   serve = { ... } group, resolves the secret and owns the signals; the module
   listens and serves. Main thread only. */
#ifndef BC_SERVE_CLI_H
#define BC_SERVE_CLI_H
/* argv[0] is "serve". Returns the exit status: 0 clean stop, 1 the server
   failed, 2 usage, config or module error. */
int bc_cmd_serve(int argc, char **argv);
#endif
