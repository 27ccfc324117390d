// SPDX-License-Identifier: GPL-2.0
/*
 * quic-agent: the TLS 1.3 handshake of kernel QUIC sockets, in user space.
 *
 * A kernel user of QUIC (net/quic/handshake.c) asks for its handshake
 * through the handshake upcall (net/handshake, Linux 6.5 and later), as
 * the kernel's TLS users ask tlshd. This daemon joins the upcall's
 * "tlshd" group and, on each READY notification, on start and every
 * second, accepts the pending requests: the kernel installs the socket
 * in this process and names the keys to use. For each request a child
 * runs the handshake with libquic and GnuTLS and reports it (DONE). The
 * parent keeps its copy of the socket until the child exits and answers
 * for a child that died without answering (EIO, ETIMEDOUT when its
 * alarm fired), so no request is left unanswered.
 *
 * The keys are key serials. The parent reads them right after ACCEPT:
 * the kernel links the user's keyring into the process keyring of the
 * process that accepted, and a forked child has a process keyring of its
 * own. PSK: the key's description is the identity, its payload the key.
 * X.509: the certificate and private key payloads, PEM or DER. A client
 * verifies the server's certificate against --cafile or the system's
 * trust, and its name against the request's peer name.
 *
 * The ALPN list and a client's session ticket come from the socket's
 * SOL_QUIC options. A request for a socket that is not IPPROTO_QUIC is
 * a plain TLS one, for tlshd: it is failed with EPROTONOSUPPORT.
 * Requests belong to a network namespace: the agent serves its own.
 *
 *   quic-agent [-d | -f] [-v] [--cafile FILE] [--once]
 */

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/keyctl.h>
#include <linux/tls.h>
#include <gnutls/gnutls.h>

#include <netinet/quic.h>

#include "hsnl.h"

#define AGENT_CHILDREN_MAX	128
#define AGENT_TIMEOUT_MS	30000
#define AGENT_KEY_MAX		(1024 * 1024)
#define AGENT_ALPN_MAX		128	/* the kernel's longest list */
#define AGENT_TICKET_MAX	4096

struct agent_keys {
	char		*identity;	/* PSK: the key's description */
	gnutls_datum_t	psk;
	gnutls_datum_t	cert;
	gnutls_datum_t	privkey;
};

struct agent_child {
	pid_t	pid;
	int	fd;
};

static struct {
	bool		daemon;
	bool		verbose;
	bool		once;
	const char	*cafile;
} opts;

static struct hsnl nl;
static struct agent_child children[AGENT_CHILDREN_MAX];
static unsigned int nchildren;
static bool use_syslog;
static sigset_t oldmask;
static int sigfd = -1;

static void agent_log(int prio, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (prio == LOG_DEBUG && !opts.verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (use_syslog)
		syslog(prio, "%s", msg);
	else
		fprintf(stderr, "quic-agent[%d]: %s\n", getpid(), msg);
}

static void agent_quic_log(int level, const char *msg)
{
	agent_log(level, "libquic: %s", msg);
}

/* Report @status (0 or a positive errno) for @fd, with this process's socket. */
static void agent_done(struct hsnl *h, int fd, unsigned int status,
		       int32_t remote)
{
	int err = hsnl_done(h, fd, status, remote);

	if (err)
		agent_log(LOG_ERR, "done fd=%d status=%u: %s", fd, status,
			  strerror(-err));
	else
		agent_log(LOG_INFO, "done status=%u fd=%d", status, fd);
}

/* A key's payload (KEYCTL_READ) or description (KEYCTL_DESCRIBE), NUL-terminated. */
static int agent_key(int32_t serial, int cmd, gnutls_datum_t *out)
{
	long n, m;
	char *buf;

	n = syscall(SYS_keyctl, cmd, serial, NULL, 0, 0);
	for (;;) {
		if (n < 0)
			return -errno;
		if (n > AGENT_KEY_MAX)
			return -EFBIG;
		buf = malloc(n + 1);
		if (!buf)
			return -ENOMEM;
		m = syscall(SYS_keyctl, cmd, serial, buf, n, 0);
		if (m >= 0 && m <= n)
			break;
		gnutls_memset(buf, 0, n);
		free(buf);
		n = m;	/* grew meanwhile, or an error */
	}
	buf[m] = '\0';
	out->data = (unsigned char *)buf;
	out->size = m;
	return 0;
}

static void agent_datum_free(gnutls_datum_t *d)
{
	if (d->data) {
		gnutls_memset(d->data, 0, d->size);
		free(d->data);
	}
	d->data = NULL;
	d->size = 0;
}

static void agent_keys_free(struct agent_keys *k)
{
	free(k->identity);
	k->identity = NULL;
	agent_datum_free(&k->psk);
	agent_datum_free(&k->cert);
	agent_datum_free(&k->privkey);
}

static int agent_keys_read(const struct hsnl_accept *req, struct agent_keys *k)
{
	gnutls_datum_t desc;
	char *p;
	int i, err;

	memset(k, 0, sizeof(*k));
	if (req->auth == HANDSHAKE_AUTH_PSK) {
		if (!req->npeerids)
			return -ENOKEY;
		err = agent_key(req->peerids[0], KEYCTL_DESCRIBE, &desc);
		if (err)
			return err;
		/* "type;uid;gid;perm;description" */
		p = (char *)desc.data;
		for (i = 0; p && i < 4; i++) {
			p = strchr(p, ';');
			if (p)
				p++;
		}
		if (p && *p)
			k->identity = strdup(p);
		free(desc.data);
		if (!k->identity)
			return p && *p ? -ENOMEM : -EINVAL;
		err = agent_key(req->peerids[0], KEYCTL_READ, &k->psk);
	} else if (req->cert || req->privkey) {
		err = agent_key(req->cert, KEYCTL_READ, &k->cert);
		if (!err)
			err = agent_key(req->privkey, KEYCTL_READ, &k->privkey);
	} else {
		return 0;
	}
	if (err)
		agent_keys_free(k);
	return err;
}

static int agent_psk_cb(gnutls_session_t s, const gnutls_datum_t *id,
			gnutls_datum_t *key)
{
	const struct agent_keys *k = gnutls_session_get_ptr(s);

	if (id->size != strlen(k->identity) ||
	    memcmp(id->data, k->identity, id->size)) {
		agent_log(LOG_ERR, "unknown PSK identity from the client");
		return -1;
	}
	key->data = gnutls_malloc(k->psk.size);
	if (!key->data)
		return -1;
	memcpy(key->data, k->psk.data, k->psk.size);
	key->size = k->psk.size;
	return 0;
}

/* A GnuTLS error while building the session: logged, as a negative errno. */
static int agent_tls_err(const char *what, int ret)
{
	agent_log(LOG_ERR, "%s: %s", what, gnutls_strerror(ret));
	return ret == GNUTLS_E_MEMORY_ERROR ? -ENOMEM : -EINVAL;
}

struct agent_creds {
	gnutls_certificate_credentials_t	x509;
	gnutls_psk_client_credentials_t		psk_client;
	gnutls_psk_server_credentials_t		psk_server;
};

static int agent_psk(gnutls_session_t s, bool server, struct agent_keys *k,
		     struct agent_creds *c)
{
	gnutls_datum_t id = {
		.data = (unsigned char *)k->identity,
		.size = strlen(k->identity),
	};
	int ret;

	gnutls_session_set_ptr(s, k);
	if (server) {
		ret = gnutls_psk_allocate_server_credentials(&c->psk_server);
		if (ret)
			return agent_tls_err("PSK", ret);
		gnutls_psk_set_server_credentials_function2(c->psk_server,
							    agent_psk_cb);
		ret = gnutls_credentials_set(s, GNUTLS_CRD_PSK, c->psk_server);
	} else {
		ret = gnutls_psk_allocate_client_credentials(&c->psk_client);
		if (ret)
			return agent_tls_err("PSK", ret);
		ret = gnutls_psk_set_client_credentials2(c->psk_client, &id,
							 &k->psk,
							 GNUTLS_PSK_KEY_RAW);
		if (!ret)
			ret = gnutls_credentials_set(s, GNUTLS_CRD_PSK,
						     c->psk_client);
	}
	return ret ? agent_tls_err("PSK", ret) : 0;
}

static int agent_x509(gnutls_session_t s, bool server, uint8_t cert_request,
		      const struct hsnl_accept *req, struct agent_keys *k,
		      struct agent_creds *c)
{
	bool verify = !server || cert_request;
	int ret;

	ret = gnutls_certificate_allocate_credentials(&c->x509);
	if (ret)
		return agent_tls_err("X.509", ret);
	if (k->cert.data) {
		ret = gnutls_certificate_set_x509_key_mem2(c->x509, &k->cert,
							   &k->privkey,
							   GNUTLS_X509_FMT_PEM,
							   NULL, 0);
		if (ret < 0)
			ret = gnutls_certificate_set_x509_key_mem2(c->x509,
								   &k->cert,
								   &k->privkey,
								   GNUTLS_X509_FMT_DER,
								   NULL, 0);
		if (ret < 0)
			return agent_tls_err("certificate or private key", ret);
	} else if (server) {
		agent_log(LOG_ERR, "server request without a certificate");
		return -ENOKEY;
	}
	if (verify && opts.cafile)
		ret = gnutls_certificate_set_x509_trust_file(c->x509,
							     opts.cafile,
							     GNUTLS_X509_FMT_PEM);
	else if (verify)
		ret = gnutls_certificate_set_x509_system_trust(c->x509);
	if (verify && ret <= 0)
		agent_log(LOG_ERR, "no trust anchors from %s: %s",
			  opts.cafile ? opts.cafile : "the system",
			  ret ? gnutls_strerror(ret) : "none");
	if (server && cert_request)
		gnutls_certificate_server_set_request(s, cert_request == 1 ?
						      GNUTLS_CERT_REQUEST :
						      GNUTLS_CERT_REQUIRE);
	if (verify)
		gnutls_session_set_verify_cert(s, !server && req->peername[0] ?
					       req->peername : NULL, 0);
	ret = gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, c->x509);
	return ret ? agent_tls_err("X.509", ret) : 0;
}

/* QUIC_PRIORITY, or only the cipher a QUIC_SOCKOPT_CONFIG hint names. */
static int agent_priority(gnutls_session_t s, uint32_t cipher)
{
	char prio[sizeof(QUIC_PRIORITY) + 32];
	const char *name = NULL;

	switch (cipher) {
	case TLS_CIPHER_AES_GCM_128:
		name = "AES-128-GCM";
		break;
	case TLS_CIPHER_AES_GCM_256:
		name = "AES-256-GCM";
		break;
	case TLS_CIPHER_CHACHA20_POLY1305:
		name = "CHACHA20-POLY1305";
		break;
	case TLS_CIPHER_AES_CCM_128:
		name = "AES-128-CCM";
		break;
	}
	if (name)
		snprintf(prio, sizeof(prio), "%s:-CIPHER-ALL:+%s",
			 QUIC_PRIORITY, name);
	else
		snprintf(prio, sizeof(prio), "%s", QUIC_PRIORITY);
	return gnutls_priority_set_direct(s, prio, NULL);
}

/* The session tickets: a client resumes, a server issues with the socket's key. */
static void agent_ticket(gnutls_session_t s, int fd, bool server)
{
	unsigned char buf[AGENT_TICKET_MAX];
	socklen_t len = sizeof(buf);
	gnutls_datum_t key;
	int ret;

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, buf, &len) ||
	    !len)
		return;
	if (server) {
		key.data = buf;
		key.size = len;
		ret = gnutls_session_ticket_enable_server(s, &key);
	} else {
		ret = quic_session_set_data(s, buf, len);
	}
	if (ret)
		agent_log(LOG_NOTICE, "session ticket not used: %s",
			  gnutls_strerror(ret));
	gnutls_memset(buf, 0, len);
}

/* The handshake of one request. Return: 0, or the negative errno for DONE. */
static int agent_handshake(const struct hsnl_accept *req,
			   struct agent_keys *k)
{
	bool server = req->type == HANDSHAKE_MSG_TYPE_SERVERHELLO;
	struct agent_creds c = { .x509 = NULL };
	char alpn[AGENT_ALPN_MAX + 1];
	struct quic_config cfg = { 0 };
	int fd = req->sockfd, err;
	gnutls_session_t s;
	socklen_t len;
	size_t alen;

	len = sizeof(cfg);
	getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg, &len);
	err = gnutls_init(&s, GNUTLS_NO_END_OF_EARLY_DATA |
			  (server ? GNUTLS_SERVER | GNUTLS_NO_AUTO_SEND_TICKET :
				    GNUTLS_CLIENT));
	if (err)
		return agent_tls_err("session", err);
	err = agent_priority(s, cfg.payload_cipher_type);
	if (err) {
		err = agent_tls_err("priorities", err);
		goto out;
	}
	gnutls_transport_set_int(s, fd);

	len = AGENT_ALPN_MAX;
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_ALPN, alpn, &len))
		len = 0;
	if (len && quic_session_set_alpn(s, alpn, len)) {
		agent_log(LOG_ERR, "bad ALPN list \"%.*s\"", (int)len, alpn);
		err = -EINVAL;
		goto out;
	}
	if (req->auth == HANDSHAKE_AUTH_PSK)
		err = agent_psk(s, server, k, &c);
	else
		err = agent_x509(s, server, cfg.certificate_request, req, k,
				 &c);
	if (err)
		goto out;
	if (!server && req->peername[0]) {
		err = gnutls_server_name_set(s, GNUTLS_NAME_DNS, req->peername,
					     strlen(req->peername));
		if (err) {
			err = agent_tls_err("server name", err);
			goto out;
		}
	}
	agent_ticket(s, fd, server);

	err = quic_handshake(s);
	if (err) {
		agent_log(LOG_ERR, "handshake failed fd=%d: %s", fd,
			  strerror(-err));
		if (err == -EPROTO)	/* TLS, so also authentication */
			err = -EACCES;
		goto out;
	}
	alen = sizeof(alpn) - 1;
	if (quic_session_get_alpn(s, alpn, &alen))
		alen = 0;
	alpn[alen] = '\0';
	if (len && !alen) {
		agent_log(LOG_ERR, "handshake failed fd=%d: no ALPN", fd);
		err = -EACCES;
		goto out;
	}
	agent_log(LOG_INFO, "handshake done fd=%d alpn=%s cipher=%s%s", fd,
		  alen ? alpn : "-",
		  gnutls_cipher_get_name(gnutls_cipher_get(s)),
		  gnutls_session_is_resumed(s) ? " resumed" : "");
out:
	gnutls_deinit(s);
	if (c.x509)
		gnutls_certificate_free_credentials(c.x509);
	if (c.psk_client)
		gnutls_psk_free_client_credentials(c.psk_client);
	if (c.psk_server)
		gnutls_psk_free_server_credentials(c.psk_server);
	return err;
}

/* The child: handshake, DONE. Exits 0 once the kernel has the answer. */
static void agent_child(const struct hsnl_accept *req, struct agent_keys *k)
{
	unsigned int ms = req->timeout_ms ? req->timeout_ms : AGENT_TIMEOUT_MS;
	struct hsnl cnl;
	unsigned int i;
	int status, err;

	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	alarm((ms + 999) / 1000);
	close(sigfd);
	hsnl_close(&nl);
	for (i = 0; i < nchildren; i++)
		close(children[i].fd);
	err = hsnl_open(&cnl);
	if (err) {
		agent_log(LOG_ERR, "netlink: %s", strerror(-err));
		_exit(2);
	}
	status = -agent_handshake(req, k);
	err = hsnl_done(&cnl, req->sockfd, status,
			!status && req->auth == HANDSHAKE_AUTH_PSK ?
			req->peerids[0] : 0);
	agent_keys_free(k);
	if (err)
		agent_log(LOG_ERR, "done fd=%d status=%d: %s", req->sockfd,
			  status, strerror(-err));
	else
		agent_log(LOG_INFO, "done status=%d fd=%d", status,
			  req->sockfd);
	/* -EBUSY: the request is gone (answered or cancelled). */
	_exit(err && err != -EBUSY ? 2 : 0);
}

static const char *agent_auth_name(uint32_t auth)
{
	switch (auth) {
	case HANDSHAKE_AUTH_UNAUTH:
		return "unauth";
	case HANDSHAKE_AUTH_PSK:
		return "psk";
	case HANDSHAKE_AUTH_X509:
		return "x509";
	}
	return "unknown";
}

/* Drop the link to the user's keyring the kernel made for ACCEPT, so
 * that no later request (or child) sees it.
 */
static void agent_unlink_keyring(void)
{
	syscall(SYS_keyctl, KEYCTL_CLEAR, KEY_SPEC_PROCESS_KEYRING, 0, 0, 0);
}

/* Check a request, read its keys and hand it to a child. */
static void agent_start(const struct hsnl_accept *req)
{
	struct agent_keys k;
	int proto = 0, err;
	socklen_t len = sizeof(proto);
	pid_t pid;

	agent_log(LOG_INFO,
		  "accepted fd=%d type=%s auth=%s timeout=%u peername=%s",
		  req->sockfd,
		  req->type == HANDSHAKE_MSG_TYPE_CLIENTHELLO ? "client" :
		  req->type == HANDSHAKE_MSG_TYPE_SERVERHELLO ? "server" : "?",
		  agent_auth_name(req->auth), req->timeout_ms,
		  req->peername[0] ? req->peername : "-");
	if (getsockopt(req->sockfd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) ||
	    proto != IPPROTO_QUIC) {
		agent_log(LOG_ERR,
			  "handshake failed fd=%d: protocol %d is not QUIC (a TLS request, for tlshd)",
			  req->sockfd, proto);
		err = -EPROTONOSUPPORT;
	} else if (req->type != HANDSHAKE_MSG_TYPE_CLIENTHELLO &&
		   req->type != HANDSHAKE_MSG_TYPE_SERVERHELLO) {
		agent_log(LOG_ERR, "handshake failed fd=%d: message type %u",
			  req->sockfd, req->type);
		err = -EINVAL;
	} else {
		err = agent_keys_read(req, &k);
		if (err)
			agent_log(LOG_ERR, "handshake failed fd=%d: keys: %s",
				  req->sockfd, strerror(-err));
	}
	agent_unlink_keyring();
	if (err)
		goto answer;

	pid = fork();
	if (!pid)
		agent_child(req, &k);
	err = -errno;
	agent_keys_free(&k);
	if (pid > 0) {
		children[nchildren].pid = pid;
		children[nchildren].fd = req->sockfd;
		nchildren++;
		return;
	}
	agent_log(LOG_ERR, "handshake failed fd=%d: fork: %s", req->sockfd,
		  strerror(-err));
answer:
	agent_done(&nl, req->sockfd, -err, 0);
	close(req->sockfd);
}

/* Accept requests until none is pending. Return: the number taken, or -errno. */
static int agent_serve(unsigned int max)
{
	struct hsnl_accept req;
	int n = 0, err;

	while (nchildren < AGENT_CHILDREN_MAX && (unsigned int)n < max) {
		err = hsnl_accept(&nl, &req);
		if (err == -EAGAIN)
			break;
		if (err) {
			agent_log(LOG_ERR, "accept: %s", strerror(-err));
			if (req.sockfd < 0)
				return n ? n : err;
			/* A request we cannot read is still answered. */
			agent_unlink_keyring();
			agent_done(&nl, req.sockfd, EINVAL, 0);
			close(req.sockfd);
			n++;
			continue;
		}
		n++;
		agent_start(&req);
	}
	return n;
}

/* Reap children; answer for each one that did not (it exited non-zero). */
static void agent_reap(bool block)
{
	unsigned int i, status;
	int ws;
	pid_t pid;

	while (nchildren && (pid = waitpid(-1, &ws, block ? 0 : WNOHANG)) > 0) {
		for (i = 0; i < nchildren && children[i].pid != pid; i++)
			;
		if (i == nchildren)
			continue;
		status = 0;
		if (WIFSIGNALED(ws) && WTERMSIG(ws) == SIGALRM)
			status = ETIMEDOUT;
		else if (!WIFEXITED(ws) || WEXITSTATUS(ws))
			status = EIO;
		if (status) {
			agent_log(LOG_ERR,
				  "handshake failed fd=%d: child %d %s %d",
				  children[i].fd, pid,
				  WIFSIGNALED(ws) ? "killed by signal" :
						    "exited with",
				  WIFSIGNALED(ws) ? WTERMSIG(ws) :
						    WEXITSTATUS(ws));
			agent_done(&nl, children[i].fd, status, 0);
		}
		close(children[i].fd);
		children[i] = children[--nchildren];
	}
}

/* Read the pending signals. Return: true when asked to stop. */
static bool agent_signals(void)
{
	struct signalfd_siginfo si;
	bool stop = false;

	while (read(sigfd, &si, sizeof(si)) == sizeof(si))
		if (si.ssi_signo != SIGCHLD)
			stop = true;
	return stop;
}

static void agent_usage(FILE *f)
{
	fprintf(f,
		"usage: quic-agent [-d | -f] [-v] [--cafile FILE] [--once]\n"
		"Serves the kernel's handshake upcall for QUIC sockets.\n"
		"  -d, --daemon     run in the background, log to syslog\n"
		"  -f, --foreground stay in the foreground, log to stderr (default)\n"
		"  -v, --verbose    log more, libquic's debug messages too\n"
		"  --cafile FILE    trust anchors (PEM) to verify a server with\n"
		"                   (default: the system's)\n"
		"  --once           serve one request, then exit\n"
		"  -h, --help       this text\n");
}

static int agent_options(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "daemon", no_argument, NULL, 'd' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "cafile", required_argument, NULL, 'c' },
		{ "once", no_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "dfvh", lopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			opts.daemon = true;
			break;
		case 'f':
			opts.daemon = false;
			break;
		case 'v':
			opts.verbose = true;
			break;
		case 'c':
			opts.cafile = optarg;
			break;
		case 'o':
			opts.once = true;
			break;
		case 'h':
			agent_usage(stdout);
			exit(0);
		default:
			agent_usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		agent_usage(stderr);
		return -1;
	}
	if (opts.cafile && access(opts.cafile, R_OK)) {
		fprintf(stderr, "quic-agent: %s: %s\n", opts.cafile,
			strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct pollfd pfd[2];
	unsigned int served = 0, i;
	bool stop = false;
	sigset_t mask;
	int err;

	if (agent_options(argc, argv))
		return 2;
	quic_set_log_func(agent_quic_log);
	quic_set_log_level(opts.verbose ? LOG_DEBUG : LOG_ERR);

	/* Before daemon(): what keeps the agent from starting goes to stderr. */
	err = hsnl_open(&nl);
	if (err == -ENOENT) {
		agent_log(LOG_ERR,
			  "this kernel has no \"handshake\" netlink family (net/handshake, CONFIG_NET_HANDSHAKE, Linux 6.5 or later)");
		return 1;
	}
	if (!err)
		err = hsnl_join(&nl);
	if (err) {
		agent_log(LOG_ERR, "handshake netlink: %s", strerror(-err));
		return 1;
	}
	if (opts.daemon) {
		if (daemon(0, 0)) {
			perror("quic-agent: daemon");
			return 1;
		}
		openlog("quic-agent", LOG_PID, LOG_DAEMON);
		use_syslog = true;
	}

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &oldmask);
	sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sigfd < 0) {
		agent_log(LOG_ERR, "signalfd: %s", strerror(errno));
		return 1;
	}
	agent_log(LOG_INFO, "serving handshake requests (family %u group %u)",
		  nl.family, nl.group);

	pfd[0].fd = nl.mcfd;
	pfd[0].events = POLLIN;
	pfd[1].fd = sigfd;
	pfd[1].events = POLLIN;
	while (!stop) {
		err = agent_serve(opts.once ? 1 - served : ~0u);
		if (err == -EPERM) {
			agent_log(LOG_ERR, "accept needs CAP_NET_ADMIN");
			break;
		}
		if (err > 0)
			served += err;
		if (opts.once && served && !nchildren)
			break;
		if (poll(pfd, 2, 1000) < 0 && errno != EINTR) {
			agent_log(LOG_ERR, "poll: %s", strerror(errno));
			break;
		}
		stop = agent_signals();
		hsnl_wait_ready(&nl, 0);
		agent_reap(false);
	}

	/* Children still running: stop them, answer their requests. */
	for (i = 0; i < nchildren; i++)
		kill(children[i].pid, SIGKILL);
	agent_reap(true);
	hsnl_close(&nl);
	agent_log(LOG_INFO, "exiting");
	return err == -EPERM ? 1 : 0;
}
