/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: module and per network namespace state (net/quic/protocol.c).
 */

#ifndef __NET_QUIC_PROTOCOL_H
#define __NET_QUIC_PROTOCOL_H

#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/quic/hash.h>

/**
 * struct quic_net - per network namespace state
 * @hash_key: secret key of the tables keyed by values a peer chooses
 */
struct quic_net {
	struct quic_hash_key	hash_key;
};

extern unsigned int quic_net_id;

static inline struct quic_net *quic_net(const struct net *net)
{
	return net_generic(net, quic_net_id);
}

#endif /* __NET_QUIC_PROTOCOL_H */
