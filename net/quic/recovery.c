// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: RTT estimation, loss detection and probe timeout (RFC 9002,
 * sections 5 and 6).  Congestion control is not here.
 *
 * The RTT arithmetic (quic_rtt_*) is pure.  The rest wires it to the
 * connection: an ACK feeds the estimator and runs loss detection in its
 * space; lost packets have their frames queued again (output.c) and their
 * records dropped; the connection timer fires either for the time
 * threshold of a loss (the earliest loss_time of a space) or for the PTO,
 * which sends probes and keeps the records of the packets in flight, so
 * a late ACK of them still counts.  All times are in microseconds.
 */

#include <linux/export.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <net/sock.h>
#include <net/quic/conn.h>
#include <net/quic/export.h>
#include <net/quic/frame.h>
#include <net/quic/mib.h>
#include <net/quic/protocol.h>
#include <net/quic/recovery.h>
#include <net/quic/sent.h>
#include <net/quic/socket.h>
#include <net/quic/stream.h>

/* Records whose frames a PTO sends again (RFC 9002 6.2.4: two probes). */
#define QUIC_PTO_PROBES		2

/**
 * quic_rtt_init() - the estimate before any sample (RFC 9002, 5.3)
 * @r: the estimate
 * @initial_rtt: kInitialRtt, or the application's value
 */
void quic_rtt_init(struct quic_rtt *r, u64 initial_rtt)
{
	r->latest_rtt = 0;
	r->min_rtt = 0;
	r->smoothed_rtt = initial_rtt;
	r->rttvar = initial_rtt / 2;
	r->has_sample = false;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_rtt_init);

/**
 * quic_rtt_update() - take an RTT sample (RFC 9002, 5.1 to 5.3)
 * @r: the estimate
 * @latest_rtt: the time from sending the largest newly acknowledged
 *	packet to receiving its ACK
 * @ack_delay: the peer's ACK delay, already scaled and capped (see
 *	quic_rtt_ack_delay())
 *
 * min_rtt takes the raw sample; the ACK delay is subtracted from the
 * sample for smoothed_rtt and rttvar only if that leaves at least min_rtt.
 */
void quic_rtt_update(struct quic_rtt *r, u64 latest_rtt, u64 ack_delay)
{
	u64 adjusted, diff;

	r->latest_rtt = latest_rtt;
	if (!r->has_sample) {
		r->min_rtt = latest_rtt;
		r->smoothed_rtt = latest_rtt;
		r->rttvar = latest_rtt / 2;
		r->has_sample = true;
		return;
	}
	r->min_rtt = min(r->min_rtt, latest_rtt);
	adjusted = latest_rtt;
	if (latest_rtt >= r->min_rtt + ack_delay)
		adjusted = latest_rtt - ack_delay;
	diff = r->smoothed_rtt > adjusted ? r->smoothed_rtt - adjusted :
					    adjusted - r->smoothed_rtt;
	r->rttvar = (3 * r->rttvar + diff) / 4;
	r->smoothed_rtt = (7 * r->smoothed_rtt + adjusted) / 8;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_rtt_update);

/**
 * quic_rtt_ack_delay() - the ACK delay of an ACK frame in microseconds
 * @raw: the ACK Delay field as on the wire
 * @exponent: the peer's ack_delay_exponent (at most 20, checked on decode)
 * @confirmed: the handshake is confirmed
 * @max_ack_delay: the peer's max_ack_delay in microseconds
 *
 * RFC 9000 19.3 and RFC 9002 5.3: scaled by 2^exponent; once the
 * handshake is confirmed, capped by max_ack_delay.
 *
 * Return: the delay, saturating instead of overflowing.
 */
u64 quic_rtt_ack_delay(u64 raw, u8 exponent, bool confirmed,
		       u64 max_ack_delay)
{
	u64 d;

	exponent = min_t(u8, exponent, 20);
	d = raw > (U64_MAX >> exponent) ? U64_MAX : raw << exponent;
	if (confirmed)
		d = min(d, max_ack_delay);
	return d;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_rtt_ack_delay);

/**
 * quic_rtt_loss_delay() - the time threshold of loss detection
 * @r: the estimate
 *
 * RFC 9002 6.1.2: kTimeThreshold * max(smoothed_rtt, latest_rtt), at
 * least kGranularity.
 *
 * Return: the delay.
 */
u64 quic_rtt_loss_delay(const struct quic_rtt *r)
{
	u64 d = max(r->smoothed_rtt, r->latest_rtt);

	d = d * QUIC_TIME_THRESHOLD_NUM / QUIC_TIME_THRESHOLD_DEN;
	return max_t(u64, d, QUIC_GRANULARITY_US);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_rtt_loss_delay);

/**
 * quic_rtt_pto() - the probe timeout of a space
 * @r: the estimate
 * @max_ack_delay: the peer's max_ack_delay for the application space once
 *	the handshake is confirmed, else 0
 * @pto_count: consecutive PTO expiries (the backoff)
 *
 * RFC 9002 6.2.1: (smoothed_rtt + max(4 * rttvar, kGranularity) +
 * max_ack_delay) * 2^pto_count; the exponent is capped.
 *
 * Return: the timeout.
 */
u64 quic_rtt_pto(const struct quic_rtt *r, u64 max_ack_delay, u32 pto_count)
{
	u64 pto = r->smoothed_rtt +
		  max_t(u64, 4 * r->rttvar, QUIC_GRANULARITY_US) +
		  max_ack_delay;

	return pto << min_t(u32, pto_count, QUIC_PTO_MAX_SHIFT);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_rtt_pto);

static u64 quic_rec_now(void)
{
	return ktime_to_us(ktime_get());
}

/* The estimate, set up from the socket's initial RTT until a sample. */
static struct quic_rtt *quic_rec_rtt(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u64 init = quic_sk(sk)->opts.config.initial_smoothed_rtt;

	if (!c->rtt.has_sample && !c->rtt.smoothed_rtt)
		quic_rtt_init(&c->rtt, init ?: QUIC_INITIAL_RTT_US);
	return &c->rtt;
}

struct quic_rec_ack {
	struct sock *sk;
	u64 largest;
	u64 largest_sent;
	bool largest_new;
	bool eliciting;
};

static void quic_rec_acked(void *ctx, struct quic_sent_pkt *pkt)
{
	struct quic_rec_ack *a = ctx;

	if (pkt->pn == a->largest) {
		a->largest_new = true;
		a->largest_sent = pkt->sent_time;
	}
	if (pkt->ack_eliciting)
		a->eliciting = true;
	quic_output_pkt_acked(a->sk, pkt);
}

/**
 * quic_recovery_detect_lost() - declare lost what an ACK or time shows
 * @sk: the socket, locked
 * @level: the packet-number space
 * @now: the current time
 *
 * The frames of the lost packets are queued again; the space's loss_time
 * is set for the packets that will be lost if nothing arrives.
 */
void quic_recovery_detect_lost(struct sock *sk, u8 level, u64 now)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_pnspace *s = &c->space[level];
	u32 eliciting = s->sent.eliciting_in_flight;

	s->loss_time = 0;
	if (!s->sent.any_acked || s->discarded)
		return;
	quic_sent_detect_lost(&s->sent, s->sent.largest_acked,
			      quic_rtt_loss_delay(quic_rec_rtt(sk)), now,
			      &s->loss_time, quic_output_pkt_lost, sk);
	eliciting -= s->sent.eliciting_in_flight;
	if (eliciting)
		SNMP_ADD_STATS(quic_net(sock_net(sk))->mib, QUIC_MIB_PKT_LOST,
			       eliciting);
}

/**
 * quic_recovery_on_ack() - process the ranges of an ACK frame
 * @sk: the socket, locked
 * @level: the packet-number space it arrived in
 * @ack: the decoded frame
 * @ranges: its ranges, descending
 *
 * Frees what it acknowledges, takes an RTT sample if the largest
 * acknowledged packet is newly acknowledged and ack-eliciting packets
 * were (RFC 9002 5.1), resets the PTO backoff and runs loss detection.
 *
 * Return: as quic_sent_on_ack().
 */
int quic_recovery_on_ack(struct sock *sk, u8 level,
			 const struct quic_frame_ack *ack,
			 const struct quic_ack_range *ranges)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_rec_ack a = { .sk = sk, .largest = ranges[0].largest };
	struct quic_rtt *r = quic_rec_rtt(sk);
	u64 now, delay = 0;
	int n;

	n = quic_sent_on_ack(&c->space[level].sent, ranges, ack->nr_ranges,
			     quic_rec_acked, &a);
	if (n <= 0)
		return n;
	now = quic_rec_now();
	if (a.largest_new && a.eliciting) {
		/* Initial and Handshake ACKs carry no useful delay. */
		if (level == QUIC_CRYPTO_APP)
			delay = quic_rtt_ack_delay(ack->delay,
						   c->peer_tp.ack_delay_exponent,
						   c->handshake_confirmed,
						   c->peer_tp.max_ack_delay_us);
		quic_rtt_update(r, now > a.largest_sent ?
				   now - a.largest_sent : 0, delay);
		c->streams.srtt = max_t(u64, r->smoothed_rtt, 1);
	}
	c->pto_count = 0;
	quic_recovery_detect_lost(sk, level, now);
	return n;
}

/* The earliest loss time, or else the earliest PTO, over the spaces. */
static bool quic_rec_deadline(struct sock *sk, u64 *deadline, int *space,
			      bool *loss)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_rtt *r = quic_rec_rtt(sk);
	struct quic_pnspace *s;
	u64 t, mad;
	int i;

	*space = -1;
	for (i = 0; i < QUIC_PNSPACE_NUM; i++) {
		s = &c->space[i];
		if (s->discarded || !s->loss_time)
			continue;
		if (*space < 0 || s->loss_time < *deadline) {
			*deadline = s->loss_time;
			*space = i;
		}
	}
	*loss = *space >= 0;
	if (*loss)
		return true;
	for (i = 0; i < QUIC_PNSPACE_NUM; i++) {
		s = &c->space[i];
		if (s->discarded || !quic_sent_eliciting_in_flight(&s->sent))
			continue;
		mad = 0;
		if (i == QUIC_CRYPTO_APP && c->handshake_confirmed)
			mad = c->peer_tp.max_ack_delay_us;
		t = s->sent.last_eliciting_time +
		    quic_rtt_pto(r, mad, c->pto_count);
		if (*space < 0 || t < *deadline) {
			*deadline = t;
			*space = i;
		}
	}
	return *space >= 0;
}

/**
 * quic_recovery_timer() - when the connection timer must fire
 * @sk: the socket, locked
 * @deadline: set to the time, if any
 *
 * Return: false if no loss time is set and nothing ack-eliciting is in
 * flight (the timer stops).
 */
bool quic_recovery_timer(struct sock *sk, u64 *deadline)
{
	bool loss;
	int space;

	return quic_rec_deadline(sk, deadline, &space, &loss);
}

/* Is there anything new to send in the space? */
static bool quic_rec_queued(struct quic_conn *c, u8 level)
{
	struct quic_pnspace *s = &c->space[level];
	struct quic_crypto_chunk *ch;
	struct quic_stream_out *o;

	list_for_each_entry(ch, &s->crypto_out, list)
		if (ch->need_send)
			return true;
	if (level != QUIC_CRYPTO_APP || !c->streams_ready)
		return false;
	list_for_each_entry(o, &c->stream_out, list)
		if (o->need_send)
			return true;
	return false;
}

/* RFC 9002 6.2.4: a PTO probe in one space.  New data if any is queued;
 * else the frames of the oldest packets in flight again (their records
 * stay); else a PING.  The control frames we do not track per packet
 * (flow-control limits, *_BLOCKED, NEW_CONNECTION_ID) go again as well.
 */
static void quic_rec_probe(struct sock *sk, u8 level)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_pnspace *s = &c->space[level];
	struct quic_sent_pkt *pkt;
	u32 probes = 0;

	if (level == QUIC_CRYPTO_APP) {
		quic_conn_cid_resend(sk);
		if (c->is_server && !c->hd_acked)
			c->handshake_done_pending = 1;
		if (c->streams_ready) {
			c->max_data_pending = true;
			c->msd_all = true;
			quic_stream_ctl_resend(&c->streams);
		}
	}
	if (quic_rec_queued(c, level))
		return;
	list_for_each_entry(pkt, &s->sent.head, list) {
		if (!pkt->ack_eliciting || !pkt->in_flight)
			continue;
		if (quic_output_pkt_requeue(sk, pkt))
			probes++;
		if (probes == QUIC_PTO_PROBES)
			break;
	}
	if (!probes)
		s->ping = true;
}

/**
 * quic_recovery_timeout() - the connection timer fired (not closing)
 * @sk: the socket, locked
 *
 * Runs loss detection if a loss time passed, else sends the PTO probes
 * of every space with ack-eliciting packets in flight and doubles the
 * PTO.  The caller re-arms the timer.
 */
void quic_recovery_timeout(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	u64 deadline = 0, now = quic_rec_now(), before[QUIC_PNSPACE_NUM];
	bool loss, probe[QUIC_PNSPACE_NUM] = {};
	int space, i;

	if (!quic_rec_deadline(sk, &deadline, &space, &loss))
		return;
	if (deadline > now)
		return;	/* early: re-armed by the caller */
	if (loss) {
		quic_recovery_detect_lost(sk, space, now);
		quic_output_flush(sk, GFP_ATOMIC);
		return;
	}
	c->pto_count++;
	QUIC_INC_STATS(sock_net(sk), QUIC_MIB_PTO);
	for (i = 0; i < QUIC_PNSPACE_NUM; i++) {
		struct quic_pnspace *s = &c->space[i];

		if (s->discarded || !quic_sent_eliciting_in_flight(&s->sent))
			continue;
		probe[i] = true;
		before[i] = s->sent.last_eliciting_time;
		quic_rec_probe(sk, i);
	}
	quic_output_flush(sk, GFP_ATOMIC);
	/* Flow control or the datagram budget may have held the new data
	 * back: then a PING is the probe.
	 */
	for (i = 0; i < QUIC_PNSPACE_NUM; i++) {
		struct quic_pnspace *s = &c->space[i];

		if (!probe[i] || s->discarded ||
		    s->sent.last_eliciting_time != before[i])
			continue;
		s->ping = true;
		loss = true;
	}
	if (loss)
		quic_output_flush(sk, GFP_ATOMIC);
}
