/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the ALPN list of a client's ClientHello (net/quic/alpn.c), read
 * from the frames of its first Initial so that listeners sharing an
 * address and port can be told apart (quic-api.rst 7.4).
 *
 * Pure functions over bytes: no socket, no skb, no allocation.
 */

#ifndef __NET_QUIC_ALPN_H
#define __NET_QUIC_ALPN_H

#include <linux/types.h>

/* Longest ALPN extension list we accept (quic-api.rst 7.4). */
#define QUIC_ALPN_HELLO_MAX_LIST	128
/* More extensions than this make a ClientHello malformed. */
#define QUIC_ALPN_HELLO_MAX_EXTS	64

/**
 * enum quic_alpn_hello - what the ClientHello says about ALPN
 * @QUIC_ALPN_HELLO_LIST: it has an ALPN extension; its protocol name list
 *	(length-prefixed names, TLS wire form) was returned
 * @QUIC_ALPN_HELLO_NONE: it was parsed to the end and has no ALPN
 *	extension
 * @QUIC_ALPN_HELLO_UNKNOWN: no CRYPTO frame at offset 0, or the bytes end
 *	(the ClientHello spans packets) before the extensions are read
 * @QUIC_ALPN_HELLO_ABSENT: the Initial has no CRYPTO frame at all, only
 *	PADDING and PING up to its end or to a CONNECTION_CLOSE: it cannot
 *	begin a connection
 */
enum quic_alpn_hello {
	QUIC_ALPN_HELLO_LIST,
	QUIC_ALPN_HELLO_NONE,
	QUIC_ALPN_HELLO_UNKNOWN,
	QUIC_ALPN_HELLO_ABSENT,
};

int quic_alpn_client_hello(const u8 *msg, u32 len, const u8 **list,
			   u32 *list_len);
int quic_alpn_initial_frames(const u8 *frames, u32 len, const u8 **list,
			     u32 *list_len);
bool quic_alpn_list_has(const u8 *list, u32 list_len, const u8 *name,
			u32 name_len);

/* What quic_alpn_list_cmp() finds. */
#define QUIC_ALPN_SAME		0
#define QUIC_ALPN_DISJOINT	1
#define QUIC_ALPN_OVERLAP	2

int quic_alpn_list_cmp(const u8 *a, u32 alen, const u8 *b, u32 blen);

#endif /* __NET_QUIC_ALPN_H */
