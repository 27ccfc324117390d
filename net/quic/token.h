/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: address validation tokens (RFC 9000 section 8.1), net/quic/token.c.
 *
 * A token is self-contained and stateless, the QUIC counterpart of a SYN
 * cookie: a server keeps nothing per token and checks one by recomputing
 * its MAC.  Tokens of a Retry bind the client's address and port, the
 * original DCID, the SCID of the Retry and the time; tokens of NEW_TOKEN frames bind the
 * client's address (not its port, which a later connection changes) and
 * the time.
 */
#ifndef __NET_QUIC_TOKEN_H
#define __NET_QUIC_TOKEN_H

#include <linux/siphash.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include "cid.h"
#include "udp.h"

/* Token kinds: the first byte is (kind << 1) | key slot. */
#define QUIC_TOKEN_RETRY		1
#define QUIC_TOKEN_NEW			2

/* Lifetimes in seconds. The draft's implementation gives 3 s for
 * a Retry token; a client's Initial with the token can take longer to
 * come back on a loaded host or a lossy path (its Initial keys are
 * derived in process context, its PTO backs off: 1, 2, 4, 8 and 16 s
 * from a 333 ms initial RTT), and a Retry token opens one connection
 * only, from one address and port, so it lives 30 s: four Initials lost
 * after the Retry still leave the fifth in time. At 10 s, a client whose
 * Initials a flood dropped at the listener's backlog three times met
 * INVALID_TOKEN.
 */
#define QUIC_TOKEN_RETRY_LIFETIME	30
#define QUIC_TOKEN_NEW_LIFETIME		600
/* The MAC key is replaced this often; the one before is kept. */
#define QUIC_TOKEN_ROTATE		QUIC_TOKEN_NEW_LIFETIME

#define QUIC_TOKEN_MAC_LEN		16
#define QUIC_TOKEN_BIND_LEN		8
#define QUIC_TOKEN_NONCE_LEN		8
/* kind, time, ODCID length, ODCID, bind, MAC */
#define QUIC_TOKEN_RETRY_MAX_LEN	(1 + 4 + 1 + QUIC_CID_MAX_LEN + \
					 QUIC_TOKEN_BIND_LEN + \
					 QUIC_TOKEN_MAC_LEN)
/* kind, time, nonce, bind, MAC */
#define QUIC_TOKEN_NEW_LEN		(1 + 4 + QUIC_TOKEN_NONCE_LEN + \
					 QUIC_TOKEN_BIND_LEN + \
					 QUIC_TOKEN_MAC_LEN)

/**
 * struct quic_token_key - the rotating MAC key of a namespace's tokens
 * @key: the current key and the one before it
 * @since: boot time in seconds when @key[@cur] was drawn
 * @cur: the slot of the current key
 * @lock: serialises rotations
 * @ticket: the secret of session-ticket keys (quic_token_ticket_key()),
 *	drawn once: a ticket key must outlive the tickets made with it
 */
struct quic_token_key {
	siphash_key_t	key[2];
	u64		since;
	u8		cur;
	spinlock_t	lock;	/* rotation */
	u8		ticket[32];
};

/* Bytes of a session-ticket key (gnutls_session_ticket_enable_server()). */
#define QUIC_TICKET_KEY_LEN		64

void quic_token_key_init(struct quic_token_key *k, u64 now);
void quic_token_key_exit(struct quic_token_key *k);
int quic_token_make(struct quic_token_key *k, u8 kind, u8 *buf,
		    const union quic_addr *peer, const struct quic_cid *odcid,
		    const struct quic_cid *rscid, const u8 *nonce, u64 now);
int quic_token_check(const struct quic_token_key *k, const u8 *tok, u32 len,
		     const union quic_addr *peer, const struct quic_cid *dcid,
		     struct quic_cid *odcid, u64 now);
u8 quic_token_kind(const u8 *tok, u32 len);
void quic_token_ticket_key(const struct quic_token_key *k,
			   const union quic_addr *local,
			   const union quic_addr *peer, u8 *key);
u64 quic_token_now(void);

#endif /* __NET_QUIC_TOKEN_H */
