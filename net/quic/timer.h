/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the timers of a connection (net/quic/timer.c).
 *
 * Every timer of a connection is here: loss detection and PTO (which
 * also ends the closing and draining states), the delayed ACK, the idle
 * timeout and the pacer (an hrtimer in softirq mode: pacing gaps are
 * shorter than a jiffy). Each fires in softirq and takes the socket with
 * bh_lock_sock(). If a user owns the socket then, the expiry is marked
 * deferred and its handler runs from the protocol's .release_cb when
 * release_sock() hands the socket back, as TCP does with its delayed-ACK
 * and retransmit timers: a timer is never retried every jiffy.
 *
 * Either way the handler runs with the socket's spinlock held and BHs
 * off: it must not sleep, and allocates with GFP_ATOMIC.
 *
 * What must sleep (freeing or preparing keys, deriving other Initial
 * keys) is asked for from those contexts with quic_timer_work(): one
 * work item per connection, with a bit per job, that runs the jobs asked
 * for in process context under lock_sock().
 */
#ifndef __NET_QUIC_TIMER_H
#define __NET_QUIC_TIMER_H

#include <linux/hrtimer.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct sock;

/**
 * enum quic_timer_id - the timers of a connection
 * @QUIC_TIMER_LOSS: loss time or PTO (RFC 9002 6, loss.c); in the
 *	closing and draining states, their end (conn.c)
 * @QUIC_TIMER_ACK: the delayed 1-RTT ACK (output.c)
 * @QUIC_TIMER_IDLE: the idle timeout (RFC 9000 10.1, conn.c)
 * @QUIC_TIMER_PACE: the pacer lets the next datagram out (output.c); an
 *	hrtimer, armed with quic_timer_pace() (the others are in jiffies)
 * @QUIC_TIMER_NUM: how many
 */
enum quic_timer_id {
	QUIC_TIMER_LOSS,
	QUIC_TIMER_ACK,
	QUIC_TIMER_IDLE,
	QUIC_TIMER_PACE,
	QUIC_TIMER_NUM,
};

/* The timers in jiffies, those with a timer_list. */
#define QUIC_TIMER_NUM_JIFFIES	QUIC_TIMER_PACE

/**
 * enum quic_work_id - the jobs of a connection's work item, in the order
 *	it runs them
 * @QUIC_WORK_KEYS_FREE: free the keys of discarded spaces (keyupdate.c)
 * @QUIC_WORK_RETRY: the Initial keys a Retry asked for (conn.c)
 * @QUIC_WORK_VERSION: the client's move to another version (version.c)
 * @QUIC_WORK_KEYS_NEXT: prepare the next 1-RTT keys (keyupdate.c)
 * @QUIC_WORK_NUM: how many
 */
enum quic_work_id {
	QUIC_WORK_KEYS_FREE,
	QUIC_WORK_RETRY,
	QUIC_WORK_VERSION,
	QUIC_WORK_KEYS_NEXT,
	QUIC_WORK_NUM,
};

/**
 * struct quic_timer_ops - what the timers and the work item of a
 *	connection run (conn.c's quic_conn_timer_ops)
 * @fire: per enum quic_timer_id, the handler of an expiry: the socket's
 *	spinlock held, not owned by a user, BHs off
 * @work: the jobs asked for (bits of enum quic_work_id), in process
 *	context under lock_sock()
 */
struct quic_timer_ops {
	void	(*fire[QUIC_TIMER_NUM])(struct sock *sk);
	void	(*work)(struct sock *sk, unsigned long jobs);
};

/**
 * struct quic_timers - the timers and the work item of a connection
 * @t: one timer_list per enum quic_timer_id below QUIC_TIMER_PACE
 * @pace: the pacing timer
 * @deferred: bit per timer that fired while a user owned the socket; each
 *	set bit holds a socket reference until .release_cb runs it
 * @work: runs the jobs of @jobs in process context
 * @jobs: bit per enum quic_work_id asked for; a queued @work holds one
 *	socket reference
 * @ops: the handlers
 */
struct quic_timers {
	struct timer_list	t[QUIC_TIMER_NUM_JIFFIES];
	struct hrtimer		pace;
	unsigned long		deferred;
	struct work_struct	work;
	unsigned long		jobs;
	const struct quic_timer_ops	*ops;
};

void quic_timer_init(struct sock *sk, const struct quic_timer_ops *ops);
void quic_timer_reset(struct sock *sk, enum quic_timer_id id,
		      unsigned long expires);
void quic_timer_pace(struct sock *sk, u64 delay_ns);
void quic_timer_stop(struct sock *sk, enum quic_timer_id id);
void quic_timer_stop_all(struct sock *sk);
bool quic_timer_pending(struct sock *sk, enum quic_timer_id id);
void quic_timer_release_cb(struct sock *sk);
void quic_timer_work(struct sock *sk, enum quic_work_id id);

#endif /* __NET_QUIC_TIMER_H */
