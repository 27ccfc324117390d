/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hsnl: a small client of the "handshake" generic netlink family
 * (net/handshake, Linux 6.5 and later), the upcall through which the
 * kernel hands a socket to a user-space agent for its TLS handshake.
 * Plain netlink sockets, no libnl.
 */

#ifndef _QUIC_AGENT_HSNL_H
#define _QUIC_AGENT_HSNL_H

#include <stdint.h>

#if __has_include("linux/handshake.h")
#include <linux/handshake.h>
#else
/* The uapi of Linux 6.5 and later, absent from older kernel headers. */
#define HANDSHAKE_FAMILY_NAME		"handshake"
#define HANDSHAKE_FAMILY_VERSION	1
#define HANDSHAKE_MCGRP_TLSHD		"tlshd"

enum handshake_handler_class {
	HANDSHAKE_HANDLER_CLASS_NONE,
	HANDSHAKE_HANDLER_CLASS_TLSHD,
};

enum handshake_msg_type {
	HANDSHAKE_MSG_TYPE_UNSPEC,
	HANDSHAKE_MSG_TYPE_CLIENTHELLO,
	HANDSHAKE_MSG_TYPE_SERVERHELLO,
};

enum handshake_auth {
	HANDSHAKE_AUTH_UNSPEC,
	HANDSHAKE_AUTH_UNAUTH,
	HANDSHAKE_AUTH_PSK,
	HANDSHAKE_AUTH_X509,
};

enum {
	HANDSHAKE_A_X509_CERT = 1,
	HANDSHAKE_A_X509_PRIVKEY,
};

enum {
	HANDSHAKE_A_ACCEPT_SOCKFD = 1,
	HANDSHAKE_A_ACCEPT_HANDLER_CLASS,
	HANDSHAKE_A_ACCEPT_MESSAGE_TYPE,
	HANDSHAKE_A_ACCEPT_TIMEOUT,
	HANDSHAKE_A_ACCEPT_AUTH_MODE,
	HANDSHAKE_A_ACCEPT_PEER_IDENTITY,
	HANDSHAKE_A_ACCEPT_CERTIFICATE,
	HANDSHAKE_A_ACCEPT_PEERNAME,
};

enum {
	HANDSHAKE_A_DONE_STATUS = 1,
	HANDSHAKE_A_DONE_SOCKFD,
	HANDSHAKE_A_DONE_REMOTE_AUTH,
};

enum {
	HANDSHAKE_CMD_READY = 1,
	HANDSHAKE_CMD_ACCEPT,
	HANDSHAKE_CMD_DONE,
};
#endif

/* The kernel sends at most five (struct tls_handshake_req). */
#define HSNL_PEERIDS_MAX	5
#define HSNL_PEERNAME_MAX	256

struct hsnl {
	int		fd;	/* requests and their answers */
	int		mcfd;	/* READY notifications, after hsnl_join() */
	uint16_t	family;
	uint32_t	group;
	uint32_t	seq;
};

/* One accepted request: what the ACCEPT answer says. */
struct hsnl_accept {
	int		sockfd;		/* installed in this process, or -1 */
	uint32_t	type;		/* HANDSHAKE_MSG_TYPE_* */
	uint32_t	timeout_ms;	/* 0: none given */
	uint32_t	auth;		/* HANDSHAKE_AUTH_* */
	unsigned int	npeerids;
	int32_t		peerids[HSNL_PEERIDS_MAX];
	int32_t		cert;		/* key serials, 0: none */
	int32_t		privkey;
	char		peername[HSNL_PEERNAME_MAX];	/* "": none */
};

int hsnl_open(struct hsnl *nl);
int hsnl_join(struct hsnl *nl);
void hsnl_close(struct hsnl *nl);
int hsnl_wait_ready(struct hsnl *nl, int timeout_ms);
int hsnl_accept(struct hsnl *nl, struct hsnl_accept *req);
int hsnl_done(struct hsnl *nl, int sockfd, unsigned int status,
	      int32_t remote_auth);

#endif /* _QUIC_AGENT_HSNL_H */
