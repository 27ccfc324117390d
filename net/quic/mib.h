/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: per network namespace MIB counters (net/quic/mib.c), shown in
 * /proc/net/quic/snmp.
 */

#ifndef __NET_QUIC_MIB_H
#define __NET_QUIC_MIB_H

#include <net/net_namespace.h>
#include <net/snmp.h>
#include <trace/events/quic.h>

/**
 * enum quic_mib_field - the QUIC counters
 * @QUIC_MIB_PKT_IN: UDP datagrams received on a QUIC UDP socket
 * @QUIC_MIB_PKT_OUT: UDP datagrams sent from a QUIC UDP socket
 * @QUIC_MIB_DROP_MALFORMED: received datagrams dropped as malformed
 * @QUIC_MIB_DROP_NOCONN: received datagrams dropped for want of a
 *	connection or listener to take them
 * @QUIC_MIB_DROP_BACKLOG: received datagrams dropped because the queue
 *	that was to take them was full (the socket backlog while the user
 *	holds the socket, or a listener's pending request), or could not
 *	grow (no memory for a new request, or for the private copy of a
 *	datagram that lies in a page fragment)
 * @QUIC_MIB_LISTEN_OVERFLOW: client Initials dropped because the
 *	listener's accept queue was full (TCP's ListenOverflows)
 * @QUIC_MIB_DROP_DECRYPT: received packets dropped because they failed to
 *	decrypt
 * @QUIC_MIB_CONN_OPENED: connections that reached the ESTABLISHED state
 * @QUIC_MIB_CONN_CLOSED: connections counted in @QUIC_MIB_CONN_OPENED that
 *	closed since (handshakes that never completed are not counted)
 * @QUIC_MIB_PKT_LOST: sent ack-eliciting packets declared lost
 *	(RFC 9002 6.1)
 * @QUIC_MIB_PTO: probe timeouts that expired (RFC 9002 6.2)
 * @QUIC_MIB_CONG_EVENT: congestion events: losses that reduced the
 *	congestion window (RFC 9002 7.3.2)
 * @QUIC_MIB_CONG_PERSISTENT: persistent congestion established (RFC 9002
 *	7.6)
 * @QUIC_MIB_SPURIOUS_LOSS: packets declared lost and acknowledged later:
 *	reordered, not lost (each widens the loss thresholds)
 * @QUIC_MIB_CONG_UNDO: congestion events undone because the loss that
 *	started them was spurious
 * @QUIC_MIB_RETRY_SENT: Retry packets sent by listeners (RFC 9000 8.1.2)
 * @QUIC_MIB_TOKEN_INVALID: client Initials whose token is ours (its MAC
 *	checks) and expired or was made for another address, port or
 *	connection ID; an altered or foreign token counts as none
 * @QUIC_MIB_AMPLIFICATION_BLOCKED: times a server held back handshake
 *	data or a CONNECTION_CLOSE for an address not yet validated, having
 *	sent three times what it received (RFC 9000 8.1)
 * @QUIC_MIB_RESET_SENT: Stateless Resets sent (RFC 9000 10.3)
 * @QUIC_MIB_RESET_RCVD: Stateless Resets received that ended a connection
 * @QUIC_MIB_DGRAM_RCV_DROP: DATAGRAM frames dropped: receive buffer full
 *	or memory short
 * @QUIC_MIB_0RTT_IN: 0-RTT packets a server processed (RFC 9001 4.6)
 * @QUIC_MIB_0RTT_OUT: 0-RTT packets a client sent
 * @QUIC_MIB_0RTT_DROP: 0-RTT packets a server dropped: early data not
 *	accepted, the 0-RTT key gone, or no room to hold them for the key
 * @QUIC_MIB_ALPN_NOMATCH: client Initials dropped because listeners that
 *	share their port are told apart by ALPN (quic-api.rst 7.4) and the
 *	ClientHello named no protocol of theirs (or none, and every one of
 *	them has an ALPN set)
 * @QUIC_MIB_PATH_MIGRATED: peer address changes a server validated and
 *	followed (RFC 9000 9.3)
 * @QUIC_MIB_PATH_FAILED: path validations that failed: the server went
 *	back to the peer's previous address
 * @QUIC_MIB_ECN_CE: packets received marked CE
 * @QUIC_MIB_ECN_CONG: congestion events the peer's CE counts started
 * @QUIC_MIB_ECN_FAILED: connections whose ECN validation failed (RFC 9000
 *	13.4.2.1): their datagrams go unmarked from then on
 * @QUIC_MIB_VN_RCVD: Version Negotiation packets a client acted upon
 *	(RFC 9000 6.2)
 * @QUIC_MIB_VERSION_CHANGED: connections moved to another version by
 *	compatible version negotiation (RFC 9368 2.3), on either end
 * @QUIC_MIB_DROP_PEER_ADDR: 1-RTT packets a client dropped because they
 *	came from a server address it does not know (RFC 9000 9)
 * @QUIC_MIB_DGRAM_SND_DROP: DATAGRAM frames the application sent that
 *	were dropped unsent: the datagram size fell below theirs while they
 *	waited (RFC 9221 5)
 * @QUIC_MIB_MAX: the number of counters
 */
enum quic_mib_field {
	QUIC_MIB_PKT_IN,
	QUIC_MIB_PKT_OUT,
	QUIC_MIB_DROP_MALFORMED,
	QUIC_MIB_DROP_NOCONN,
	QUIC_MIB_DROP_DECRYPT,
	QUIC_MIB_CONN_OPENED,
	QUIC_MIB_CONN_CLOSED,
	QUIC_MIB_PKT_LOST,
	QUIC_MIB_PTO,
	QUIC_MIB_DROP_BACKLOG,
	QUIC_MIB_LISTEN_OVERFLOW,
	QUIC_MIB_CONG_EVENT,
	QUIC_MIB_CONG_PERSISTENT,
	QUIC_MIB_SPURIOUS_LOSS,
	QUIC_MIB_CONG_UNDO,
	QUIC_MIB_RETRY_SENT,
	QUIC_MIB_TOKEN_INVALID,
	QUIC_MIB_AMPLIFICATION_BLOCKED,
	QUIC_MIB_RESET_SENT,
	QUIC_MIB_RESET_RCVD,
	QUIC_MIB_DGRAM_RCV_DROP,
	QUIC_MIB_0RTT_IN,
	QUIC_MIB_0RTT_OUT,
	QUIC_MIB_0RTT_DROP,
	QUIC_MIB_ALPN_NOMATCH,
	QUIC_MIB_PATH_MIGRATED,
	QUIC_MIB_PATH_FAILED,
	QUIC_MIB_ECN_CE,
	QUIC_MIB_ECN_CONG,
	QUIC_MIB_ECN_FAILED,
	QUIC_MIB_VN_RCVD,
	QUIC_MIB_VERSION_CHANGED,
	QUIC_MIB_DROP_PEER_ADDR,
	QUIC_MIB_DGRAM_SND_DROP,
	QUIC_MIB_MAX
};

/**
 * struct quic_mib - one CPU's copy of the counters
 * @mibs: the counters, indexed by &enum quic_mib_field
 */
struct quic_mib {
	unsigned long	mibs[QUIC_MIB_MAX];
};

/* Safe in any context, preemptible or not. */
#define QUIC_INC_STATS(net, field) \
	SNMP_INC_STATS(quic_net(net)->mib, field)

const char *quic_mib_name(int field);

/* A received datagram or packet dropped: counted in @field, and traced
 * (quic:quic_drop) with the counter's name and the socket it reached, if
 * any.
 */
#define QUIC_DROP(net, sk, field)					\
	do {								\
		int __quic_field = (field);				\
									\
		QUIC_INC_STATS(net, __quic_field);			\
		if (trace_quic_drop_enabled())				\
			trace_quic_drop(sk, quic_mib_name(__quic_field)); \
	} while (0)

int quic_mib_net_init(struct net *net);
void quic_mib_net_exit(struct net *net);

#endif /* __NET_QUIC_MIB_H */
