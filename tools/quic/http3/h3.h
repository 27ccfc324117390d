/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HTTP/3 over kernel QUIC sockets: what the client and the server share.
 *
 * nghttp3 does HTTP/3 framing and QPACK; the kernel does QUIC, including
 * flow control, retransmission and ACKs. Everything nghttp3 hands us is
 * copied by sendmsg(), so it counts as acknowledged as soon as the kernel
 * has queued it.
 */

#ifndef _H3_H
#define _H3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <nghttp3/nghttp3.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif
#ifndef fallthrough
#define fallthrough		__attribute__((__fallthrough__))
#endif

#define H3_ALPN			"h3"
#define H3_RBUF_LEN		65536
/* How long a send waits for flow-control credit before we read again. */
#define H3_SNDTIMEO_MS		10

/**
 * struct h3_conn - one HTTP/3 connection on one QUIC socket
 * @fd: the established QUIC socket
 * @is_server: server role (decides which stream IDs are ours)
 * @h3: the nghttp3 connection, created by the caller
 * @next_bidi: the lowest bidirectional stream ID of ours not opened yet
 * @next_uni: the same for our unidirectional streams
 * @blocked: the last write could not queue everything
 * @ticket: a QUIC_EVENT_NEW_SESSION_TICKET was read (if enabled)
 * @rbuf: receive buffer of %H3_RBUF_LEN bytes
 * @rx_bytes: stream bytes read from the socket
 * @tx_bytes: stream bytes queued on the socket
 */
struct h3_conn {
	int fd;
	bool is_server;
	nghttp3_conn *h3;
	int64_t next_bidi;
	int64_t next_uni;
	bool blocked;
	bool ticket;
	uint8_t *rbuf;
	uint64_t rx_bytes;
	uint64_t tx_bytes;
	uint64_t read_limit;	/* h3_conn_read() returns once rx + tx reach it */
};

int h3_conn_init(struct h3_conn *c, int fd, bool is_server);
int h3_conn_sndtimeo(struct h3_conn *c, int ms);
void h3_conn_release(struct h3_conn *c);
int h3_conn_bind_streams(struct h3_conn *c);
int h3_conn_read(struct h3_conn *c);
int h3_conn_write(struct h3_conn *c);
int h3_conn_wait(struct h3_conn *c, int timeout_ms);
void h3_conn_set_close(struct h3_conn *c, uint64_t app_err);
void h3_conn_callbacks(nghttp3_callbacks *cb);

int h3_cipher_parse(const char *name, uint32_t *type);
const char *h3_cipher_name(uint32_t type);
int h3_set_cipher_hint(int fd, uint32_t type);
int h3_set_cong(int fd, const char *name);
int h3_set_idle(int fd, double secs);
int h3_set_transport(int fd, const char *who, const char *cc, double idle);
int h3_parse_addr(const char *host, const char *port, int passive,
		  struct sockaddr_storage *ss, socklen_t *len);
int h3_parse_hostport(const char *s, struct sockaddr_storage *ss,
		      socklen_t *len);
const char *h3_addr_str(const struct sockaddr *sa, char *buf, size_t len);
double h3_now(void);
int h3_parse_size(const char *s, uint64_t *size);
nghttp3_nv h3_nv(const char *name, const char *value);

#endif /* _H3_H */
