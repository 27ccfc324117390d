// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: the timers of a connection, in one place (see timer.h).
 *
 * A timer holds a socket reference while pending (sk_reset_timer()).
 * When it fires while a user owns the socket, or while datagrams wait in
 * the backlog for a sleeping user (quic_input_backlog_waits()), its bit in
 * quic_timers.deferred is set, under the socket spinlock, and takes a
 * reference of its own; quic_timer_release_cb(), called by
 * release_sock() with that spinlock held, runs the handler and drops it.
 * Stopping a timer also forgets a deferred expiry of it.
 *
 * The work item is the connection's one way into process context from
 * softirq: a job bit, and a socket reference per queueing.
 */

#include <linux/bitops.h>
#include <linux/lockdep.h>
#include <net/sock.h>
#include <linux/workqueue.h>
#include "conn.h"
#include "input.h"
#include "socket.h"
#include "timer.h"

static struct quic_timers *quic_timers(struct sock *sk)
{
	return &quic_sk(sk)->conn.timers;
}

static void quic_timer_fire(struct sock *sk, enum quic_timer_id id)
{
	struct quic_timers *ts = quic_timers(sk);

	bh_lock_sock(sk);
	/* Datagrams queued for a sleeping user (an ACK, say) go first. */
	if (!sock_owned_by_user(sk) &&
	    !quic_input_backlog_waits(&quic_sk(sk)->conn.in, sk))
		ts->ops->fire[id](sk);
	else if (!test_and_set_bit(id, &ts->deferred))
		sock_hold(sk);
	bh_unlock_sock(sk);
	sock_put(sk);	/* the pending timer's reference */
}

static void quic_timer_loss(struct timer_list *t)
{
	struct quic_conn *c = from_timer(c, t, timers.t[QUIC_TIMER_LOSS]);

	quic_timer_fire(quic_conn_sk(c), QUIC_TIMER_LOSS);
}

static void quic_timer_ack(struct timer_list *t)
{
	struct quic_conn *c = from_timer(c, t, timers.t[QUIC_TIMER_ACK]);

	quic_timer_fire(quic_conn_sk(c), QUIC_TIMER_ACK);
}

static void quic_timer_idle(struct timer_list *t)
{
	struct quic_conn *c = from_timer(c, t, timers.t[QUIC_TIMER_IDLE]);

	quic_timer_fire(quic_conn_sk(c), QUIC_TIMER_IDLE);
}

static enum hrtimer_restart quic_timer_pace_fn(struct hrtimer *t)
{
	struct quic_conn *c = container_of(t, struct quic_conn, timers.pace);

	quic_timer_fire(quic_conn_sk(c), QUIC_TIMER_PACE);
	return HRTIMER_NORESTART;
}

static void quic_timer_work_fn(struct work_struct *work)
{
	struct quic_conn *c = container_of(work, struct quic_conn, timers.work);
	struct sock *sk = quic_conn_sk(c);
	unsigned long jobs;

	lock_sock(sk);
	jobs = xchg(&c->timers.jobs, 0);
	if (jobs)
		c->timers.ops->work(sk, jobs);
	release_sock(sk);
	sock_put(sk);
}

/**
 * quic_timer_work() - have the work item run a job in process context
 * @sk: the socket, locked (owned or bh-locked)
 * @id: the job
 *
 * Each job checks again, under lock_sock(), whether it still applies.
 */
void quic_timer_work(struct sock *sk, enum quic_work_id id)
{
	struct quic_timers *ts = quic_timers(sk);

	set_bit(id, &ts->jobs);
	sock_hold(sk);
	if (!schedule_work(&ts->work))
		sock_put(sk);
}

/**
 * quic_timer_init() - set up the timers of a new socket
 * @sk: the socket, not yet visible to anyone else
 * @ops: what its timers and its work item run, as the handlers TCP gives
 *	inet_csk_init_xmit_timers()
 */
void quic_timer_init(struct sock *sk, const struct quic_timer_ops *ops)
{
	struct quic_timers *ts = quic_timers(sk);

	ts->ops = ops;
	timer_setup(&ts->t[QUIC_TIMER_LOSS], quic_timer_loss, 0);
	timer_setup(&ts->t[QUIC_TIMER_ACK], quic_timer_ack, 0);
	timer_setup(&ts->t[QUIC_TIMER_IDLE], quic_timer_idle, 0);
	hrtimer_init(&ts->pace, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_SOFT);
	ts->pace.function = quic_timer_pace_fn;
	ts->deferred = 0;
	INIT_WORK(&ts->work, quic_timer_work_fn);
	ts->jobs = 0;
}

/**
 * quic_timer_reset() - (re)arm a timer in jiffies
 * @sk: the socket, locked (owned or bh-locked)
 * @id: which timer, below QUIC_TIMER_PACE
 * @expires: when, in jiffies
 */
void quic_timer_reset(struct sock *sk, enum quic_timer_id id,
		      unsigned long expires)
{
	lockdep_assert(lockdep_sock_is_held(sk));
	sk_reset_timer(sk, &quic_timers(sk)->t[id], expires);
}

/**
 * quic_timer_pace() - arm the pacing timer unless it is already armed
 * @sk: the socket, locked (owned or bh-locked)
 * @delay_ns: from now
 *
 * The pacing schedule only moves later, so an armed timer is never late:
 * when it fires early the flush arms it again.
 */
void quic_timer_pace(struct sock *sk, u64 delay_ns)
{
	struct quic_timers *ts = quic_timers(sk);

	lockdep_assert(lockdep_sock_is_held(sk));
	if (hrtimer_is_queued(&ts->pace) ||
	    test_bit(QUIC_TIMER_PACE, &ts->deferred))
		return;
	sock_hold(sk);	/* the pending timer's, as sk_reset_timer() */
	hrtimer_start(&ts->pace, ns_to_ktime(delay_ns),
		      HRTIMER_MODE_REL_PINNED_SOFT);
}

/**
 * quic_timer_stop() - stop a timer and forget a deferred expiry of it
 * @sk: the socket, locked (owned or bh-locked)
 * @id: which timer
 */
void quic_timer_stop(struct sock *sk, enum quic_timer_id id)
{
	struct quic_timers *ts = quic_timers(sk);

	lockdep_assert(lockdep_sock_is_held(sk));
	if (id == QUIC_TIMER_PACE) {
		if (hrtimer_try_to_cancel(&ts->pace) == 1)
			__sock_put(sk);
	} else {
		sk_stop_timer(sk, &ts->t[id]);
	}
	/* The caller holds a reference too: this one cannot be the last. */
	if (test_and_clear_bit(id, &ts->deferred))
		__sock_put(sk);
}

/**
 * quic_timer_stop_all() - stop every timer of the connection
 * @sk: the socket, locked (owned or bh-locked)
 */
void quic_timer_stop_all(struct sock *sk)
{
	int id;

	for (id = 0; id < QUIC_TIMER_NUM; id++)
		quic_timer_stop(sk, id);
}

/**
 * quic_timer_pending() - is a timer armed (or its expiry deferred)?
 * @sk: the socket, locked (owned or bh-locked)
 * @id: which timer
 *
 * Return: true if its handler is still to run.
 */
bool quic_timer_pending(struct sock *sk, enum quic_timer_id id)
{
	struct quic_timers *ts = quic_timers(sk);

	if (test_bit(id, &ts->deferred))
		return true;
	if (id == QUIC_TIMER_PACE)
		return hrtimer_is_queued(&ts->pace);
	return timer_pending(&ts->t[id]);
}

/**
 * quic_timer_release_cb() - run the expiries deferred while the user held
 *	the socket
 * @sk: the socket, from release_sock(): still owned, its spinlock held
 *
 * The proto's .release_cb.
 */
void quic_timer_release_cb(struct sock *sk)
{
	struct quic_timers *ts = quic_timers(sk);
	int id;

	if (!READ_ONCE(ts->deferred))
		return;
	for (id = 0; id < QUIC_TIMER_NUM; id++) {
		if (!test_and_clear_bit(id, &ts->deferred))
			continue;
		ts->ops->fire[id](sk);
		__sock_put(sk);
	}
}
