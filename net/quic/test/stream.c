// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of net/quic/stream.c: stream IDs and limits, the stream state
 * machines, final sizes, flow control with growing windows, and
 * out-of-order reassembly with its memory accounting (RFC 9000, sections
 * 2, 3 and 4).
 */

#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>
#include "../stream.h"
#include <linux/quic.h>

#include "test.h"

static const struct quic_stream_params test_params = {
	.max_data = 1 << 20,
	.max_stream_data_bidi_local = 1 << 16,
	.max_stream_data_bidi_remote = 1 << 16,
	.max_stream_data_uni = 1 << 16,
	.max_streams_bidi = 10,
	.max_streams_uni = 5,
};

struct fixture {
	struct quic_stream_table t;
	struct quic_test_mem m;
};

static struct fixture *fx_new(bool is_server,
			      const struct quic_stream_params *p)
{
	struct fixture *f = kzalloc(sizeof(*f), GFP_KERNEL);
	u64 err;

	if (!f)
		return NULL;
	f->m.limit = S64_MAX;
	if (quic_stream_table_init(&f->t, is_server, p ?: &test_params,
				   8 << 20, 1 << 20, quic_test_mem_charge, &f->m) ||
	    quic_stream_set_peer(&f->t, p ?: &test_params, &err)) {
		kfree(f);
		return NULL;
	}
	return f;
}

static void fx_free(struct fixture *f)
{
	quic_stream_table_free(&f->t);
	kfree(f);
}

static u8 pattern(u64 i)
{
	return (u8)(i * 7 + (i >> 8) * 3 + 1);
}

/* Read up to @len bytes of @s into @buf. */
static ssize_t rd(struct fixture *f, struct quic_stream *s, void *buf,
		  size_t len, bool *fin)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter it;

	iov_iter_kvec(&it, ITER_DEST, &kv, 1, len);
	return quic_stream_read(&f->t, s, &it, fin);
}

static ssize_t pk(struct fixture *f, struct quic_stream *s, void *buf,
		  size_t len, bool *fin)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter it;

	iov_iter_kvec(&it, ITER_DEST, &kv, 1, len);
	return quic_stream_peek(&f->t, s, &it, fin);
}

/* xorshift64, for repeatable shuffles */
static u64 xs(u64 *st)
{
	*st ^= *st << 13;
	*st ^= *st >> 7;
	*st ^= *st << 17;
	return *st;
}

static int stream_id_parity(struct quic_test *t)
{
	struct fixture *c = fx_new(false, NULL), *s = fx_new(true, NULL);
	struct quic_stream *a;
	int ret = -ENOMEM;

	if (!c || !s)
		goto out;
	ret = quic_test_fail(t, "parity");
	if (!quic_stream_id_local(&c->t, 0) || quic_stream_id_local(&c->t, 1) ||
	    !quic_stream_id_local(&c->t, 2) || quic_stream_id_local(&c->t, 3) ||
	    quic_stream_id_local(&s->t, 0) || !quic_stream_id_local(&s->t, 1) ||
	    !quic_stream_id_uni(2) || quic_stream_id_uni(5))
		goto out;
	/* client uni 2: send only for the client, receive only for the server */
	if (!quic_stream_id_send(&c->t, 2) || quic_stream_id_recv(&c->t, 2) ||
	    quic_stream_id_send(&s->t, 2) || !quic_stream_id_recv(&s->t, 2) ||
	    !quic_stream_id_send(&c->t, 1) || !quic_stream_id_recv(&c->t, 1))
		goto out;
	a = quic_stream_send_get(&c->t, -1, false, true);
	if (IS_ERR(a) || a->id != 0)
		goto out;
	a = quic_stream_send_get(&c->t, -1, false, true);
	if (IS_ERR(a) || a->id != 4)
		goto out;
	a = quic_stream_send_get(&c->t, -1, true, true);
	if (IS_ERR(a) || a->id != 2)
		goto out;
	a = quic_stream_send_get(&s->t, -1, false, true);
	if (IS_ERR(a) || a->id != 1)
		goto out;
	a = quic_stream_send_get(&s->t, -1, true, true);
	if (IS_ERR(a) || a->id != 3)
		goto out;
	a = quic_stream_send_get(&s->t, -1, true, true);
	if (IS_ERR(a) || a->id != 7)
		goto out;
	if (a->recv_state != QUIC_STREAM_RECV_STATE_READ ||
	    a->send_state != QUIC_STREAM_SEND_STATE_READY ||
	    a->send.max != test_params.max_stream_data_uni)
		goto out;
	ret = 0;
out:
	if (c)
		fx_free(c);
	if (s)
		fx_free(s);
	return ret;
}

static int stream_implicit_open(struct quic_test *t)
{
	struct fixture *f = fx_new(true, NULL);
	struct quic_stream *a, *b;
	u64 err = 0;
	int ret;

	if (!f)
		return -ENOMEM;
	ret = quic_test_fail(t, "implicit open");
	a = quic_stream_recv_get(&f->t, 8, false, &err);
	if (IS_ERR_OR_NULL(a) || a->id != 8 || f->t.count != 3)
		goto out;
	if (!quic_stream_find(&f->t, 0) || !quic_stream_find(&f->t, 4) ||
	    quic_stream_find(&f->t, 12))
		goto out;
	b = quic_stream_recv_get(&f->t, 4, false, &err);
	if (b != quic_stream_find(&f->t, 4) || f->t.count != 3)
		goto out;
	/* peer bidi: we may send on it */
	if (quic_stream_send_get(&f->t, 4, false, false) != b)
		goto out;
	if (b->send.max != test_params.max_stream_data_bidi_local ||
	    b->recv.max != test_params.max_stream_data_bidi_remote)
		goto out;
	/* peer uni 6 opens 2 too */
	a = quic_stream_recv_get(&f->t, 6, false, &err);
	if (IS_ERR_OR_NULL(a) || !quic_stream_find(&f->t, 2) || f->t.count != 5 ||
	    a->send_state != QUIC_STREAM_SEND_STATE_RECVD)
		goto out;
	/* our streams: opening 9 opens 1 and 5 */
	a = quic_stream_send_get(&f->t, 9, false, true);
	if (IS_ERR(a) || a->id != 9 || !quic_stream_find(&f->t, 1) ||
	    !quic_stream_find(&f->t, 5) || f->t.count != 8)
		goto out;
	if (a->send.max != test_params.max_stream_data_bidi_remote ||
	    a->recv.max != test_params.max_stream_data_bidi_local)
		goto out;
	ret = 0;
out:
	fx_free(f);
	return ret;
}

static int stream_limits(struct quic_test *t)
{
	struct quic_stream_params p = test_params;
	struct fixture *f = fx_new(false, NULL);
	struct quic_stream *a;
	u64 err = 0, lim;
	s64 max_id;
	int ret, i;

	if (!f)
		return -ENOMEM;
	ret = quic_test_fail(t, "peer beyond our limit");
	/* server bidi: 10 allowed, IDs 1..37; 41 is the 11th */
	a = quic_stream_recv_get(&f->t, 37, false, &err);
	if (IS_ERR_OR_NULL(a))
		goto out;
	a = quic_stream_recv_get(&f->t, 41, false, &err);
	if (PTR_ERR(a) != -EPROTO || err != QUIC_TRANSPORT_ERROR_STREAM_LIMIT)
		goto out;
	err = 0;
	a = quic_stream_recv_get(&f->t, 4 * 5 + 3, false, &err);
	if (PTR_ERR(a) != -EPROTO || err != QUIC_TRANSPORT_ERROR_STREAM_LIMIT)
		goto out;

	ret = quic_test_fail(t, "local beyond peer limit");
	for (i = 0; i < 10; i++) {
		a = quic_stream_send_get(&f->t, -1, false, true);
		if (IS_ERR(a))
			goto out;
	}
	if (quic_stream_streams_blocked(&f->t, true, &lim))
		goto out;
	if (PTR_ERR(quic_stream_send_get(&f->t, -1, false, true)) != -EAGAIN ||
	    PTR_ERR(quic_stream_send_get(&f->t, 400, false, true)) != -EAGAIN)
		goto out;
	ret = quic_test_fail(t, "STREAMS_BLOCKED");
	if (!quic_stream_streams_blocked(&f->t, false, &lim) || lim != 10 ||
	    quic_stream_streams_blocked(&f->t, false, &lim))
		goto out;
	ret = quic_test_fail(t, "MAX_STREAMS");
	if (quic_stream_peer_max_streams(&f->t, false, 10, &max_id, &err) != 0 ||
	    quic_stream_peer_max_streams(&f->t, false, 5, &max_id, &err) != 0)
		goto out;
	if (quic_stream_peer_max_streams(&f->t, false, 12, &max_id, &err) != 1 ||
	    max_id != 44)
		goto out;
	if (quic_stream_peer_max_streams(&f->t, true, 6, &max_id, &err) != 1 ||
	    max_id != 22)
		goto out;
	if (quic_stream_peer_max_streams(&f->t, true, QUIC_STREAM_MAX_COUNT + 1,
					 &max_id, &err) != -EPROTO ||
	    err != QUIC_TRANSPORT_ERROR_FRAME_ENCODING)
		goto out;
	a = quic_stream_send_get(&f->t, 44, false, true);
	if (IS_ERR(a) || !quic_stream_find(&f->t, 40))
		goto out;
	if (PTR_ERR(quic_stream_send_get(&f->t, 48, false, true)) != -EAGAIN)
		goto out;
	if (!quic_stream_streams_blocked(&f->t, false, &lim) || lim != 12)
		goto out;
	ret = quic_test_fail(t, "bad transport parameter");
	p.max_streams_uni = QUIC_STREAM_MAX_COUNT + 1;
	err = 0;
	if (quic_stream_set_peer(&f->t, &p, &err) != -EPROTO ||
	    err != QUIC_TRANSPORT_ERROR_TRANSPORT_PARAM)
		goto out;
	ret = 0;
out:
	fx_free(f);
	return ret;
}

/* A peer that allows 2^60 streams: opening our stream n opens n streams,
 * and at most QUIC_STREAM_LOCAL_LIVE of a type are allocated at once.
 */
static int stream_local_live(struct quic_test *t)
{
	struct quic_stream_params p = test_params;
	s64 last = (QUIC_STREAM_LOCAL_LIVE - 1) * 4;
	struct quic_stream *a;
	struct fixture *f;
	int ret;

	p.max_streams_bidi = QUIC_STREAM_MAX_COUNT;
	f = fx_new(false, &p);
	if (!f)
		return -ENOMEM;
	ret = quic_test_fail(t, "far beyond the cap");
	a = quic_stream_send_get(&f->t, QUIC_STREAM_MAX_OFFSET & ~3ULL, false,
				 true);
	if (PTR_ERR(a) != -ENOBUFS || f->t.count)
		goto out;
	if (PTR_ERR(quic_stream_send_get(&f->t, last + 4, false, true)) !=
	    -ENOBUFS || f->t.count)
		goto out;
	ret = quic_test_fail(t, "up to the cap");
	a = quic_stream_send_get(&f->t, last, false, true);
	if (IS_ERR(a) || f->t.count != QUIC_STREAM_LOCAL_LIVE)
		goto out;
	ret = quic_test_fail(t, "one more");
	if (PTR_ERR(quic_stream_send_get(&f->t, -1, false, true)) != -ENOBUFS)
		goto out;
	ret = quic_test_fail(t, "the other type");
	a = quic_stream_send_get(&f->t, -1, true, true);
	if (IS_ERR(a))
		goto out;
	ret = 0;
out:
	fx_free(f);
	return ret;
}

/* Close a peer bidi stream in full: FIN received and read, FIN acked. */
static int close_peer_bidi(struct fixture *f, struct quic_stream *s)
{
	bool fin = false;
	u8 b[16];
	u64 err;
	int i;

	if (quic_stream_recv_data(&f->t, s, 0, "x", 1, false, &err) ||
	    quic_stream_recv_data(&f->t, s, s->recv.highest, NULL, 0, true,
				  &err))
		return -EINVAL;
	for (i = 0; i < 4 && !fin; i++)
		if (rd(f, s, b, sizeof(b), &fin) < 0)
			return -EINVAL;
	if (!fin || quic_stream_send_advance(&f->t, s, 0, true) ||
	    quic_stream_set_send_state(s, QUIC_STREAM_SEND_STATE_RECVD) ||
	    !quic_stream_release(&f->t, s))
		return -EINVAL;
	return 0;
}

static int stream_max_streams_update(struct quic_test *t)
{
	struct fixture *f = fx_new(true, NULL);
	struct quic_stream *s;
	u64 err, count;
	int ret, i;

	if (!f)
		return -ENOMEM;
	ret = quic_test_fail(t, "open");
	s = quic_stream_recv_get(&f->t, 36, false, &err);
	if (IS_ERR_OR_NULL(s) || f->t.count != 10)
		goto out;
	ret = quic_test_fail(t, "update too early");
	if (quic_stream_max_streams_update(&f->t, false, &count))
		goto out;
	ret = quic_test_fail(t, "update for each stream closed");
	for (i = 0; i < 5; i++)
		if (close_peer_bidi(f, quic_stream_find(&f->t, 4 * i)) ||
		    !quic_stream_max_streams_update(&f->t, false, &count) ||
		    count != 11 + i ||
		    quic_stream_max_streams_update(&f->t, false, &count))
			goto out;
	ret = quic_test_fail(t, "freed stream ignored, new one opens");
	s = quic_stream_recv_get(&f->t, 0, false, &err);
	if (s)
		goto out;
	s = quic_stream_recv_get(&f->t, 56, false, &err);
	if (IS_ERR_OR_NULL(s) || f->t.count != 10)
		goto out;
	if (PTR_ERR(quic_stream_recv_get(&f->t, 60, false, &err)) != -EPROTO)
		goto out;
	ret = 0;
out:
	fx_free(f);
	return ret;
}

static int stream_state_errors(struct quic_test *t)
{
	struct fixture *f = fx_new(false, NULL);
	struct quic_stream *s;
	u64 err;
	int ret;

	if (!f)
		return -ENOMEM;
	s = quic_stream_send_get(&f->t, 2, false, true);
	ret = quic_test_fail(t, "STREAM on our uni stream");
	err = 0;
	if (IS_ERR(s) ||
	    PTR_ERR(quic_stream_recv_get(&f->t, 2, false, &err)) != -EPROTO ||
	    err != QUIC_TRANSPORT_ERROR_STREAM_STATE)
		goto out;
	if (quic_stream_recv_data(&f->t, s, 0, "a", 1, false, &err) != -EPROTO ||
	    quic_stream_recv_reset(&f->t, s, 0, 0, &err) != -EPROTO ||
	    err != QUIC_TRANSPORT_ERROR_STREAM_STATE)
		goto out;
	ret = quic_test_fail(t, "MAX_STREAM_DATA on peer uni stream");
	err = 0;
	if (PTR_ERR(quic_stream_recv_get(&f->t, 3, true, &err)) != -EPROTO ||
	    err != QUIC_TRANSPORT_ERROR_STREAM_STATE)
		goto out;
	ret = quic_test_fail(t, "frame on our unopened stream");
	err = 0;
	if (PTR_ERR(quic_stream_recv_get(&f->t, 4, true, &err)) != -EPROTO ||
	    err != QUIC_TRANSPORT_ERROR_STREAM_STATE)
		goto out;
	err = 0;
	if (PTR_ERR(quic_stream_recv_get(&f->t, 0, false, &err)) != -EPROTO ||
	    err != QUIC_TRANSPORT_ERROR_STREAM_STATE)
		goto out;
	err = 0;
	if (PTR_ERR(quic_stream_recv_get(&f->t, 6, true, &err)) != -EPROTO ||
	    err != QUIC_TRANSPORT_ERROR_STREAM_STATE)
		goto out;
	ret = quic_test_fail(t, "our opened stream found");
	if (quic_stream_recv_get(&f->t, 2, true, &err) != s)
		goto out;
	ret = quic_test_fail(t, "application errors");
	if (PTR_ERR(quic_stream_send_get(&f->t, 3, false, true)) != -EINVAL ||
	    PTR_ERR(quic_stream_send_get(&f->t, 1, false, false)) != -EINVAL ||
	    PTR_ERR(quic_stream_send_get(&f->t, 0, false, false)) != -EINVAL ||
	    PTR_ERR(quic_stream_send_get(&f->t, -2, false, true)) != -EINVAL)
		goto out;
	if (quic_stream_send_advance(&f->t, s, 5, false) ||
	    PTR_ERR(quic_stream_send_get(&f->t, 2, false, true)) != -EINVAL ||
	    quic_stream_send_get(&f->t, 2, false, false) != s)
		goto out;
	if (quic_stream_send_advance(&f->t, s, 0, true) ||
	    PTR_ERR(quic_stream_send_get(&f->t, 2, false, false)) != -EINVAL ||
	    quic_stream_send_advance(&f->t, s, 1, false) != -EINVAL)
		goto out;
	if (quic_stream_set_send_state(s, QUIC_STREAM_SEND_STATE_RECVD) ||
	    !quic_stream_release(&f->t, s) ||
	    PTR_ERR(quic_stream_send_get(&f->t, 2, false, false)) != -ENOSTR)
		goto out;
	ret = quic_test_fail(t, "frame on freed stream ignored");
	if (quic_stream_recv_get(&f->t, 2, true, &err))
		goto out;
	ret = 0;
out:
	fx_free(f);
	return ret;
}

/* expected legal transitions, [from][to] */
static const bool send_legal[6][6] = {
	[QUIC_STREAM_SEND_STATE_READY] = {
		[QUIC_STREAM_SEND_STATE_SEND] = 1,
		[QUIC_STREAM_SEND_STATE_SENT] = 1,
		[QUIC_STREAM_SEND_STATE_RESET_SENT] = 1 },
	[QUIC_STREAM_SEND_STATE_SEND] = {
		[QUIC_STREAM_SEND_STATE_SENT] = 1,
		[QUIC_STREAM_SEND_STATE_RESET_SENT] = 1 },
	[QUIC_STREAM_SEND_STATE_SENT] = {
		[QUIC_STREAM_SEND_STATE_RECVD] = 1,
		[QUIC_STREAM_SEND_STATE_RESET_SENT] = 1 },
	[QUIC_STREAM_SEND_STATE_RESET_SENT] = {
		[QUIC_STREAM_SEND_STATE_RESET_RECVD] = 1 },
};

#define R(x)	((x) - QUIC_STREAM_RECV_STATE_RECV)
static const bool recv_legal[6][6] = {
	[R(QUIC_STREAM_RECV_STATE_RECV)] = {
		[R(QUIC_STREAM_RECV_STATE_SIZE_KNOWN)] = 1,
		[R(QUIC_STREAM_RECV_STATE_RECVD)] = 1,
		[R(QUIC_STREAM_RECV_STATE_RESET_RECVD)] = 1 },
	[R(QUIC_STREAM_RECV_STATE_SIZE_KNOWN)] = {
		[R(QUIC_STREAM_RECV_STATE_RECVD)] = 1,
		[R(QUIC_STREAM_RECV_STATE_RESET_RECVD)] = 1 },
	[R(QUIC_STREAM_RECV_STATE_RECVD)] = {
		[R(QUIC_STREAM_RECV_STATE_READ)] = 1 },
	[R(QUIC_STREAM_RECV_STATE_RESET_RECVD)] = {
		[R(QUIC_STREAM_RECV_STATE_RESET_READ)] = 1 },
};

static int stream_state_machines(struct quic_test *t)
{
	struct quic_stream s = {};
	u8 from, to;
	int r;

	for (from = 0; from < 6; from++) {
		for (to = 0; to < 14; to++) {
			bool legal = to < 6 && send_legal[from][to];

			s.send_state = from;
			r = quic_stream_set_send_state(&s, to);
			if (legal != !r || s.send_state != (legal ? to : from))
				return quic_test_fail(t, "send %u -> %u: %d",
						      from, to, r);
		}
	}
	for (from = 6; from < 12; from++) {
		for (to = 0; to < 14; to++) {
			bool legal = to >= 6 && to < 12 &&
				     recv_legal[R(from)][R(to)];

			s.recv_state = from;
			r = quic_stream_set_recv_state(&s, to);
			if (legal != !r || s.recv_state != (legal ? to : from))
				return quic_test_fail(t, "recv %u -> %u: %d",
						      from, to, r);
		}
	}
	return 0;
}

/* The transitions made by the frame and application entry points. */
static int stream_state_paths(struct quic_test *t)
{
	struct fixture *f = fx_new(false, NULL);
	struct quic_stream *s;
	u8 buf[8];
	u64 err;
	bool fin;
	int ret;

	if (!f)
		return -ENOMEM;
	ret = quic_test_fail(t, "send: ready send sent recvd");
	s = quic_stream_send_get(&f->t, 0, false, true);
	if (IS_ERR(s) || s->send_state != QUIC_STREAM_SEND_STATE_READY ||
	    quic_stream_send_advance(&f->t, s, 0, false) ||
	    s->send_state != QUIC_STREAM_SEND_STATE_READY ||
	    quic_stream_send_advance(&f->t, s, 3, false) ||
	    s->send_state != QUIC_STREAM_SEND_STATE_SEND ||
	    quic_stream_send_advance(&f->t, s, 3, true) ||
	    s->send_state != QUIC_STREAM_SEND_STATE_SENT ||
	    quic_stream_reset(s, 1) ||
	    s->send_state != QUIC_STREAM_SEND_STATE_RESET_SENT ||
	    s->send_errcode != 1 || quic_stream_reset(s, 2) != -EINVAL)
		goto out;
	ret = quic_test_fail(t, "recv: recv size-known recvd read");
	if (quic_stream_recv_data(&f->t, s, 2, "cd", 2, true, &err) ||
	    s->recv_state != QUIC_STREAM_RECV_STATE_SIZE_KNOWN ||
	    quic_stream_recv_data(&f->t, s, 0, "ab", 2, false, &err) ||
	    s->recv_state != QUIC_STREAM_RECV_STATE_RECVD ||
	    quic_stream_stop_sending(s) != -EINVAL)
		goto out;
	if (rd(f, s, buf, 3, &fin) != 3 || fin ||
	    s->recv_state != QUIC_STREAM_RECV_STATE_RECVD)
		goto out;
	if (rd(f, s, buf + 3, 5, &fin) != 1 || !fin ||
	    s->recv_state != QUIC_STREAM_RECV_STATE_READ ||
	    memcmp(buf, "abcd", 4))
		goto out;
	/* a late duplicate is accepted and ignored */
	if (quic_stream_recv_data(&f->t, s, 0, "ab", 2, false, &err) ||
	    quic_stream_recv_reset(&f->t, s, 9, 4, &err) ||
	    s->recv_state != QUIC_STREAM_RECV_STATE_READ)
		goto out;
	if (quic_stream_release(&f->t, s) ||
	    quic_stream_set_send_state(s, QUIC_STREAM_SEND_STATE_RESET_RECVD) ||
	    !quic_stream_release(&f->t, s))
		goto out;
	ret = quic_test_fail(t, "bare FIN");
	s = quic_stream_send_get(&f->t, 4, false, true);
	if (IS_ERR(s) || quic_stream_recv_data(&f->t, s, 0, NULL, 0, true, &err) ||
	    s->recv_state != QUIC_STREAM_RECV_STATE_RECVD ||
	    rd(f, s, buf, 8, &fin) != 0 || !fin ||
	    s->recv_state != QUIC_STREAM_RECV_STATE_READ)
		goto out;
	ret = quic_test_fail(t, "STOP_SENDING");
	s = quic_stream_send_get(&f->t, 8, false, true);
	if (IS_ERR(s) || quic_stream_stop_sending(s) ||
	    quic_stream_stop_sending(s) != -EAGAIN)
		goto out;
	ret = quic_test_fail(t, "peer STOP_SENDING");
	if (quic_stream_peer_stop_sending(s, 77) != 1 ||
	    s->send_state != QUIC_STREAM_SEND_STATE_RESET_SENT ||
	    s->send_errcode != 77 || quic_stream_peer_stop_sending(s, 78) != 0)
		goto out;
	ret = quic_test_fail(t, "peer RESET_STREAM");
	if (quic_stream_recv_data(&f->t, s, 0, "abc", 3, false, &err) ||
	    quic_stream_recv_reset(&f->t, s, 5, 10, &err) != 1 ||
	    s->recv_state != QUIC_STREAM_RECV_STATE_RESET_READ ||
	    s->recv_errcode != 5 || f->t.mem || f->m.mem ||
	    f->t.recv.read != 10 + 4 || f->t.recv.highest != 10 + 4)
		goto out;
	/* quic-api.rst 5.4: nothing of a reset stream is read, no error. */
	if (quic_stream_recv_reset(&f->t, s, 5, 10, &err) ||
	    quic_stream_recv_data(&f->t, s, 3, "d", 1, false, &err) ||
	    quic_stream_readable(&f->t, s) ||
	    rd(f, s, buf, 8, &fin) != 0 || fin)
		goto out;
	ret = 0;
out:
	fx_free(f);
	return ret;
}

static int stream_final_size(struct quic_test *t)
{
	struct fixture *f = fx_new(true, NULL);
	struct quic_stream *s;
	u64 err = 0;
	int ret;

	if (!f)
		return -ENOMEM;
	s = quic_stream_recv_get(&f->t, 0, false, &err);
	ret = quic_test_fail(t, "setup");
	if (IS_ERR_OR_NULL(s) ||
	    quic_stream_recv_data(&f->t, s, 0, "0123456789", 10, true, &err))
		goto out;
	ret = quic_test_fail(t, "data beyond final size");
	if (quic_stream_recv_data(&f->t, s, 8, "89a", 3, false, &err) != -EPROTO ||
	    err != QUIC_TRANSPORT_ERROR_FINAL_SIZE)
		goto out;
	ret = quic_test_fail(t, "final size changed");
	err = 0;
	if (quic_stream_recv_data(&f->t, s, 0, "0", 1, true, &err) != -EPROTO ||
	    err != QUIC_TRANSPORT_ERROR_FINAL_SIZE)
		goto out;
	err = 0;
	if (quic_stream_recv_reset(&f->t, s, 0, 11, &err) != -EPROTO ||
	    err != QUIC_TRANSPORT_ERROR_FINAL_SIZE)
		goto out;
	ret = quic_test_fail(t, "same final size again");
	if (quic_stream_recv_data(&f->t, s, 5, "56789", 5, true, &err))
		goto out;
	ret = quic_test_fail(t, "FIN below data received");
	s = quic_stream_recv_get(&f->t, 4, false, &err);
	err = 0;
	if (IS_ERR_OR_NULL(s) ||
	    quic_stream_recv_data(&f->t, s, 10, "a", 1, false, &err) ||
	    quic_stream_recv_data(&f->t, s, 0, "01", 2, true, &err) != -EPROTO ||
	    err != QUIC_TRANSPORT_ERROR_FINAL_SIZE)
		goto out;
	err = 0;
	if (quic_stream_recv_reset(&f->t, s, 0, 5, &err) != -EPROTO ||
	    err != QUIC_TRANSPORT_ERROR_FINAL_SIZE)
		goto out;
	ret = quic_test_fail(t, "reset then data beyond");
	if (quic_stream_recv_reset(&f->t, s, 0, 11, &err) != 1)
		goto out;
	err = 0;
	if (quic_stream_recv_data(&f->t, s, 11, "x", 1, false, &err) != -EPROTO ||
	    err != QUIC_TRANSPORT_ERROR_FINAL_SIZE)
		goto out;
	ret = 0;
out:
	fx_free(f);
	return ret;
}

static int stream_recv_flow_errors(struct quic_test *t)
{
	struct quic_stream_params p = test_params;
	struct fixture *f;
	struct quic_stream *s, *s2;
	u8 *buf;
	u64 err = 0;
	int ret;

	p.max_data = 100000;
	f = fx_new(true, &p);
	buf = kzalloc(1 << 16, GFP_KERNEL);
	ret = -ENOMEM;
	if (!f || !buf)
		goto out;
	s = quic_stream_recv_get(&f->t, 0, false, &err);
	s2 = quic_stream_recv_get(&f->t, 4, false, &err);
	ret = quic_test_fail(t, "beyond stream limit");
	if (IS_ERR_OR_NULL(s) || IS_ERR_OR_NULL(s2) ||
	    quic_stream_recv_data(&f->t, s, 1 << 16, "x", 1, false, &err) != -EPROTO ||
	    err != QUIC_TRANSPORT_ERROR_FLOW_CONTROL)
		goto out;
	err = 0;
	if (quic_stream_recv_reset(&f->t, s, 0, (1 << 16) + 1, &err) != -EPROTO ||
	    err != QUIC_TRANSPORT_ERROR_FLOW_CONTROL)
		goto out;
	ret = quic_test_fail(t, "at the stream limit");
	if (quic_stream_recv_data(&f->t, s, (1 << 16) - 1, "x", 1, false, &err))
		goto out;
	ret = quic_test_fail(t, "beyond connection limit");
	err = 0;
	if (quic_stream_recv_data(&f->t, s2, 100000 - (1 << 16) + 1, "x", 1,
				  false, &err) != -EPROTO ||
	    err != QUIC_TRANSPORT_ERROR_FLOW_CONTROL)
		goto out;
	if (quic_stream_recv_data(&f->t, s2, 100000 - (1 << 16) - 1, "x", 1,
				  false, &err))
		goto out;
	ret = quic_test_fail(t, "beyond 2^62");
	err = 0;
	if (quic_stream_recv_data(&f->t, s2, QUIC_STREAM_MAX_OFFSET, "xy", 2,
				  false, &err) != -EPROTO ||
	    err != QUIC_TRANSPORT_ERROR_FLOW_CONTROL)
		goto out;
	ret = quic_test_fail(t, "memory only for what was stored");
	if (f->m.mem != f->t.mem || f->t.mem > 2 * 64)
		goto out;
	ret = 0;
out:
	kfree(buf);
	if (f)
		fx_free(f);
	return ret;
}

static int stream_send_flow(struct quic_test *t)
{
	struct quic_stream_params p = test_params;
	struct fixture *f;
	struct quic_stream *a, *b;
	u64 err;
	int ret;

	p.max_data = 1000;
	p.max_stream_data_bidi_remote = 600;
	f = fx_new(false, &p);
	if (!f)
		return -ENOMEM;
	ret = quic_test_fail(t, "credit");
	a = quic_stream_send_get(&f->t, 0, false, true);
	b = quic_stream_send_get(&f->t, 4, false, true);
	if (IS_ERR(a) || IS_ERR(b) || quic_stream_send_credit(&f->t, a) != 600 ||
	    quic_stream_send_advance(&f->t, a, 601, false) != -ENOSPC ||
	    quic_stream_send_advance(&f->t, a, 600, false) ||
	    quic_stream_send_credit(&f->t, a) != 0 ||
	    quic_stream_send_credit(&f->t, b) != 400)
		goto out;
	ret = quic_test_fail(t, "STREAM_DATA_BLOCKED once");
	if (quic_stream_send_blocked(&f->t, a) != QUIC_STREAM_BLOCKED_STREAM ||
	    quic_stream_send_blocked(&f->t, a) != 0)
		goto out;
	ret = quic_test_fail(t, "DATA_BLOCKED");
	if (quic_stream_send_advance(&f->t, b, 400, false) ||
	    quic_stream_send_credit(&f->t, b) != 0 ||
	    quic_stream_send_blocked(&f->t, b) != QUIC_STREAM_BLOCKED_DATA ||
	    quic_stream_send_blocked(&f->t, b) != 0 ||
	    quic_stream_send_blocked(&f->t, a) != 0)
		goto out;
	ret = quic_test_fail(t, "MAX_DATA");
	if (quic_stream_peer_max_data(&f->t, 900) ||
	    !quic_stream_peer_max_data(&f->t, 2000) ||
	    quic_stream_send_credit(&f->t, b) != 200 ||
	    quic_stream_send_credit(&f->t, a) != 0)
		goto out;
	ret = quic_test_fail(t, "MAX_STREAM_DATA");
	if (quic_stream_peer_max_stream_data(a, 500) ||
	    !quic_stream_peer_max_stream_data(a, 5000) ||
	    quic_stream_send_credit(&f->t, a) != 1000 ||
	    quic_stream_recv_get(&f->t, 0, true, &err) != a)
		goto out;
	ret = quic_test_fail(t, "blocked again at the new limit");
	if (quic_stream_send_advance(&f->t, a, 1000, false) ||
	    quic_stream_send_blocked(&f->t, a) != QUIC_STREAM_BLOCKED_DATA)
		goto out;
	ret = quic_test_fail(t, "no credit after FIN");
	if (!quic_stream_peer_max_data(&f->t, 10000) ||
	    quic_stream_send_advance(&f->t, b, 10, true) ||
	    quic_stream_send_credit(&f->t, b) != 0 ||
	    quic_stream_send_blocked(&f->t, b) != 0)
		goto out;
	ret = 0;
out:
	fx_free(f);
	return ret;
}

static int stream_window_growth(struct quic_test *t)
{
	struct quic_fc_recv fc = {
		.max = 1000, .window = 1000, .window_max = 8000,
	};
	u64 now = 1000, rtt = 100;
	int i;

	fc.highest = 400;
	fc.read = 400;
	if (quic_fc_recv_update(&fc, now, rtt))
		return quic_test_fail(t, "update before half the window");
	fc.highest = 501;
	fc.read = 501;
	if (!quic_fc_recv_update(&fc, now, rtt) || fc.max != 1501 ||
	    fc.window != 1000)
		return quic_test_fail(t, "first update: max %llu", fc.max);
	/* the peer keeps consuming within 2 RTT: the window doubles */
	for (i = 0; i < 5; i++) {
		u64 w = fc.window;

		now += 50;
		fc.read = fc.max - w / 2 + 1;
		fc.highest = fc.read;
		if (!quic_fc_recv_update(&fc, now, rtt))
			return quic_test_fail(t, "no update in round %d", i);
		if (fc.window != min(2 * w, 8000ULL) ||
		    fc.max != fc.read + fc.window)
			return quic_test_fail(t, "round %d: window %llu", i,
					      fc.window);
	}
	if (fc.window != 8000)
		return quic_test_fail(t, "window %llu not capped", fc.window);
	/* slow consumption keeps the window */
	fc.window = 2000;
	now += 1000;
	fc.read = fc.max - 999;
	if (!quic_fc_recv_update(&fc, now, rtt) || fc.window != 2000)
		return quic_test_fail(t, "slow reader grew the window");
	return 0;
}

/* The stream and connection windows grow as a fast reader drains them. */
static int stream_window_transfer(struct quic_test *t)
{
	struct quic_stream_params p = test_params;
	struct quic_stream *s;
	struct fixture *f;
	u64 off = 0, now = 1, err, updates = 0;
	u8 *buf;
	bool fin;
	int ret = -ENOMEM, i;

	p.max_data = 4096;
	p.max_stream_data_bidi_remote = 2048;
	f = fx_new(true, &p);
	buf = kmalloc(1 << 16, GFP_KERNEL);
	if (!f || !buf)
		goto out;
	s = quic_stream_recv_get(&f->t, 0, false, &err);
	ret = quic_test_fail(t, "transfer");
	if (IS_ERR_OR_NULL(s))
		goto out;
	for (i = 0; i < 200; i++) {
		u64 len = min(s->recv.max, f->t.recv.max - f->t.recv.highest +
			      s->recv.highest) - off;

		len = min(len, 1ULL << 16);
		memset(buf, 0, len);
		if (quic_stream_recv_data(&f->t, s, off, buf, len, false, &err))
			goto out;
		off += len;
		if ((u64)rd(f, s, buf, 1 << 16, &fin) != len)
			goto out;
		now += 10;
		if (quic_stream_window_update(s, now, 100))
			updates++;
		quic_fc_recv_update(&f->t.recv, now, 100);
	}
	if (s->recv.window != 1 << 20 || f->t.recv.window < 1 << 20 || !updates)
		return quic_test_fail(t, "windows %llu %llu", s->recv.window,
				      f->t.recv.window);
	if (f->t.mem || f->m.mem)
		goto out;
	ret = 0;
out:
	kfree(buf);
	if (f)
		fx_free(f);
	return ret;
}

/* Feed [off, off + len) pieces of the pattern; read all and compare. */
struct seg {
	u32 off;
	u32 len;
};

static int feed(struct quic_test *t, struct fixture *f, struct quic_stream *s,
		const u8 *src, const struct seg *segs, u32 n, u32 total)
{
	u64 err = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		u32 end = segs[i].off + segs[i].len;

		if (quic_stream_recv_data(&f->t, s, segs[i].off,
					  src + segs[i].off, segs[i].len,
					  end == total, &err))
			return quic_test_fail(t, "segment %u: err %llu", i, err);
	}
	return 0;
}

static int check_read(struct quic_test *t, struct fixture *f,
		      struct quic_stream *s, const u8 *src, u32 total)
{
	u8 *dst = vmalloc(total + 1);
	u32 got = 0;
	bool fin = false;
	ssize_t n;
	int ret = 0;

	if (!dst)
		return -ENOMEM;
	while (!fin) {
		n = rd(f, s, dst + got, min(total + 1 - got, 777U), &fin);
		if (n <= 0 && !fin) {
			ret = quic_test_fail(t, "read %zd at %u", n, got);
			goto out;
		}
		got += n;
	}
	if (got != total || memcmp(dst, src, total))
		ret = quic_test_fail(t, "read %u bytes, mismatch", got);
	else if (f->t.mem || f->m.mem)
		ret = quic_test_fail(t, "%llu bytes still charged", f->t.mem);
out:
	vfree(dst);
	return ret;
}

static u8 *pattern_buf(u32 len)
{
	u8 *p = vmalloc(len);
	u32 i;

	if (p)
		for (i = 0; i < len; i++)
			p[i] = pattern(i);
	return p;
}

static int reassemble(struct quic_test *t, const struct seg *segs, u32 n,
		      u32 total)
{
	struct fixture *f = fx_new(true, NULL);
	u8 *src = pattern_buf(total);
	struct quic_stream *s;
	u64 err;
	int ret = -ENOMEM;

	if (!f || !src)
		goto out;
	s = quic_stream_recv_get(&f->t, 0, false, &err);
	if (IS_ERR_OR_NULL(s))
		goto out;
	ret = feed(t, f, s, src, segs, n, total);
	if (!ret && s->recv_state != QUIC_STREAM_RECV_STATE_RECVD)
		ret = quic_test_fail(t, "state %u", s->recv_state);
	if (!ret)
		ret = check_read(t, f, s, src, total);
out:
	vfree(src);
	if (f)
		fx_free(f);
	return ret;
}

static int reasm_in_order(struct quic_test *t)
{
	static const struct seg segs[] = {
		{ 0, 100 }, { 100, 1 }, { 101, 5000 }, { 5101, 99 },
	};

	return reassemble(t, segs, ARRAY_SIZE(segs), 5200);
}

static int reasm_reversed(struct quic_test *t)
{
	static const struct seg segs[] = {
		{ 5101, 99 }, { 101, 5000 }, { 100, 1 }, { 0, 100 },
	};

	return reassemble(t, segs, ARRAY_SIZE(segs), 5200);
}

static int reasm_overlap(struct quic_test *t)
{
	static const struct seg segs[] = {
		{ 50, 100 }, { 0, 60 }, { 140, 30 }, { 20, 300 },
		{ 10, 20 }, { 300, 100 }, { 0, 400 }, { 399, 101 },
	};

	return reassemble(t, segs, ARRAY_SIZE(segs), 500);
}

/* Duplicates and overlaps cost no memory beyond one copy of each byte. */
static int reasm_duplicate(struct quic_test *t)
{
	struct fixture *f = fx_new(true, NULL);
	u8 *src = pattern_buf(4000);
	struct quic_stream *s;
	u64 err, mem;
	int ret = -ENOMEM, i;

	if (!f || !src)
		goto out;
	s = quic_stream_recv_get(&f->t, 0, false, &err);
	ret = quic_test_fail(t, "duplicate");
	if (IS_ERR_OR_NULL(s) ||
	    quic_stream_recv_data(&f->t, s, 1000, src + 1000, 1000, false, &err))
		goto out;
	mem = f->t.mem;
	for (i = 0; i < 100; i++)
		if (quic_stream_recv_data(&f->t, s, 1000 + i, src + 1000 + i,
					  1000 - i, false, &err) ||
		    f->t.mem != mem)
			goto out;
	if (quic_stream_recv_data(&f->t, s, 3000, src + 3000, 1000, true, &err))
		goto out;
	mem = f->t.mem;
	if (quic_stream_recv_data(&f->t, s, 1000, src + 1000, 3000, true, &err) ||
	    f->t.mem <= mem || f->t.mem > mem + 1000 + 128)
		goto out;
	mem = f->t.mem;
	if (quic_stream_recv_data(&f->t, s, 500, src + 500, 3500, true, &err) ||
	    f->t.mem <= mem + 500 || f->t.mem > mem + 500 + 128)
		goto out;
	if (quic_stream_recv_data(&f->t, s, 0, src, 4000, true, &err) ||
	    s->recv_state != QUIC_STREAM_RECV_STATE_RECVD)
		goto out;
	ret = check_read(t, f, s, src, 4000);
out:
	vfree(src);
	if (f)
		fx_free(f);
	return ret;
}

/* A packet's skb holding the bytes [@off, @off + @len) of the pattern. */
static struct sk_buff *pattern_skb(u32 off, u32 len)
{
	struct sk_buff *skb = alloc_skb(len, GFP_KERNEL);
	u32 i;

	if (skb)
		for (i = 0; i < len; i++)
			skb_put_u8(skb, pattern(off + i));
	return skb;
}

/* Most of a packet, in order, is kept by reference to its skb, charged
 * its truesize; a smaller part, what fills a small gap, or anything out
 * of order is copied; a duplicate takes nothing. Reading, or a reset,
 * drops the reference.
 */
static int reasm_skb(struct quic_test *t)
{
	struct fixture *f = fx_new(true, NULL);
	struct sk_buff *a = NULL, *b = NULL, *c = NULL;
	u8 *src = pattern_buf(3000);
	struct quic_stream *s;
	u32 big;
	u64 err;
	int ret = -ENOMEM;

	a = pattern_skb(0, 1500);
	b = pattern_skb(0, 1500);
	if (!f || !src || !a || !b)
		goto out;
	big = a->truesize / 2 + 1;
	ret = quic_test_fail(t, "skb reference");
	s = quic_stream_recv_get(&f->t, 0, false, &err);
	if (IS_ERR_OR_NULL(s) || big + 100 > a->len ||
	    quic_stream_recv_skb(&f->t, s, 0, a->data, big, false, a, &err) ||
	    refcount_read(&a->users) != 2 || f->t.mem < a->truesize ||
	    f->m.mem != f->t.mem)
		goto out;
	/* The rest of the packet: copied. */
	if (quic_stream_recv_skb(&f->t, s, big, a->data + big, 100, false, a,
				 &err) ||
	    refcount_read(&a->users) != 2)
		goto out;
	/* A retransmission of both: nothing new, no reference. */
	if (quic_stream_recv_skb(&f->t, s, 0, b->data, big + 100, false, b,
				 &err) ||
	    refcount_read(&b->users) != 1)
		goto out;
	/* Overlapping the end, 100 new bytes: copied. */
	c = pattern_skb(big, 1500);
	if (!c || quic_stream_recv_skb(&f->t, s, big, c->data, 200, false, c,
				       &err) ||
	    refcount_read(&c->users) != 1)
		goto out;
	/* A packet of new bytes, the stream's end: referenced. */
	kfree_skb(c);
	c = pattern_skb(big + 200, 1500);
	if (!c || quic_stream_recv_skb(&f->t, s, big + 200, c->data, c->len,
				       true, c, &err) ||
	    refcount_read(&c->users) != 2)
		goto out;
	ret = check_read(t, f, s, src, big + 200 + 1500);
	if (!ret && (refcount_read(&a->users) != 1 ||
		     refcount_read(&c->users) != 1))
		ret = quic_test_fail(t, "reference kept after reading");
	if (ret)
		goto out;
	/* Out of order: copied, however large. In order, referenced; and
	 * data of a stream that is reset goes with its reference.
	 */
	s = quic_stream_recv_get(&f->t, 4, false, &err);
	ret = quic_test_fail(t, "skb reference of a reset stream");
	if (IS_ERR_OR_NULL(s) ||
	    quic_stream_recv_skb(&f->t, s, 1500, a->data, big, false, a,
				 &err) ||
	    refcount_read(&a->users) != 1 ||
	    quic_stream_recv_skb(&f->t, s, 0, a->data, big, false, a, &err) ||
	    refcount_read(&a->users) != 2 ||
	    quic_stream_recv_reset(&f->t, s, 1, 4000, &err) != 1 ||
	    refcount_read(&a->users) != 1 || f->t.mem || f->m.mem)
		goto out;
	ret = 0;
out:
	if (f)
		fx_free(f);
	kfree_skb(a);
	kfree_skb(b);
	kfree_skb(c);
	vfree(src);
	return ret;
}

static int reasm_gaps(struct quic_test *t)
{
	struct fixture *f = fx_new(true, NULL);
	u8 *src = pattern_buf(300), buf[300];
	struct quic_stream *s;
	bool fin;
	u64 err;
	int ret = -ENOMEM;

	if (!f || !src)
		goto out;
	s = quic_stream_recv_get(&f->t, 0, false, &err);
	ret = quic_test_fail(t, "gap");
	if (IS_ERR_OR_NULL(s) ||
	    quic_stream_recv_data(&f->t, s, 100, src + 100, 100, false, &err) ||
	    rd(f, s, buf, 300, &fin) != 0 || fin)
		goto out;
	if (quic_stream_recv_data(&f->t, s, 0, src, 50, false, &err) ||
	    rd(f, s, buf, 300, &fin) != 50 || fin ||
	    memcmp(buf, src, 50))
		goto out;
	if (quic_stream_recv_data(&f->t, s, 250, src + 250, 50, true, &err) ||
	    s->recv_state != QUIC_STREAM_RECV_STATE_SIZE_KNOWN ||
	    quic_stream_recv_data(&f->t, s, 40, src + 40, 70, false, &err) ||
	    rd(f, s, buf, 300, &fin) != 150 || fin ||
	    memcmp(buf, src + 50, 150))
		goto out;
	if (quic_stream_recv_data(&f->t, s, 200, src + 200, 50, false, &err) ||
	    s->recv_state != QUIC_STREAM_RECV_STATE_RECVD ||
	    rd(f, s, buf, 300, &fin) != 100 || !fin ||
	    memcmp(buf, src + 200, 100))
		goto out;
	ret = 0;
	if (f->t.mem || f->m.mem)
		ret = quic_test_fail(t, "memory left");
out:
	vfree(src);
	if (f)
		fx_free(f);
	return ret;
}

/* Beyond the window is FLOW_CONTROL_ERROR; a refused charge is not fatal. */
static int reasm_limits(struct quic_test *t)
{
	struct fixture *f = fx_new(true, NULL);
	u8 *src = pattern_buf(1 << 16);
	struct quic_stream *s;
	u64 err = 0, mem;
	int ret = -ENOMEM;

	if (!f || !src)
		goto out;
	s = quic_stream_recv_get(&f->t, 0, false, &err);
	ret = quic_test_fail(t, "beyond window");
	if (IS_ERR_OR_NULL(s) ||
	    quic_stream_recv_data(&f->t, s, 100, src, 1 << 16, false, &err) != -EPROTO ||
	    err != QUIC_TRANSPORT_ERROR_FLOW_CONTROL || f->t.mem)
		goto out;
	ret = quic_test_fail(t, "charge refused");
	f->m.limit = 5000;
	if (quic_stream_recv_data(&f->t, s, 1000, src + 1000, 9000, false,
				  &err) != -ENOBUFS || f->m.mem > 5000 ||
	    f->m.mem != f->t.mem)
		goto out;
	mem = f->t.mem;
	f->m.limit = S64_MAX;
	if (quic_stream_recv_data(&f->t, s, 0, src, 10000, true, &err) ||
	    s->recv_state != QUIC_STREAM_RECV_STATE_RECVD ||
	    f->m.mem != f->t.mem || f->t.mem < 10000 || mem > f->t.mem)
		goto out;
	ret = check_read(t, f, s, src, 10000);
out:
	vfree(src);
	if (f)
		fx_free(f);
	return ret;
}

/* A full-size frame is charged close to its size, every chunk its slab. */
static int reasm_charge(struct quic_test *t)
{
	struct fixture *f = fx_new(true, NULL);
	u8 *src = pattern_buf(4000);
	struct quic_stream *s;
	u64 err;
	int ret = -ENOMEM, i;

	if (!f || !src)
		goto out;
	s = quic_stream_recv_get(&f->t, 0, false, &err);
	ret = quic_test_fail(t, "1200-byte frame costs %llu", f->t.mem);
	if (IS_ERR_OR_NULL(s) ||
	    quic_stream_recv_data(&f->t, s, 100, src + 100, 1200, false, &err) ||
	    f->t.mem < 1200 || f->t.mem > 1280 || f->t.mem != f->m.mem)
		goto out;
	ret = quic_test_fail(t, "1-byte frames");
	for (i = 0; i < 500; i++)
		if (quic_stream_recv_data(&f->t, s, 1400 + 2 * i,
					  src + 1400 + 2 * i, 1, false, &err))
			goto out;
	if (f->t.mem != f->m.mem || f->t.mem < 1280 + 500 * 41)
		goto out;
	ret = quic_test_fail(t, "filled in");
	if (quic_stream_recv_data(&f->t, s, 0, src, 4000, true, &err))
		goto out;
	ret = check_read(t, f, s, src, 4000);
out:
	vfree(src);
	if (f)
		fx_free(f);
	return ret;
}

/* 1000 chunks of random sizes, with overlaps, in a random order. */
static int reasm_random_1000(struct quic_test *t)
{
	const u32 n = 1000;
	struct seg *segs = kvcalloc(n, sizeof(*segs), GFP_KERNEL);
	u64 st = 0x9e3779b97f4a7c15ULL;
	u32 i, off = 0;
	int ret = -ENOMEM, round;

	if (!segs)
		return -ENOMEM;
	for (round = 0; round < 4; round++) {
		off = 0;
		for (i = 0; i < n; i++) {
			u32 len = 1 + xs(&st) % 60;
			u32 back = (round & 1) ? xs(&st) % 16 : 0;

			segs[i].off = off > back ? off - back : 0;
			segs[i].len = len + (off - segs[i].off);
			off += len;
		}
		for (i = n - 1; i > 0; i--) {
			u32 j = xs(&st) % (i + 1);
			struct seg tmp = segs[i];

			segs[i] = segs[j];
			segs[j] = tmp;
		}
		/* the FIN goes on the segment that ends at off */
		ret = reassemble(t, segs, n, off);
		if (ret)
			break;
	}
	kvfree(segs);
	return ret;
}

/* 1000 streams of each side open and close; nothing leaks. */
static int streams_1000(struct quic_test *t)
{
	struct quic_stream_params p = test_params;
	struct quic_stream *s;
	struct fixture *f;
	u64 err, count, i;
	int ret;

	p.max_streams_bidi = 1000;
	p.max_streams_uni = 1000;
	p.max_data = 1 << 24;
	f = fx_new(true, &p);
	if (!f)
		return -ENOMEM;
	ret = quic_test_fail(t, "a new table is small");
	if ((1U << f->t.bits) > 16 || f->t.max_bits != 12)
		goto out;
	ret = quic_test_fail(t, "open 1000 peer streams");
	s = quic_stream_recv_get(&f->t, 4 * 999, false, &err);
	if (IS_ERR_OR_NULL(s) || f->t.count != 1000)
		goto out;
	ret = quic_test_fail(t, "open 1000 local streams");
	for (i = 0; i < 1000; i++) {
		s = quic_stream_send_get(&f->t, -1, true, true);
		if (IS_ERR(s) || s->id != (s64)(4 * i + 3))
			goto out;
	}
	if (f->t.count != 2000)
		goto out;
	ret = quic_test_fail(t, "the table grew with its streams");
	if ((1U << f->t.bits) < 2000 / 2 || f->t.bits > f->t.max_bits)
		goto out;
	ret = quic_test_fail(t, "data on every stream");
	for (i = 0; i < 1000; i++) {
		s = quic_stream_find(&f->t, 4 * i);
		if (!s || quic_stream_recv_data(&f->t, s, 1, "yz", 2, false, &err))
			goto out;
	}
	if (!f->t.mem)
		goto out;
	ret = quic_test_fail(t, "close");
	for (i = 0; i < 1000; i++) {
		s = quic_stream_find(&f->t, 4 * i);
		if (!s || close_peer_bidi(f, s))
			goto out;
		s = quic_stream_find(&f->t, 4 * i + 3);
		if (!s || quic_stream_send_advance(&f->t, s, 10, true) ||
		    quic_stream_set_send_state(s, QUIC_STREAM_SEND_STATE_RECVD) ||
		    !quic_stream_release(&f->t, s))
			goto out;
	}
	if (f->t.count || f->t.mem || f->m.mem)
		goto out;
	ret = quic_test_fail(t, "MAX_STREAMS after closing");
	if (!quic_stream_max_streams_update(&f->t, false, &count) || count != 2000)
		goto out;
	ret = quic_test_fail(t, "buffered data freed with the table");
	s = quic_stream_recv_get(&f->t, 4 * 1500, false, &err);
	if (IS_ERR_OR_NULL(s) ||
	    quic_stream_recv_data(&f->t, s, 5, "abc", 3, false, &err) ||
	    !f->m.mem)
		goto out;
	quic_stream_table_free(&f->t);
	if (f->m.mem)
		goto out;
	ret = 0;
out:
	fx_free(f);
	return ret;
}

/* MSG_PEEK: the bytes a read would return, across chunks, and the FIN;
 * nothing consumed.
 */
static int stream_peek(struct quic_test *t)
{
	struct fixture *f = fx_new(true, NULL);
	struct quic_stream *s;
	char buf[16];
	bool fin;
	u64 err;
	int ret;

	if (!f)
		return -ENOMEM;
	ret = quic_test_fail(t, "open");
	s = quic_stream_recv_get(&f->t, 0, false, &err);
	if (IS_ERR_OR_NULL(s) ||
	    quic_stream_recv_data(&f->t, s, 0, "abc", 3, false, &err) ||
	    quic_stream_recv_data(&f->t, s, 3, "def", 3, true, &err))
		goto out;
	ret = quic_test_fail(t, "part, then all with the FIN");
	if (pk(f, s, buf, 4, &fin) != 4 || fin || memcmp(buf, "abcd", 4) ||
	    pk(f, s, buf, sizeof(buf), &fin) != 6 || !fin ||
	    memcmp(buf, "abcdef", 6))
		goto out;
	ret = quic_test_fail(t, "nothing consumed");
	if (rd(f, s, buf, 2, &fin) != 2 || fin ||
	    pk(f, s, buf, sizeof(buf), &fin) != 4 || !fin ||
	    memcmp(buf, "cdef", 4) ||
	    rd(f, s, buf, sizeof(buf), &fin) != 4 || !fin)
		goto out;
	ret = 0;
out:
	fx_free(f);
	return ret;
}

/* The readable list: streams in the order they became readable, a
 * partially read stream behind the others, never a stream with a gap.
 */
static int stream_readable_list(struct quic_test *t)
{
	struct fixture *f = fx_new(true, NULL);
	struct quic_stream *a, *b, *c;
	char buf[8];
	bool fin;
	u64 err;
	int ret;

	if (!f)
		return -ENOMEM;
	ret = quic_test_fail(t, "open");
	c = quic_stream_recv_get(&f->t, 8, false, &err);
	a = quic_stream_find(&f->t, 0);
	b = quic_stream_find(&f->t, 4);
	if (IS_ERR_OR_NULL(c) || !a || !b || quic_stream_first_readable(&f->t))
		goto out;
	ret = quic_test_fail(t, "order of arrival");
	if (quic_stream_recv_data(&f->t, c, 0, "cc", 2, true, &err) ||
	    quic_stream_recv_data(&f->t, a, 0, "aaaa", 4, false, &err) ||
	    quic_stream_recv_data(&f->t, b, 3, "b", 1, false, &err) ||
	    quic_stream_first_readable(&f->t) != c)
		goto out;
	ret = quic_test_fail(t, "read to the FIN");
	if (rd(f, c, buf, sizeof(buf), &fin) != 2 || !fin ||
	    quic_stream_first_readable(&f->t) != a)
		goto out;
	ret = quic_test_fail(t, "neither a gap nor a reset is readable");
	if (quic_stream_readable(&f->t, b) ||
	    quic_stream_recv_reset(&f->t, b, 5, 10, &err) != 1 ||
	    quic_stream_readable(&f->t, b))
		goto out;
	ret = quic_test_fail(t, "partly read goes last");
	if (rd(f, a, buf, 1, &fin) != 1 || quic_stream_first_readable(&f->t) != a)
		goto out;
	ret = quic_test_fail(t, "all read");
	if (rd(f, a, buf, sizeof(buf), &fin) != 3 ||
	    quic_stream_first_readable(&f->t))
		goto out;
	ret = 0;
out:
	fx_free(f);
	return ret;
}

/* RESET_STREAM, STOP_SENDING and STREAM_DATA_BLOCKED: queued, sent,
 * queued again on a PTO until acknowledged.
 */
static int stream_ctl_frames(struct quic_test *t)
{
	struct fixture *f = fx_new(false, NULL);
	struct quic_stream *s, *u, *p;
	u64 err;
	int ret;

	if (!f)
		return -ENOMEM;
	ret = quic_test_fail(t, "open");
	s = quic_stream_send_get(&f->t, 0, false, true);
	u = quic_stream_send_get(&f->t, 2, true, true);
	p = quic_stream_recv_get(&f->t, 1, true, &err);
	if (IS_ERR_OR_NULL(s) || IS_ERR_OR_NULL(u) || IS_ERR_OR_NULL(p))
		goto out;
	ret = quic_test_fail(t, "reset queued");
	if (quic_stream_send_advance(&f->t, s, 7, false) ||
	    quic_stream_app_reset(&f->t, s, 42) ||
	    s->ctl_pending != QUIC_STREAM_CTL_RESET || s->send_errcode != 42 ||
	    list_first_entry(&f->t.ctl, struct quic_stream, ctl_node) != s ||
	    quic_stream_app_reset(&f->t, s, 43) != -EINVAL)
		goto out;
	ret = quic_test_fail(t, "sent, lost, sent, acknowledged");
	quic_stream_ctl_sent(&f->t, s, QUIC_STREAM_CTL_RESET);
	if (s->ctl_pending || s->ctl_unacked != QUIC_STREAM_CTL_RESET)
		goto out;
	if (!quic_stream_ctl_lost(&f->t, s, QUIC_STREAM_CTL_RESET) ||
	    s->ctl_pending != QUIC_STREAM_CTL_RESET || s->ctl_unacked ||
	    quic_stream_ctl_lost(&f->t, s, QUIC_STREAM_CTL_RESET))
		goto out;
	quic_stream_ctl_sent(&f->t, s, QUIC_STREAM_CTL_RESET);
	if (!quic_stream_ctl_acked(&f->t, s, QUIC_STREAM_CTL_RESET) ||
	    s->send_state != QUIC_STREAM_SEND_STATE_RESET_RECVD ||
	    !list_empty(&s->ctl_node) ||
	    quic_stream_ctl_acked(&f->t, s, QUIC_STREAM_CTL_RESET))
		goto out;
	ret = quic_test_fail(t, "stop-sending rules");
	if (quic_stream_app_stop_sending(&f->t, u, 1) != -EINVAL ||
	    quic_stream_app_stop_sending(&f->t, s, 9) ||
	    quic_stream_app_stop_sending(&f->t, s, 9) != -EAGAIN ||
	    s->stop_errcode != 9 || s->ctl_pending != QUIC_STREAM_CTL_STOP)
		goto out;
	ret = quic_test_fail(t, "stop-sending dropped once the reset came");
	quic_stream_ctl_sent(&f->t, s, QUIC_STREAM_CTL_STOP);
	if (quic_stream_recv_reset(&f->t, s, 9, 0, &err) != 1)
		goto out;
	if (quic_stream_ctl_lost(&f->t, s, QUIC_STREAM_CTL_STOP) ||
	    s->ctl_pending || !list_empty(&s->ctl_node))
		goto out;
	ret = quic_test_fail(t, "peer's STOP_SENDING resets with its code");
	if (quic_stream_recv_stop_sending(&f->t, p, 77) != 1 ||
	    p->send_errcode != 77 || p->ctl_pending != QUIC_STREAM_CTL_RESET ||
	    quic_stream_recv_stop_sending(&f->t, p, 78) != 0)
		goto out;
	ret = 0;
out:
	fx_free(f);
	return ret;
}

/* *_BLOCKED once per limit, STREAMS_BLOCKED at the stream limit. */
static int stream_blocked(struct quic_test *t)
{
	struct quic_stream_params pp = test_params;
	struct fixture *f = fx_new(false, NULL);
	struct quic_stream *s;
	int ret, i;
	u64 err;

	if (!f)
		return -ENOMEM;
	pp.max_data = 100;
	pp.max_stream_data_bidi_remote = 50;
	ret = quic_test_fail(t, "set peer");
	f->t.send.max = 0;
	if (quic_stream_set_peer(&f->t, &pp, &err))
		goto out;
	f->t.send.max = 100;
	s = quic_stream_send_get(&f->t, 0, false, true);
	if (IS_ERR(s))
		goto out;
	s->send.max = 50;
	ret = quic_test_fail(t, "not blocked with credit");
	quic_stream_blocked(&f->t, s);
	if (f->t.blocked_pending || s->ctl_pending)
		goto out;
	ret = quic_test_fail(t, "stream blocked once");
	if (quic_stream_send_advance(&f->t, s, 50, false))
		goto out;
	quic_stream_blocked(&f->t, s);
	if (f->t.blocked_pending || s->ctl_pending != QUIC_STREAM_CTL_BLOCKED)
		goto out;
	quic_stream_ctl_sent(&f->t, s, QUIC_STREAM_CTL_BLOCKED);
	quic_stream_blocked(&f->t, s);
	if (s->ctl_pending)
		goto out;
	ret = quic_test_fail(t, "credit came: not sent again on loss");
	quic_stream_peer_max_stream_data(s, 200);
	if (quic_stream_ctl_lost(&f->t, s, QUIC_STREAM_CTL_BLOCKED) ||
	    s->ctl_pending || !list_empty(&s->ctl_node))
		goto out;
	ret = quic_test_fail(t, "connection blocked");
	if (quic_stream_send_advance(&f->t, s, 50, false))
		goto out;
	quic_stream_blocked(&f->t, s);
	if (!(f->t.blocked_pending & QUIC_STREAM_BLOCKED_CONN_DATA))
		goto out;
	ret = quic_test_fail(t, "DATA_BLOCKED lost: again while blocked");
	f->t.blocked_pending = 0;
	if (!quic_stream_conn_ctl_lost(&f->t, QUIC_STREAM_BLOCKED_CONN_DATA) ||
	    f->t.blocked_pending != QUIC_STREAM_BLOCKED_CONN_DATA)
		goto out;
	f->t.blocked_pending = 0;
	f->t.send.max = 200;
	if (quic_stream_conn_ctl_lost(&f->t, QUIC_STREAM_BLOCKED_CONN_DATA) ||
	    f->t.blocked_pending ||
	    !quic_stream_conn_ctl_lost(&f->t, QUIC_STREAM_MAX_STREAMS_BIDI) ||
	    f->t.blocked_pending != QUIC_STREAM_MAX_STREAMS_BIDI)
		goto out;
	f->t.blocked_pending = 0;
	f->t.send.max = 100;
	ret = quic_test_fail(t, "stream limit");
	for (i = 1; i < test_params.max_streams_bidi; i++)
		if (!quic_stream_open_allowed(&f->t, -1, false) ||
		    IS_ERR(quic_stream_send_get(&f->t, -1, false, true)))
			goto out;
	if (quic_stream_open_allowed(&f->t, -1, false) ||
	    quic_stream_open_allowed(&f->t, 4 * 10, false) ||
	    !quic_stream_open_allowed(&f->t, -1, true) ||
	    !quic_stream_open_allowed(&f->t, 1, false))
		goto out;
	quic_stream_open_blocked(&f->t, false);
	if (!(f->t.blocked_pending & QUIC_STREAM_BLOCKED_CONN_BIDI))
		goto out;
	f->t.blocked_pending = 0;
	quic_stream_open_blocked(&f->t, false);
	if (f->t.blocked_pending)
		goto out;
	ret = quic_test_fail(t, "STREAMS_BLOCKED lost: again at the limit");
	if (!quic_stream_conn_ctl_lost(&f->t, QUIC_STREAM_BLOCKED_CONN_BIDI) ||
	    f->t.blocked_pending != QUIC_STREAM_BLOCKED_CONN_BIDI ||
	    quic_stream_conn_ctl_lost(&f->t, QUIC_STREAM_BLOCKED_CONN_UNI) ||
	    f->t.blocked_pending != QUIC_STREAM_BLOCKED_CONN_BIDI)
		goto out;
	ret = 0;
out:
	fx_free(f);
	return ret;
}

static bool walk_count(struct quic_stream *st, void *ctx)
{
	u32 *n = ctx;

	return --*n > 0;
}

/* The walk visits every open stream, and stops when told to; the
 * accessors give the limits and which IDs were opened.
 */
static int stream_walk_and_accessors(struct quic_test *t)
{
	struct fixture *f = fx_new(true, NULL);
	u64 err = 0;
	int ret;
	u32 n;

	if (!f)
		return -ENOMEM;
	ret = quic_test_fail(t, "walk");
	/* Client bidi 8 opens 0, 4 and 8. */
	if (IS_ERR_OR_NULL(quic_stream_recv_get(&f->t, 8, false, &err)))
		goto out;
	n = 100;
	if (!quic_stream_walk(&f->t, walk_count, &n) || n != 97)
		goto out;
	n = 2;
	if (quic_stream_walk(&f->t, walk_count, &n) || n)
		goto out;
	if (!quic_stream_id_used(&f->t, 4) || !quic_stream_id_used(&f->t, 8) ||
	    quic_stream_id_used(&f->t, 12) || quic_stream_id_used(&f->t, 1))
		goto out;
	if (quic_stream_limit(&f->t, true, false) !=
	    test_params.max_streams_bidi ||
	    quic_stream_limit(&f->t, false, true) != test_params.max_streams_uni)
		goto out;
	ret = 0;
out:
	fx_free(f);
	return ret;
}

static const struct quic_test_case quic_stream_cases[] = {
	QUIC_TEST_CASE(stream_walk_and_accessors),
	QUIC_TEST_CASE(stream_id_parity),
	QUIC_TEST_CASE(stream_implicit_open),
	QUIC_TEST_CASE(stream_limits),
	QUIC_TEST_CASE(stream_local_live),
	QUIC_TEST_CASE(stream_max_streams_update),
	QUIC_TEST_CASE(stream_state_errors),
	QUIC_TEST_CASE(stream_state_machines),
	QUIC_TEST_CASE(stream_state_paths),
	QUIC_TEST_CASE(stream_final_size),
	QUIC_TEST_CASE(stream_recv_flow_errors),
	QUIC_TEST_CASE(stream_send_flow),
	QUIC_TEST_CASE(stream_window_growth),
	QUIC_TEST_CASE(stream_window_transfer),
	QUIC_TEST_CASE(reasm_in_order),
	QUIC_TEST_CASE(reasm_reversed),
	QUIC_TEST_CASE(reasm_overlap),
	QUIC_TEST_CASE(reasm_duplicate),
	QUIC_TEST_CASE(reasm_gaps),
	QUIC_TEST_CASE(reasm_skb),
	QUIC_TEST_CASE(reasm_limits),
	QUIC_TEST_CASE(reasm_charge),
	QUIC_TEST_CASE(reasm_random_1000),
	QUIC_TEST_CASE(streams_1000),
	QUIC_TEST_CASE(stream_readable_list),
	QUIC_TEST_CASE(stream_peek),
	QUIC_TEST_CASE(stream_ctl_frames),
	QUIC_TEST_CASE(stream_blocked),
};

const struct quic_test_suite quic_stream_suite = {
	.name = "quic_stream",
	.cases = quic_stream_cases,
	.num_cases = ARRAY_SIZE(quic_stream_cases),
};
