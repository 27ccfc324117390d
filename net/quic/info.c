// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: struct quic_info, a connection's state and counters in the manner
 * of struct tcp_info, for getsockopt(QUIC_SOCKOPT_INFO) and quic_diag.
 *
 * It only reads: each counter is kept by the file that owns its struct
 * (output.c the packets sent, input.c those received, loss.c the losses).
 */

#include <linux/export.h>
#include <linux/quic.h>
#include <linux/string.h>
#include <net/sock.h>

#include "info.h"
#include "socket.h"

/* The streams of one direction open now, both ends' together. */
static u32 quic_info_streams(const struct quic_stream_table *t, bool uni)
{
	u32 type = uni ? QUIC_STREAM_TYPE_UNI_MASK : 0;

	return t->kind[type].live + t->kind[type | QUIC_STREAM_TYPE_SERVER_MASK].live;
}

/**
 * quic_info_get() - fill a struct quic_info
 * @sk: the socket, locked (or held by a dump that accepts a racy view)
 * @info: what to fill, all of it
 */
void quic_info_get(struct sock *sk, struct quic_info *info)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	const struct quic_rtt *rtt = &c->loss.rec.rtt;
	static const u8 levels[] = { QUIC_CRYPTO_APP, QUIC_CRYPTO_HANDSHAKE,
				     QUIC_CRYPTO_INITIAL };
	struct quic_crypto *key;
	int i;

	memset(info, 0, sizeof(*info));
	info->qi_version = QUIC_INFO_VERSION;
	info->qi_state = sk->sk_state;
	info->qi_is_server = c->is_server;
	info->qi_cong_algo = c->cong.algo;
	/* A closed connection keeps its figures, as TCP_INFO does. */
	if (sk->sk_state == TCP_LISTEN)
		return;
	info->qi_ecn = c->ecn.state + 1;
	info->qi_quic_version = c->vn.version;
	/* The newest keys: 1-RTT, else Handshake, else Initial. */
	for (i = 0; i < ARRAY_SIZE(levels); i++) {
		key = &c->space.at[levels[i]]->tx;
		if (quic_crypto_ready(key)) {
			info->qi_cipher = key->cipher_type;
			break;
		}
	}
	info->qi_key_phase = c->space.at[QUIC_CRYPTO_APP]->tx.key_phase;
	info->qi_path_validating = c->paths.path && c->paths.path->validating;
	info->qi_rtt_samples = rtt->has_sample;
	info->qi_pmtu = c->out.max_dgram;
	info->qi_streams_bidi = quic_info_streams(&c->streams, false);
	info->qi_streams_uni = quic_info_streams(&c->streams, true);
	info->qi_srtt_us = rtt->smoothed_rtt;
	info->qi_rttvar_us = rtt->rttvar;
	info->qi_min_rtt_us = rtt->min_rtt;
	info->qi_latest_rtt_us = rtt->latest_rtt;
	info->qi_cwnd = c->cong.cwnd;
	info->qi_ssthresh = c->cong.ssthresh;
	info->qi_bytes_in_flight = quic_conn_in_flight(c);
	info->qi_pacing_rate = c->cong.pace_rate;
	info->qi_pkts_sent = c->out.pkts_sent;
	info->qi_bytes_sent = c->out.bytes_sent;
	info->qi_pkts_rcvd = c->in.pkts_rcvd;
	info->qi_bytes_rcvd = c->in.bytes_rcvd;
	info->qi_pkts_lost = c->loss.pkts_lost;
	info->qi_bytes_lost = c->loss.bytes_lost;
	info->qi_pkts_retrans = c->loss.pkts_retrans;
	info->qi_spurious_losses = c->loss.spurious;
	info->qi_ptos = c->loss.ptos;
	info->qi_cong_events = c->loss.cong_events;
}
EXPORT_SYMBOL_GPL(quic_info_get);
