/* Connections, the private server, server facts, a local server's pid. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oltp.h"

MYSQL *oltp_connect(const oltp_state *s, const char *db, int local_infile, char *err, size_t errn,
		    const char **hint)
{
	MYSQL *m = mysql_init(NULL);
	unsigned timeout = 30;
	my_bool infile = local_infile != 0;
	*hint = NULL;
	if (!m) {
		snprintf(err, errn, "out of memory for a connection");
		return NULL;
	}
	mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
	mysql_options(m, MYSQL_SET_CHARSET_NAME, "utf8mb4");
	mysql_options(m, MYSQL_OPT_LOCAL_INFILE, &infile);
	if (!mysql_real_connect(m, s->sock[0] ? NULL : s->host, s->user, s->password, db, s->port,
				s->sock[0] ? s->sock : NULL, 0)) {
		unsigned e = mysql_errno(m);
		/* the client's messages name the user and the host, never the password */
		snprintf(err, errn, "cannot connect to %s%s as %s: %s", s->sock[0] ? "socket " : "",
			 s->sock[0] ? s->sock : s->host, s->user, mysql_error(m));
		if (e == 1045)
			*hint = "check user and password (the password option is never printed)";
		else if (e == 1049)
			*hint = "the database does not exist";
		else if (e == 1040)
			*hint = "the server's max_connections is lower than threads: raise it";
		else if (e == 2002 || e == 2003)
			*hint = "is the server running? set server = host[:port] or socket = path, or leave "
				"both empty to start a private MariaDB";
		mysql_close(m);
		return NULL;
	}
	return m;
}

int oltp_exec(MYSQL *m, const char *sql, char *err, size_t errn)
{
	if (mysql_real_query(m, sql, strlen(sql)) == 0) {
		MYSQL_RES *r = mysql_store_result(m);
		if (r)
			mysql_free_result(r);
		return 0;
	}
	if (err)
		snprintf(err, errn, "%s (error %u)", mysql_error(m), mysql_errno(m));
	return -1;
}

int oltp_query_int(MYSQL *m, const char *sql, int64_t *out)
{
	if (mysql_real_query(m, sql, strlen(sql)))
		return -1;
	MYSQL_RES *r = mysql_store_result(m);
	if (!r)
		return -1;
	MYSQL_ROW row = mysql_fetch_row(r);
	int rc = row && row[0] ? 0 : -1;
	if (!rc)
		*out = strtoll(row[0], NULL, 10);
	mysql_free_result(r);
	return rc;
}

/* ------------------------------------------------------- private server */

/* An executable named name in PATH or the sbin directories (root's PATH is
   not every user's). */
static int oltp_find_exe(const char *name, char *out, size_t n)
{
	const char *path = getenv("PATH");
	char buf[4096];
	snprintf(buf, sizeof(buf), "%s:/usr/sbin:/usr/local/sbin:/sbin", path ? path : "/usr/bin:/bin");
	for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(out, n, "%s/%s", *d ? d : ".", name);
		if (access(out, X_OK) == 0)
			return 0;
	}
	return -1;
}

/* Runs argv with its output into log; its exit status, or -1. */
static int oltp_run_tool(char *const argv[], const char *log)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int nul = open("/dev/null", O_RDONLY);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (nul >= 0)
			dup2(nul, 0);
		execv(argv[0], argv);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The last line of a file, for an error message. */
static void oltp_last_line(const char *path, char *out, size_t n)
{
	FILE *f = fopen(path, "r");
	char line[512];
	*out = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (line[0] != '\n')
			snprintf(out, n, "%s", line);
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
}

/* A fresh data directory (once per run of the module: the directory lives
   as long as the module's cases). */
static int oltp_install_db(oltp_state *s, const char *server, const char *dir, const char *data)
{
	char tool[1100], arg_data[600], log[600], msg[512], user[] = "--user=root";
	struct stat st;
	snprintf(arg_data, sizeof(arg_data), "--datadir=%s", data);
	snprintf(log, sizeof(log), "%s/install-db.log", dir);
	if (stat(data, &st) == 0) {
		snprintf(tool, sizeof(tool), "%s/mysql", data);
		if (stat(tool, &st) == 0)
			return 0;	/* an earlier case of this run made it */
	}
	int rc;
	if (oltp_find_exe("mariadb-install-db", tool, sizeof(tool)) == 0 ||
	    oltp_find_exe("mysql_install_db", tool, sizeof(tool)) == 0) {
		char *argv[] = { tool, "--no-defaults", "--auth-root-authentication-method=normal",
				 arg_data, "--skip-test-db", "--skip-name-resolve",
				 geteuid() == 0 ? user : NULL, NULL };
		rc = oltp_run_tool(argv, log);
	} else {	/* MySQL: the server initialises its own directory */
		char *argv[] = { (char *)server, "--no-defaults", "--initialize-insecure", arg_data,
				 geteuid() == 0 ? user : NULL, NULL };
		snprintf(tool, sizeof(tool), "%s --initialize-insecure", server);
		rc = oltp_run_tool(argv, log);
	}
	if (rc != 0) {
		oltp_last_line(log, msg, sizeof(msg));
		oltp_fail(s, NULL, msg, "its whole output is in that log",
			  "cannot create the private server's data directory: %s exited with status %d "
			  "(log: %s)", tool, rc, log);
		return -1;
	}
	return 0;
}

/* Starts (or finds) the private MariaDB of this run: a data directory and a
   unix socket in the module directory, no TCP, the buffer pool sized to the
   data, the redo log flushed once a second, no binary log, the system
   tablespace grown 8 MiB at a time (not 64: its disk is then what needs()
   declares, within a few MiB, oltp.c). */
int oltp_start_private(oltp_state *s, uint64_t data_bytes)
{
	const bench_host_api_v1 *api = s->api;
	const char *dir = api->module_dir(s->ctx);
	char server[512], data[512], a_data[600], a_sock[600], a_pid[600], a_tmp[600], a_bp[64];
	if (oltp_find_exe("mariadbd", server, sizeof(server)) &&
	    oltp_find_exe("mysqld", server, sizeof(server))) {
		api->set_error(s->ctx, "no server configured (server, socket) and neither mariadbd nor "
			       "mysqld is installed for a private one");
		return BENCH_SKIP;
	}
	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(s->sock, sizeof(s->sock), "%s/mysqld.sock", dir);
	if (strlen(s->sock) >= 100) {
		api->set_error(s->ctx, "the module directory %s is too long for a unix socket path: "
			       "set TMPDIR to a shorter directory", dir);
		return BENCH_ERR;
	}
	if (oltp_install_db(s, server, dir, data))
		return BENCH_ERR;
	/* the buffer pool holds the data (about 100 MiB a warehouse) plus room,
	   unless the user sized it (buffer_pool) */
	uint64_t bp = data_bytes;
	if (!bp)
		bp = (128ull << 20) + (uint64_t)s->warehouses * (128ull << 20);
	snprintf(a_bp, sizeof(a_bp), "--innodb-buffer-pool-size=%" PRIu64, bp);
	snprintf(a_data, sizeof(a_data), "--datadir=%s", data);
	snprintf(a_sock, sizeof(a_sock), "--socket=%s", s->sock);
	snprintf(a_pid, sizeof(a_pid), "--pid-file=%s/mysqld.pid", dir);
	snprintf(a_tmp, sizeof(a_tmp), "--tmpdir=%s", dir);
	const char *argv[] = { server, "--no-defaults", a_data, a_sock, a_pid, a_tmp, "--skip-networking",
			       a_bp, "--innodb-flush-log-at-trx-commit=2", "--skip-log-bin",
			       "--innodb-autoextend-increment=8",
			       "--max-connections=4200", "--max-prepared-stmt-count=1048576",
			       "--skip-name-resolve", geteuid() == 0 ? "--user=root" : NULL, NULL };
	bench_server_spec_v1 spec = {
		.name = "mariadbd", .argv = argv, .ready_unix = s->sock, .ready_timeout_s = 120,
	};
	if (api->server_start(s->ctx, &spec) != BENCH_OK)
		return BENCH_ERR;	/* the host set the reason with the log's tail */
	s->private_server = 1;
	snprintf(s->user, sizeof(s->user), "root");
	return BENCH_OK;
}

/* Server version and the settings that shape TPC-C results. */
void oltp_server_info(oltp_state *s, MYSQL *m)
{
	static const char *const vars[] = { "innodb_buffer_pool_size", "innodb_flush_log_at_trx_commit",
					    "log_bin", "innodb_log_file_size", "max_connections", NULL };
	char sql[256], key[96];
	s->api->set_info(s->ctx, "server_version", mysql_get_server_info(m));
	s->api->set_info(s->ctx, "server", s->private_server ? "private" : s->sock[0] ? s->sock : s->host);
	for (const char *const *v = vars; *v; v++) {
		snprintf(sql, sizeof(sql), "SELECT @@GLOBAL.%s", *v);
		if (mysql_real_query(m, sql, strlen(sql)))
			continue;
		MYSQL_RES *r = mysql_store_result(m);
		MYSQL_ROW row = r ? mysql_fetch_row(r) : NULL;
		snprintf(key, sizeof(key), "server.%s", *v);
		if (row && row[0])
			s->api->set_info(s->ctx, key, row[0]);
		if (r)
			mysql_free_result(r);
	}
}

/* ------------------------------------------- a local server's process */

/* 1 when the process pid is a MySQL/MariaDB server (by its name). */
static int oltp_is_server(int pid)
{
	char path[64], comm[32] = "";
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, comm, sizeof(comm) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	return !strcmp(comm, "mariadbd") || !strcmp(comm, "mysqld");
}

/* The server's pid from its @@pid_file (a TCP connection to this machine). */
static int oltp_pid_from_file(MYSQL *m)
{
	static const char q[] = "SELECT @@GLOBAL.pid_file, @@GLOBAL.datadir";
	char path[1024] = "", buf[32];
	if (mysql_real_query(m, q, strlen(q)))
		return -1;
	MYSQL_RES *r = mysql_store_result(m);
	MYSQL_ROW row = r ? mysql_fetch_row(r) : NULL;
	if (row && row[0] && row[0][0] == '/')
		snprintf(path, sizeof(path), "%s", row[0]);
	else if (row && row[0] && row[1])	/* relative: to the data directory */
		snprintf(path, sizeof(path), "%s/%s", row[1], row[0]);
	if (r)
		mysql_free_result(r);
	/* O_NONBLOCK and a regular file only: a FIFO there must not hang us */
	int fd = path[0] ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) : -1;
	struct stat st;
	ssize_t n = -1;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		n = read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return atoi(buf);
}

static int oltp_host_local(const char *h)
{
	return !*h || !strcmp(h, "localhost") || !strncmp(h, "127.", 4) || !strcmp(h, "::1") ||
	       !strcmp(h, "[::1]");
}

/* A server on this machine (its unix socket, or loopback) does the
   workload's work: declare it, so its CPU is not "other processes". A
   private server is declared by the host already; a remote one never is. */
void oltp_declare_server(oltp_state *s, MYSQL *m)
{
	const bench_host_api_v1 *api = s->api;
	int pid = -1;
	if (s->private_server || !BENCH_HOST_HAS(api, declare_process))
		return;
	if (s->sock[0]) {	/* the peer of our socket is the server, in our pid namespace */
		struct ucred cr;
		socklen_t len = sizeof(cr);
		int fd = (int)mysql_get_socket(m);
		if (fd >= 0 && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0)
			pid = (int)cr.pid;
	} else if (oltp_host_local(s->host)) {
		pid = oltp_pid_from_file(m);
	}
	if (pid > 0 && oltp_is_server(pid) && api->declare_process(s->ctx, pid, "mariadbd") == BENCH_OK)
		api->log(s->ctx, BENCH_LOG_DEBUG, "the server (pid %d) runs on this machine: its CPU time "
			 "is the workload's", pid);
}
