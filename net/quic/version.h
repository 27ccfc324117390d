/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: version negotiation (RFC 9000 6, RFC 9368), net/quic/version.c.
 */
#ifndef __NET_QUIC_VERSION_H
#define __NET_QUIC_VERSION_H

#include <linux/types.h>
#include "packet.h"

/**
 * struct quic_vn - the version of a connection and its negotiation
 * @version: the QUIC version in use
 * @probe: client: QUIC_SOCKOPT_CONFIG's version is one we do not speak;
 *	the long headers carry it, the packets are protected as @version
 *	(V1), until Version Negotiation names one we speak
 * @flip: client: @version is to become the other version we speak, and
 *	the Initial keys to be derived for it (process context: keyupdate.c's
 *	work item)
 * @resend: client: after Version Negotiation, the Initials go again in
 *	the version chosen (with @flip's keys, if any)
 * @changed: the version changed once (Version Negotiation, or compatible
 *	negotiation, RFC 9368); it changes no more
 * @acted: client: it sent its first flight again after Version
 *	Negotiation (the server's version_information is checked for it)
 *
 * Owned by version.c: other files read it and set it only through the
 * helpers below.
 */
struct quic_vn {
	u32	version;
	u8	probe:1,
		flip:1,
		resend:1,
		changed:1,
		acted:1;
};

/**
 * quic_vn_init() - the version a connection starts with
 * @vn: its version state
 * @version: a version we speak (a server's comes from the client's Initial)
 */
static inline void quic_vn_init(struct quic_vn *vn, u32 version)
{
	vn->version = version;
}

/**
 * quic_vn_client_init() - a client's version from QUIC_SOCKOPT_CONFIG
 * @vn: its version state
 * @version: the configured version, 0 for the default
 *
 * V1 or V2 (RFC 9369) go in the first Initial; another one goes on the
 * wire, protected as V1, until Version Negotiation.
 */
static inline void quic_vn_client_init(struct quic_vn *vn, u32 version)
{
	if (quic_version_supported(version))
		vn->version = version;
	else if (version)
		vn->probe = 1;
}

struct sock;
struct quic_pkt_hdr;
struct quic_tparams;

/**
 * struct quic_version_move - a client's move to another version, from
 *	quic_version_apply() to quic_version_settle()
 * @largest: the largest packet number the Initial space took before it
 * @flip: the version changes
 * @resend: after Version Negotiation: the first flight goes again
 * @any: the Initial space took a packet before it
 */
struct quic_version_move {
	u64	largest;
	bool	flip;
	bool	resend;
	bool	any;
};

u32 quic_version_wire(const struct sock *sk);
int quic_version_vn_rcvd(struct sock *sk, const struct quic_pkt_hdr *h);
bool quic_version_rcvd(struct sock *sk, const struct quic_pkt_hdr *h);
bool quic_version_apply(struct sock *sk, struct quic_version_move *m);
void quic_version_settle(struct sock *sk, const struct quic_version_move *m);
int quic_version_upgrade(struct sock *sk, const struct quic_tparams *tp);
int quic_version_check_peer(struct sock *sk, const struct quic_tparams *tp);

#endif /* __NET_QUIC_VERSION_H */
