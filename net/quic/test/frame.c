// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the frame codecs (net/quic/frame.c).
 *
 * The round-trip and truncation cases build every frame type with every
 * varint boundary value in its fields; a frame decoded from an encoding
 * must encode to the same bytes again, which compares every field.
 */

#include <linux/kernel.h>
#include <linux/quic.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "../frame.h"
#include "../varint.h"

#include "test.h"

#define FE	QUIC_TRANSPORT_ERROR_FRAME_ENCODING
#define PV	QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION

#define BUF_LEN		256
#define MAX_RANGES	8

static const u64 frame_types[] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
	0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x30, 0x31, 0xaf,
};

static const u64 frame_values[] = {
	0, 1, 63, 64, 16383, 16384, (1ULL << 30) - 1, 1ULL << 30,
	QUIC_VARINT_MAX,
};

/* Bytes that data-bearing test frames point into. */
static const u8 frame_bytes[64] = {
	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
	0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
	'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h',
	'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p',
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
};

/* Fill @f as a frame of @type with @v in its numeric fields. */
static void frame_build(struct quic_frame *f, struct quic_ack_range *r,
			u64 type, u64 v)
{
	u64 off = v >= 10 ? v - 10 : v;

	memset(f, 0, sizeof(*f));
	f->type = type;
	f->ranges = r;
	f->max_ranges = MAX_RANGES;

	if (quic_frame_is_stream(type)) {
		f->data.id = v;
		f->data.offset = (type & QUIC_STREAM_BIT_OFF) ? off : 0;
		f->data.data = frame_bytes;
		f->data.len = v ? 10 : 0;
		return;
	}

	switch (type) {
	case QUIC_FRAME_PADDING:
		f->padding = 1 + v % 7;
		break;
	case QUIC_FRAME_ACK:
	case QUIC_FRAME_ACK_ECN:
		f->ack.delay = v;
		f->ack.ecn[0] = v;
		f->ack.ecn[1] = v / 2;
		f->ack.ecn[2] = 0;
		r[0].largest = v;
		r[0].smallest = v ? v - 1 : 0;
		f->ack.nr_ranges = 1;
		if (v < 10)
			break;
		r[1].largest = v - 3;
		r[1].smallest = v - 4;
		r[2].largest = v - 7;
		r[2].smallest = 0;
		f->ack.nr_ranges = 3;
		break;
	case QUIC_FRAME_RESET_STREAM:
		f->stream_ctl.final_size = v;
		fallthrough;
	case QUIC_FRAME_STOP_SENDING:
	case QUIC_FRAME_MAX_STREAM_DATA:
	case QUIC_FRAME_STREAM_DATA_BLOCKED:
		f->stream_ctl.id = v;
		f->stream_ctl.value = v / 3;
		break;
	case QUIC_FRAME_CRYPTO:
		f->data.offset = off;
		f->data.data = frame_bytes + 3;
		f->data.len = 10;
		break;
	case QUIC_FRAME_NEW_TOKEN:
		f->data.data = frame_bytes;
		f->data.len = 1 + v % 40;
		break;
	case QUIC_FRAME_DATAGRAM:
	case QUIC_FRAME_DATAGRAM_LEN:
		f->data.data = frame_bytes + 1;
		f->data.len = v % 41;
		break;
	case QUIC_FRAME_MAX_DATA:
	case QUIC_FRAME_DATA_BLOCKED:
	case QUIC_FRAME_RETIRE_CONNECTION_ID:
		f->value = v;
		break;
	case QUIC_FRAME_MAX_STREAMS_BIDI:
	case QUIC_FRAME_MAX_STREAMS_UNI:
	case QUIC_FRAME_STREAMS_BLOCKED_BIDI:
	case QUIC_FRAME_STREAMS_BLOCKED_UNI:
		f->value = min(v, QUIC_FRAME_MAX_STREAMS);
		break;
	case QUIC_FRAME_NEW_CONNECTION_ID:
		f->new_cid.seq = v;
		f->new_cid.retire_prior_to = v / 2;
		f->new_cid.id = frame_bytes + 5;
		f->new_cid.len = 1 + v % QUIC_FRAME_CID_MAX_LEN;
		f->new_cid.token = frame_bytes + 30;
		break;
	case QUIC_FRAME_PATH_CHALLENGE:
	case QUIC_FRAME_PATH_RESPONSE:
		f->path_data = frame_bytes + 8;
		break;
	case QUIC_FRAME_ACK_FREQUENCY:
		f->ackf.seq = v;
		f->ackf.threshold = v / 2;
		f->ackf.max_delay_us = v / 3;
		f->ackf.reorder = v % 256;
		break;
	case QUIC_FRAME_CONNECTION_CLOSE:
		f->close.frame_type = v;
		fallthrough;
	case QUIC_FRAME_CONNECTION_CLOSE_APP:
		f->close.err = v;
		f->close.reason = frame_bytes + 16;
		f->close.len = v % 17;
		break;
	}
}

/* Frames whose data runs to the end of the packet, so a prefix decodes. */
static bool frame_open_ended(u64 type)
{
	if (quic_frame_is_stream(type))
		return !(type & QUIC_STREAM_BIT_LEN);
	return type == QUIC_FRAME_PADDING || type == QUIC_FRAME_DATAGRAM;
}

static bool frame_points_into(const struct quic_frame *f, const u8 *buf,
			      u32 n)
{
	const u8 *ptr = NULL;
	u32 len = 0;

	if (quic_frame_is_stream(f->type) || f->type == QUIC_FRAME_CRYPTO ||
	    f->type == QUIC_FRAME_NEW_TOKEN || f->type == QUIC_FRAME_DATAGRAM ||
	    f->type == QUIC_FRAME_DATAGRAM_LEN) {
		ptr = f->data.data;
		len = f->data.len;
	} else if (f->type == QUIC_FRAME_CONNECTION_CLOSE ||
		   f->type == QUIC_FRAME_CONNECTION_CLOSE_APP) {
		ptr = f->close.reason;
		len = f->close.len;
	} else if (f->type == QUIC_FRAME_PATH_CHALLENGE ||
		   f->type == QUIC_FRAME_PATH_RESPONSE) {
		ptr = f->path_data;
		len = QUIC_FRAME_PATH_DATA_LEN;
	} else if (f->type == QUIC_FRAME_NEW_CONNECTION_ID) {
		if (f->new_cid.id < buf || f->new_cid.id + f->new_cid.len >
		    f->new_cid.token)
			return false;
		ptr = f->new_cid.token;
		len = QUIC_FRAME_RESET_TOKEN_LEN;
	}
	return !len || (ptr >= buf && ptr + len <= buf + n);
}

static int frame_round_trip(struct quic_test *t)
{
	struct quic_ack_range r[MAX_RANGES], dr[MAX_RANGES];
	u8 buf[BUF_LEN], again[BUF_LEN];
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(frame_types); i++) {
		for (j = 0; j < ARRAY_SIZE(frame_values); j++) {
			u64 type = frame_types[i], v = frame_values[j];
			struct quic_frame f, d = {
				.ranges = dr, .max_ranges = MAX_RANGES,
			};
			const u8 *p = buf;
			int n, m, err;
			u32 left;

			frame_build(&f, r, type, v);
			n = quic_frame_encode(buf, sizeof(buf), &f);
			if (n <= 0 || n != quic_frame_len(&f))
				return quic_test_fail(t, "encode %#llx/%llu: %d",
						      type, v, n);
			left = n;
			err = quic_frame_decode(&p, &left, &d);
			if (err || left || p != buf + n || d.type != type)
				return quic_test_fail(t, "decode %#llx/%llu: %d err %u left %u",
						      type, v, err, d.err, left);
			if (!frame_points_into(&d, buf, n))
				return quic_test_fail(t, "%#llx data not in packet",
						      type);
			if ((type == QUIC_FRAME_ACK || type == QUIC_FRAME_ACK_ECN) &&
			    (d.ack.largest != v ||
			     d.ack.range_count != f.ack.nr_ranges - 1))
				return quic_test_fail(t, "ack fields %llu", v);
			m = quic_frame_encode(again, sizeof(again), &d);
			if (m != n || memcmp(buf, again, n))
				return quic_test_fail(t, "re-encode %#llx/%llu differs",
						      type, v);
		}
	}
	return 0;
}

/* Decode @buf cut at every length short of @n bytes. */
static int truncated_one(struct quic_test *t, const u8 *buf, int n, u64 type,
			 u64 v)
{
	struct quic_ack_range r[MAX_RANGES];
	struct quic_frame d;
	int cut, err;

	for (cut = 0; cut < n; cut++) {
		const u8 *p = buf;
		u32 left = cut;

		d.ranges = r;
		d.max_ranges = MAX_RANGES;
		err = quic_frame_decode(&p, &left, &d);
		if (!err) {
			/* Only frames that run to the end decode short. */
			if (!cut || !frame_open_ended(type) || left ||
			    p != buf + cut || d.type != type)
				return quic_test_fail(t, "%#llx/%llu cut at %d decoded",
						      type, v, cut);
			continue;
		}
		if (err != -EPROTO || d.err != FE || p != buf || left != cut ||
		    d.type != (cut >= quic_varint_len(type) ? type : 0))
			return quic_test_fail(t, "%#llx/%llu cut at %d: %d/%u",
					      type, v, cut, err, d.err);
	}
	return 0;
}

/* Every strict prefix of every frame fails cleanly, or is a shorter frame. */
static int frame_truncated(struct quic_test *t)
{
	struct quic_ack_range r[MAX_RANGES];
	u8 buf[BUF_LEN];
	unsigned int i, j;
	struct quic_frame f;
	int n, err;

	for (i = 0; i < ARRAY_SIZE(frame_types); i++) {
		for (j = 0; j < ARRAY_SIZE(frame_values); j++) {
			frame_build(&f, r, frame_types[i], frame_values[j]);
			n = quic_frame_encode(buf, sizeof(buf), &f);
			if (n <= 0)
				return quic_test_fail(t, "encode %#llx", f.type);
			err = truncated_one(t, buf, n, f.type, frame_values[j]);
			if (err)
				return err;
		}
	}
	return 0;
}

static int frame_unknown_types(struct quic_test *t)
{
	static const struct {
		u8 bytes[8];
		u32 len;
		u32 err;
		u64 type;
	} v[] = {
		{ { 0x2e }, 1, FE, 0x2e },
		{ { 0x20 }, 1, FE, 0x20 },
		{ { 0x21 }, 1, FE, 0x21 },
		{ { 0x2f }, 1, FE, 0x2f },
		{ { 0x32 }, 1, FE, 0x32 },
		{ { 0x3f }, 1, FE, 0x3f },
		{ { 0x40, 0x40 }, 2, FE, 0x40 },
		{ { 0x40, 0x2e }, 2, FE, 0x2e },
		{ { 0x40, 0xae }, 2, FE, 0xae },
		{ { 0x80, 0x00, 0x00, 0x21 }, 4, FE, 0x21 },
		{ { 0xbf, 0xff, 0xff, 0xff }, 4, FE, (1ULL << 30) - 1 },
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, 8, FE,
		  QUIC_VARINT_MAX },
		/* Known types in longer encodings than needed. */
		{ { 0x40, 0x00 }, 2, PV, 0x00 },
		{ { 0x40, 0x01 }, 2, PV, 0x01 },
		{ { 0x40, 0x1e }, 2, PV, 0x1e },
		{ { 0x40, 0x1f }, 2, PV, 0x1f },
		{ { 0x80, 0x00, 0x00, 0xaf, 0, 0, 0, 0 }, 8, PV, 0xaf },
		{ { 0x40, 0x30, 0x00 }, 3, PV, 0x30 },
		{ { 0x80, 0x00, 0x00, 0x01 }, 4, PV, 0x01 },
		{ { 0xc0, 0, 0, 0, 0, 0, 0, 0x1e }, 8, PV, 0x1e },
	};
	struct quic_frame f = {};
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		const u8 *p = v[i].bytes;
		u32 left = v[i].len;

		err = quic_frame_decode(&p, &left, &f);
		if (err != -EPROTO || f.err != v[i].err || f.type != v[i].type ||
		    p != v[i].bytes || left != v[i].len)
			return quic_test_fail(t, "case %u: %d/%u type %#llx", i,
					      err, f.err, f.type);
	}
	return 0;
}

/* Hand-assembled frames: the wire layout, not only self-consistency. */
static int frame_wire_vectors(struct quic_test *t)
{
	static const u8 stream[] = { 0x0f, 0x04, 0x41, 0x00, 0x03, 'a', 'b',
				     'c' };
	static const u8 ack[] = { 0x03, 0x0a, 0x05, 0x01, 0x02, 0x01, 0x03,
				  0x07, 0x08, 0x09 };
	static const u8 cc[] = { 0x1c, 0x07, 0x06, 0x02, 'h', 'i' };
	static const u8 ncid[] = { 0x18, 0x02, 0x01, 0x04, 0xa, 0xb, 0xc, 0xd,
				   0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
				   13, 14, 15 };
	struct quic_ack_range r[MAX_RANGES];
	struct quic_frame f = { .ranges = r, .max_ranges = MAX_RANGES };
	u8 out[BUF_LEN];
	const u8 *p;
	u32 left;

	p = stream;
	left = sizeof(stream);
	if (quic_frame_decode(&p, &left, &f) || left ||
	    f.data.id != 4 || f.data.offset != 256 || f.data.len != 3 ||
	    f.data.data != stream + 5 || !(f.type & QUIC_STREAM_BIT_FIN))
		return quic_test_fail(t, "stream");
	if (quic_frame_encode(out, sizeof(out), &f) != sizeof(stream) ||
	    memcmp(out, stream, sizeof(stream)))
		return quic_test_fail(t, "stream encode");

	p = ack;
	left = sizeof(ack);
	if (quic_frame_decode(&p, &left, &f) || left ||
	    f.ack.largest != 10 || f.ack.delay != 5 || f.ack.range_count != 1 ||
	    f.ack.nr_ranges != 2 || r[0].largest != 10 || r[0].smallest != 8 ||
	    r[1].largest != 5 || r[1].smallest != 2 || f.ack.ecn[0] != 7 ||
	    f.ack.ecn[1] != 8 || f.ack.ecn[2] != 9)
		return quic_test_fail(t, "ack");
	if (quic_frame_encode(out, sizeof(out), &f) != sizeof(ack) ||
	    memcmp(out, ack, sizeof(ack)))
		return quic_test_fail(t, "ack encode");

	p = cc;
	left = sizeof(cc);
	if (quic_frame_decode(&p, &left, &f) || left ||
	    f.close.err != FE || f.close.frame_type != QUIC_FRAME_CRYPTO ||
	    f.close.len != 2 || memcmp(f.close.reason, "hi", 2))
		return quic_test_fail(t, "connection close");

	p = ncid;
	left = sizeof(ncid);
	if (quic_frame_decode(&p, &left, &f) || left ||
	    f.new_cid.seq != 2 || f.new_cid.retire_prior_to != 1 ||
	    f.new_cid.len != 4 || f.new_cid.id != ncid + 4 ||
	    f.new_cid.token != ncid + 8)
		return quic_test_fail(t, "new connection id");
	return 0;
}

/* A test packet, built with pv() and pb() and checked by expect(). */
struct pkt {
	u8 b[BUF_LEN];
	u32 len;
};

static struct pkt *pv(struct pkt *k, u64 v)
{
	k->len = quic_varint_put(k->b + k->len, v) - k->b;
	return k;
}

static struct pkt *pb(struct pkt *k, u32 n, u8 fill)
{
	memset(k->b + k->len, fill, n);
	k->len += n;
	return k;
}

/* Decode @k as one frame: error @want (0: success); then empty @k. */
static void expect(struct quic_test *t, struct pkt *k, u32 want,
		   const char *what)
{
	struct quic_ack_range r[MAX_RANGES];
	struct quic_frame f = { .ranges = r, .max_ranges = MAX_RANGES };
	const u8 *p = k->b;
	u32 left = k->len;
	int err;

	err = quic_frame_decode(&p, &left, &f);
	if (!want && (err || left))
		quic_test_fail(t, "%s: %d/%u, %u left", what, err, f.err, left);
	if (want && (err != -EPROTO || f.err != want || p != k->b ||
		     left != k->len))
		quic_test_fail(t, "%s: %d/%u, want %u", what, err, f.err, want);
	k->len = 0;
}

static int frame_result(struct quic_test *t)
{
	return t->reason[0] ? -EINVAL : 0;
}

/* ACK_FREQUENCY and IMMEDIATE_ACK (draft-ietf-quic-ack-frequency 4, 5):
 * the wire layout, and every truncation a FRAME_ENCODING_ERROR.
 */
static int frame_ack_frequency(struct quic_test *t)
{
	static const u8 af[] = { 0x40, 0xaf, 0x01, 0x09, 0x80, 0x00, 0x61,
				 0xa8, 0x03 };
	struct quic_frame f = {};
	struct pkt k = {};
	u8 out[BUF_LEN];
	const u8 *p = af;
	u32 left = sizeof(af), cut;

	if (quic_frame_decode(&p, &left, &f) || left ||
	    f.type != QUIC_FRAME_ACK_FREQUENCY || f.ackf.seq != 1 ||
	    f.ackf.threshold != 9 || f.ackf.max_delay_us != 25000 ||
	    f.ackf.reorder != 3)
		return quic_test_fail(t, "ack_frequency decode");
	if (quic_frame_encode(out, sizeof(out), &f) != sizeof(af) ||
	    memcmp(out, af, sizeof(af)))
		return quic_test_fail(t, "ack_frequency encode");
	for (cut = 2; cut < sizeof(af); cut++) {
		memcpy(k.b, af, cut);
		k.len = cut;
		expect(t, &k, FE, "ack_frequency cut short");
	}
	/* Each field takes any varint, up to 2^62 - 1. */
	expect(t, pv(pv(pv(pv(pv(&k, 0xaf), QUIC_VARINT_MAX), QUIC_VARINT_MAX),
			QUIC_VARINT_MAX), QUIC_VARINT_MAX), 0,
	       "ack_frequency maximal");
	expect(t, pv(&k, QUIC_FRAME_IMMEDIATE_ACK), 0, "immediate_ack");
	f.type = QUIC_FRAME_IMMEDIATE_ACK;
	if (quic_frame_encode(out, sizeof(out), &f) != 1 || out[0] != 0x1f)
		return quic_test_fail(t, "immediate_ack encode");
	if (quic_frame_type_bit(QUIC_FRAME_ACK_FREQUENCY) != BIT(31) ||
	    quic_frame_type_bit(QUIC_FRAME_IMMEDIATE_ACK) != BIT(31) ||
	    !quic_frame_ack_eliciting(QUIC_FRAME_ACK_FREQUENCY) ||
	    !quic_frame_ack_eliciting(QUIC_FRAME_IMMEDIATE_ACK) ||
	    quic_frame_probing(QUIC_FRAME_ACK_FREQUENCY))
		return quic_test_fail(t, "attributes");
	return frame_result(t);
}

static int frame_invalid_values(struct quic_test *t)
{
	static const u64 streams[] = { 0x12, 0x13, 0x16, 0x17 };
	struct pkt k = {};
	unsigned int i;

	/* STREAM and CRYPTO: offset + length at most 2^62 - 1. */
	pb(pv(pv(pv(pv(&k, 0x0e), 0), QUIC_VARINT_MAX), 1), 1, 'x');
	expect(t, &k, FE, "stream end past 2^62-1");
	pv(pv(pv(pv(&k, 0x0e), 0), QUIC_VARINT_MAX), 0);
	expect(t, &k, 0, "stream ending at 2^62-1");
	pb(pv(pv(pv(&k, 0x0c), 0), QUIC_VARINT_MAX), 1, 'x');
	expect(t, &k, FE, "stream (no LEN) end past 2^62-1");
	pb(pv(pv(pv(&k, 0x06), QUIC_VARINT_MAX - 1), 2), 2, 'x');
	expect(t, &k, FE, "crypto end past 2^62-1");
	pb(pv(pv(pv(&k, 0x06), QUIC_VARINT_MAX - 2), 2), 2, 'x');
	expect(t, &k, 0, "crypto ending at 2^62-1");
	pb(pv(pv(pv(&k, 0x0a), 0), 3), 2, 'x');
	expect(t, &k, FE, "stream length past the end");
	pb(pv(pv(&k, 0x06), 0), 1, 3);
	expect(t, &k, FE, "crypto length past the end");
	pb(pv(pv(&k, 0x31), 3), 2, 'x');
	expect(t, &k, FE, "datagram length past the end");

	/* MAX_STREAMS and STREAMS_BLOCKED: at most 2^60. */
	for (i = 0; i < ARRAY_SIZE(streams); i++) {
		pv(pv(&k, streams[i]), QUIC_FRAME_MAX_STREAMS + 1);
		expect(t, &k, FE, "streams 2^60 + 1");
		pv(pv(&k, streams[i]), QUIC_VARINT_MAX);
		expect(t, &k, FE, "streams 2^62 - 1");
		pv(pv(&k, streams[i]), QUIC_FRAME_MAX_STREAMS);
		expect(t, &k, 0, "streams 2^60");
	}

	/* NEW_CONNECTION_ID. */
	pb(pb(pv(pv(pv(&k, 0x18), 1), 0), 1, 0), 16, 0);
	expect(t, &k, FE, "cid length 0");
	pb(pb(pb(pv(pv(pv(&k, 0x18), 1), 0), 1, 21), 21, 1), 16, 0);
	expect(t, &k, FE, "cid length 21");
	pb(pb(pb(pv(pv(pv(&k, 0x18), 1), 1), 1, 20), 20, 1), 16, 0);
	expect(t, &k, 0, "cid length 20");
	pb(pb(pb(pv(pv(pv(&k, 0x18), 1), 2), 1, 8), 8, 1), 16, 0);
	expect(t, &k, FE, "retire prior to > sequence");
	pb(pb(pb(pv(pv(pv(&k, 0x18), 1), 1), 1, 8), 8, 1), 15, 0);
	expect(t, &k, FE, "short reset token");

	/* ACK: largest, delay, count, first range, then gap/length pairs. */
	pv(pv(pv(pv(pv(&k, 0x02), 5), 0), 0), 6);
	expect(t, &k, FE, "first range > largest");
	pv(pv(pv(pv(pv(&k, 0x02), 5), 0), 0), 5);
	expect(t, &k, 0, "first range = largest");
	pv(pv(pv(pv(pv(pv(pv(&k, 0x02), 5), 0), 1), 3), 1), 0);
	expect(t, &k, FE, "[2,5] then gap 1 (largest -1)");
	pv(pv(pv(pv(pv(pv(pv(&k, 0x02), 5), 0), 1), 3), 0), 0);
	expect(t, &k, 0, "[2,5] then gap 0: [0,0]");
	pv(pv(pv(pv(pv(pv(pv(&k, 0x02), 5), 0), 1), 2), 1), 1);
	expect(t, &k, FE, "[3,5] then gap 1 length 1 (smallest -1)");
	pv(pv(pv(pv(pv(pv(pv(&k, 0x02), 5), 0), 1), 0), 4), 0);
	expect(t, &k, FE, "[5,5] then gap 4 (largest -1)");
	pv(pv(pv(pv(pv(pv(pv(&k, 0x02), 5), 0), 1), 0), QUIC_VARINT_MAX), 0);
	expect(t, &k, FE, "[5,5] then gap 2^62-1");
	pb(pv(pv(pv(pv(pv(&k, 0x02), 5), 0), QUIC_VARINT_MAX), 0), 4, 0);
	expect(t, &k, FE, "range count 2^62-1");
	pv(pv(pv(pv(pv(pv(pv(pv(&k, 0x03), 5), 0), 0), 5), 1), 2), 3);
	expect(t, &k, 0, "ack ecn");
	pv(pv(pv(pv(pv(pv(pv(&k, 0x03), 5), 0), 0), 5), 1), 2);
	expect(t, &k, FE, "ack ecn without ce count");

	/* NEW_TOKEN must not be empty. */
	pv(pv(&k, 0x07), 0);
	expect(t, &k, FE, "empty token");
	pb(pv(pv(&k, 0x07), 1), 1, 0xaa);
	expect(t, &k, 0, "one-byte token");

	/* CONNECTION_CLOSE reason phrase inside the packet. */
	pb(pv(pv(pv(pv(&k, 0x1c), 1), 0), 5), 4, 'r');
	expect(t, &k, FE, "transport close reason past the end");
	pb(pv(pv(pv(&k, 0x1d), 1), 5), 4, 'r');
	expect(t, &k, FE, "application close reason past the end");
	pv(pv(pv(&k, 0x1d), 1), QUIC_VARINT_MAX);
	expect(t, &k, FE, "close reason length 2^62 - 1");
	pb(pv(pv(pv(&k, 0x1d), 1), 4), 4, 'r');
	expect(t, &k, 0, "application close");
	return frame_result(t);
}

/* Ranges past the caller's capacity are checked, skipped, not stored. */
static int frame_ack_ranges_cap(struct quic_test *t)
{
	static const struct quic_ack_range want[] = {
		{ .smallest = 98, .largest = 100 }, { .smallest = 90, .largest = 95 },
		{ .smallest = 82, .largest = 87 }, { .smallest = 74, .largest = 79 },
		{ .smallest = 5, .largest = 70 },
	};
	static const u32 caps[] = { 0, 1, 3, 5, 8 };
	struct quic_ack_range r[MAX_RANGES];
	struct pkt k = {};
	unsigned int i, j;

	pv(pv(pv(pv(pv(&k, 0x02), 100), 3), 4), 2);
	for (i = 0; i < 3; i++)
		pv(pv(&k, 1), 5);
	pv(pv(&k, 2), 65);
	pb(&k, 1, QUIC_FRAME_PING);

	for (i = 0; i < ARRAY_SIZE(caps); i++) {
		struct quic_frame f = { .ranges = caps[i] ? r : NULL,
					.max_ranges = caps[i] };
		const u8 *p = k.b;
		u32 left = k.len;

		memset(r, 0xa5, sizeof(r));
		if (quic_frame_decode(&p, &left, &f) || left != 1 ||
		    f.ack.range_count != 4 || f.ack.delay != 3 ||
		    f.ack.nr_ranges != min(caps[i], 5U) || f.ack.largest != 100)
			return quic_test_fail(t, "cap %u: %u ranges", caps[i],
					      f.ack.nr_ranges);
		for (j = 0; j < f.ack.nr_ranges; j++)
			if (r[j].largest != want[j].largest ||
			    r[j].smallest != want[j].smallest)
				return quic_test_fail(t, "cap %u range %u: [%llu,%llu]",
						      caps[i], j, r[j].smallest,
						      r[j].largest);
		if (j < MAX_RANGES && r[j].largest != 0xa5a5a5a5a5a5a5a5ULL)
			return quic_test_fail(t, "cap %u wrote past", caps[i]);
	}
	return 0;
}

static void encode_bad(struct quic_test *t, const struct quic_frame *f,
		       const char *what)
{
	u8 buf[BUF_LEN];

	if (quic_frame_encode(buf, sizeof(buf), f) != -EINVAL ||
	    quic_frame_len(f) != -EINVAL)
		quic_test_fail(t, "encoded %s", what);
}

static int frame_encode_errors(struct quic_test *t)
{
	struct quic_ack_range r[MAX_RANGES];
	u8 buf[BUF_LEN];
	struct quic_frame f;
	unsigned int i, j;
	int n, room;

	/* -ENOSPC at every room short of the frame, writing nothing. */
	for (i = 0; i < ARRAY_SIZE(frame_types); i++) {
		for (j = 0; j < ARRAY_SIZE(frame_values); j++) {
			frame_build(&f, r, frame_types[i], frame_values[j]);
			n = quic_frame_len(&f);
			for (room = 0; room < n; room++) {
				memset(buf, 0x5a, sizeof(buf));
				if (quic_frame_encode(buf, room, &f) != -ENOSPC ||
				    buf[0] != 0x5a)
					return quic_test_fail(t, "%#llx in %d of %d",
							      f.type, room, n);
			}
		}
	}

	frame_build(&f, r, 0x2e, 0);
	encode_bad(t, &f, "unknown type 0x2e");
	frame_build(&f, r, 0x40, 0);
	encode_bad(t, &f, "unknown type 0x40");
	frame_build(&f, r, QUIC_FRAME_MAX_DATA, QUIC_VARINT_MAX + 1);
	encode_bad(t, &f, "value 2^62");
	frame_build(&f, r, QUIC_FRAME_MAX_STREAMS_UNI, 0);
	f.value = QUIC_FRAME_MAX_STREAMS + 1;
	encode_bad(t, &f, "max streams 2^60 + 1");
	frame_build(&f, r, 0x0b, 100);
	f.data.offset = 5;
	encode_bad(t, &f, "stream offset without OFF bit");
	frame_build(&f, r, 0x0e, 100);
	f.data.offset = QUIC_VARINT_MAX - 9;
	encode_bad(t, &f, "stream end past 2^62 - 1");
	frame_build(&f, r, QUIC_FRAME_CRYPTO, 100);
	f.data.offset = QUIC_VARINT_MAX;
	encode_bad(t, &f, "crypto end past 2^62 - 1");
	frame_build(&f, r, QUIC_FRAME_NEW_TOKEN, 0);
	f.data.len = 0;
	encode_bad(t, &f, "empty token");
	frame_build(&f, r, QUIC_FRAME_NEW_CONNECTION_ID, 0);
	f.new_cid.len = 0;
	encode_bad(t, &f, "cid length 0");
	f.new_cid.len = 21;
	encode_bad(t, &f, "cid length 21");
	f.new_cid.len = 8;
	f.new_cid.retire_prior_to = 1;
	encode_bad(t, &f, "retire prior to > sequence");
	frame_build(&f, r, QUIC_FRAME_PADDING, 0);
	f.padding = 0;
	encode_bad(t, &f, "no padding");
	frame_build(&f, r, QUIC_FRAME_ACK, 100);
	f.ack.nr_ranges = 0;
	encode_bad(t, &f, "ack without ranges");
	frame_build(&f, r, QUIC_FRAME_ACK, 100);
	r[1].largest = r[0].smallest - 1;
	encode_bad(t, &f, "adjacent ack ranges");
	frame_build(&f, r, QUIC_FRAME_ACK, 100);
	r[2].smallest = r[2].largest + 1;
	encode_bad(t, &f, "inverted ack range");
	frame_build(&f, r, QUIC_FRAME_ACK, 100);
	r[2].largest = r[0].largest;
	encode_bad(t, &f, "ack ranges out of order");
	frame_build(&f, r, QUIC_FRAME_ACK, 100);
	f.ranges = NULL;
	encode_bad(t, &f, "ack without range array");
	frame_build(&f, r, QUIC_FRAME_ACK_ECN, 100);
	f.ack.ecn[2] = QUIC_VARINT_MAX + 1;
	encode_bad(t, &f, "ecn count 2^62");
	return frame_result(t);
}

/* The data that fits: its frame fits in @room, and one byte more not. */
static void check_fit(struct quic_test *t, u64 type, u64 id, u64 off,
		      u32 room, u32 avail, int got)
{
	struct quic_frame f = { .type = type };
	int n;

	f.data.id = id;
	f.data.offset = off;
	n = quic_frame_len(&f);
	if (got < 0) {
		if (got != -ENOSPC || n <= room)
			quic_test_fail(t, "%#llx: header of %d in %u: %d", type,
				       n, room, got);
		return;
	}
	if (got > avail) {
		quic_test_fail(t, "%#llx: %d > %u", type, got, avail);
		return;
	}
	f.data.len = got;
	n = quic_frame_len(&f);
	if (n < 0 || n > room) {
		quic_test_fail(t, "%#llx id %llu off %llu: %d in %u", type, id,
			       off, n, room);
		return;
	}
	if (got == avail || off + got == QUIC_VARINT_MAX)
		return;
	f.data.len = got + 1;
	if (quic_frame_len(&f) <= room)
		quic_test_fail(t, "%#llx off %llu: %d leaves room in %u", type,
			       off, got, room);
}

static void frame_fit_one(struct quic_test *t, u64 id, u64 off, bool crypto)
{
	static const u32 rooms[] = { 0, 1, 2, 3, 4, 5, 10, 64, 65, 66, 67, 68,
				     70, 1200, 1500, 16383, 16384, 16385, 16386,
				     16387, 16388, 16389, 65535, 1U << 30,
				     (1U << 30) + 9, INT_MAX };
	static const u32 avails[] = { 0, 1, 60, 63, 64, 1000, 16383, 16384,
				      1U << 30, U32_MAX };
	unsigned int c, d;
	int got;

	for (c = 0; c < ARRAY_SIZE(rooms); c++) {
		for (d = 0; d < ARRAY_SIZE(avails); d++) {
			u32 room = rooms[c], avail = avails[d];

			got = quic_frame_stream_fit(id, off, true, room, avail);
			check_fit(t, quic_frame_stream_type(off, true, false),
				  id, off, room, avail, got);
			got = quic_frame_stream_fit(id, off, false, room, avail);
			check_fit(t, quic_frame_stream_type(off, false, false),
				  id, off, room, avail, got);
			if (!crypto)
				continue;
			got = quic_frame_crypto_fit(off, room, avail);
			check_fit(t, QUIC_FRAME_CRYPTO, 0, off, room, avail, got);
		}
	}
}

static int frame_fit(struct quic_test *t)
{
	static const u64 vals[] = { 0, 63, 64, 16384, 1ULL << 30,
				    QUIC_VARINT_MAX - 5 };
	unsigned int a, b;

	for (a = 0; a < ARRAY_SIZE(vals); a++)
		for (b = 0; b < ARRAY_SIZE(vals); b++)
			frame_fit_one(t, vals[a], vals[b], !a);
	if (quic_frame_stream_fit(QUIC_VARINT_MAX + 1, 0, true, 100, 10) !=
	    -EINVAL ||
	    quic_frame_crypto_fit(QUIC_VARINT_MAX + 1, 100, 10) != -EINVAL)
		quic_test_fail(t, "fit accepts values past 2^62 - 1");
	return frame_result(t);
}

/* RFC 9000 Table 3, per known type: I(nitial), H(andshake), 0(-RTT),
 * 1(-RTT), with 0x1d and DATAGRAM (RFC 9221) in 0-RTT and 1-RTT only, and
 * IMMEDIATE_ACK and ACK_FREQUENCY (draft-ietf-quic-ack-frequency) in
 * 1-RTT only.
 */
static const struct {
	u64 type;
	const char *levels;
} frame_table[] = {
	{ 0x00, "IH01" }, { 0x01, "IH01" }, { 0x02, "IH_1" }, { 0x03, "IH_1" },
	{ 0x04, "__01" }, { 0x05, "__01" }, { 0x06, "IH_1" }, { 0x07, "___1" },
	{ 0x08, "__01" }, { 0x09, "__01" }, { 0x0a, "__01" }, { 0x0b, "__01" },
	{ 0x0c, "__01" }, { 0x0d, "__01" }, { 0x0e, "__01" }, { 0x0f, "__01" },
	{ 0x10, "__01" }, { 0x11, "__01" }, { 0x12, "__01" }, { 0x13, "__01" },
	{ 0x14, "__01" }, { 0x15, "__01" }, { 0x16, "__01" }, { 0x17, "__01" },
	{ 0x18, "__01" }, { 0x19, "__01" }, { 0x1a, "__01" }, { 0x1b, "___1" },
	{ 0x1c, "IH01" }, { 0x1d, "__01" }, { 0x1e, "___1" }, { 0x1f, "___1" },
	{ 0x30, "__01" }, { 0x31, "__01" }, { 0xaf, "___1" },
};

static int frame_allowed_table(struct quic_test *t)
{
	static const u8 levels[] = { QUIC_CRYPTO_INITIAL, QUIC_CRYPTO_HANDSHAKE,
				     QUIC_CRYPTO_EARLY, QUIC_CRYPTO_APP };
	static const u64 unknown[] = { 0x20, 0x2e, 0x2f, 0x32, 0x40, 0xae,
				       0xb0, QUIC_VARINT_MAX };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(frame_table); i++)
		for (j = 0; j < ARRAY_SIZE(levels); j++)
			if (quic_frame_allowed(frame_table[i].type, levels[j]) !=
			    (frame_table[i].levels[j] != '_'))
				return quic_test_fail(t, "type %#llx level %u",
						      frame_table[i].type,
						      levels[j]);
	for (i = 0; i < ARRAY_SIZE(unknown); i++)
		for (j = 0; j < ARRAY_SIZE(levels); j++)
			if (quic_frame_allowed(unknown[i], levels[j]))
				return quic_test_fail(t, "unknown %#llx allowed",
						      unknown[i]);
	if (quic_frame_allowed(QUIC_FRAME_PING, QUIC_CRYPTO_MAX) ||
	    quic_frame_allowed(QUIC_FRAME_PING, 255))
		return quic_test_fail(t, "bad level allowed");

	/* The spot checks of the issue, spelled out. */
	if (quic_frame_allowed(0x08, QUIC_CRYPTO_INITIAL) ||
	    quic_frame_allowed(QUIC_FRAME_ACK, QUIC_CRYPTO_EARLY) ||
	    quic_frame_allowed(QUIC_FRAME_HANDSHAKE_DONE, QUIC_CRYPTO_HANDSHAKE) ||
	    quic_frame_allowed(QUIC_FRAME_HANDSHAKE_DONE, QUIC_CRYPTO_EARLY) ||
	    !quic_frame_allowed(QUIC_FRAME_HANDSHAKE_DONE, QUIC_CRYPTO_APP) ||
	    quic_frame_allowed(QUIC_FRAME_CRYPTO, QUIC_CRYPTO_EARLY) ||
	    quic_frame_allowed(QUIC_FRAME_CONNECTION_CLOSE_APP,
			       QUIC_CRYPTO_INITIAL) ||
	    !quic_frame_allowed(QUIC_FRAME_CONNECTION_CLOSE,
				QUIC_CRYPTO_HANDSHAKE))
		return quic_test_fail(t, "spot check");
	return 0;
}

static int frame_ack_eliciting(struct quic_test *t)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(frame_types); i++) {
		u64 type = frame_types[i];
		bool none = type == QUIC_FRAME_PADDING ||
			    type == QUIC_FRAME_ACK || type == QUIC_FRAME_ACK_ECN ||
			    type == QUIC_FRAME_CONNECTION_CLOSE ||
			    type == QUIC_FRAME_CONNECTION_CLOSE_APP;

		if (quic_frame_ack_eliciting(type) == none)
			return quic_test_fail(t, "ack-eliciting %#llx", type);
		if (quic_frame_in_flight(type) !=
		    (!none || type == QUIC_FRAME_PADDING))
			return quic_test_fail(t, "in flight %#llx", type);
		if (quic_frame_probing(type) !=
		    (type == QUIC_FRAME_PADDING || type == 0x18 ||
		     type == 0x1a || type == 0x1b))
			return quic_test_fail(t, "probing %#llx", type);
	}
	if (quic_frame_ack_eliciting(0x2e) || quic_frame_in_flight(0x2e))
		return quic_test_fail(t, "unknown type ack-eliciting");
	return 0;
}

/* Append a frame of @type to @buf at *@len. */
static int frame_append(u8 *buf, u32 *len, u64 type)
{
	struct quic_ack_range r[MAX_RANGES];
	struct quic_frame f;
	int n;

	frame_build(&f, r, type, 1);
	n = quic_frame_encode(buf + *len, BUF_LEN, &f);
	if (n <= 0)
		return -EINVAL;
	*len += n;
	return 0;
}

/* quic_frame_types(): a payload of one frame of each type (those that
 * run to the end of the packet, STREAM without a length and DATAGRAM
 * without one, only 0x08 and last) gives each bit; the mask stops at a
 * frame cut short, and an unknown type gives none.
 */
static int frame_types_mask(struct quic_test *t)
{
	u32 len = 0, last = 0, want = 0, crypto = 0;
	unsigned int i;
	int ret = 0;
	u64 type;
	u8 *buf;

	buf = kmalloc((ARRAY_SIZE(frame_types) + 1) * BUF_LEN, GFP_KERNEL);
	if (!buf)
		return quic_test_fail(t, "no memory");
	for (i = 0; i < ARRAY_SIZE(frame_types); i++) {
		type = frame_types[i];
		if (type == QUIC_FRAME_DATAGRAM ||
		    (quic_frame_is_stream(type) && !(type & QUIC_STREAM_BIT_LEN)))
			continue;
		if (type == QUIC_FRAME_CRYPTO)
			crypto = len;
		if (frame_append(buf, &len, type)) {
			ret = quic_test_fail(t, "encode %#llx", type);
			goto out;
		}
		want |= quic_frame_type_bit(type);
	}
	last = len;
	if (frame_append(buf, &len, 0x08)) {
		ret = quic_test_fail(t, "encode 0x08");
		goto out;
	}
	want |= BIT(0x08);
	if (want != (U32_MAX & ~(BIT(0x09) | BIT(0x0c) | BIT(0x0d))) ||
	    quic_frame_types(buf, len) != want) {
		ret = quic_test_fail(t, "all types: %#x", quic_frame_types(buf, len));
		goto out;
	}
	/* Cut in the CRYPTO frame (0x06, the seventh): the types before it;
	 * without the last frame: all but its type.
	 */
	if (quic_frame_types(buf, crypto + 1) != GENMASK(5, 0) ||
	    quic_frame_types(buf, last) != (want & ~BIT(0x08))) {
		ret = quic_test_fail(t, "cut short");
		goto out;
	}
	buf[0] = 0x2e;
	if (quic_frame_types(buf, len) || quic_frame_types(buf, 0))
		ret = quic_test_fail(t, "unknown type or empty");
out:
	kfree(buf);
	return ret;
}

#define FUZZ_ITERS	100000
#define FUZZ_LEN	64

struct fuzz {
	u8 buf[BUF_LEN], out[BUF_LEN], out2[BUF_LEN];
	struct quic_ack_range r[MAX_RANGES], r2[MAX_RANGES];
};

/* A decoded frame encodes no longer, and that decodes and encodes alike. */
static bool fuzz_stable(struct fuzz *z, const struct quic_frame *f, u32 used)
{
	struct quic_frame g = { .ranges = z->r2, .max_ranges = MAX_RANGES };
	const u8 *q = z->out;
	int n = quic_frame_encode(z->out, BUF_LEN, f);
	u32 left = n;

	if (n <= 0 || n > used || quic_frame_decode(&q, &left, &g) || left)
		return false;
	return quic_frame_encode(z->out2, BUF_LEN, &g) == n &&
	       !memcmp(z->out, z->out2, n);
}

/* Decode @len random bytes until an error or the end. */
static int fuzz_one(struct quic_test *t, struct fuzz *z, u32 len)
{
	struct quic_frame f = { .ranges = z->r, .max_ranges = MAX_RANGES };
	const u8 *p = z->buf, *end = z->buf + len;
	u32 left = len;

	while (left) {
		const u8 *before = p;
		u32 had = left, used;

		if (quic_frame_decode(&p, &left, &f)) {
			if (p != before || left != had ||
			    (f.err != FE && f.err != PV))
				return quic_test_fail(t, "failure moved or err %u",
						      f.err);
			return 0;
		}
		used = p - before;
		if (!used || used > had || left != had - used || p + left != end)
			return quic_test_fail(t, "cursor %u of %u", used, had);
		if (!frame_points_into(&f, before, used))
			return quic_test_fail(t, "%#llx points out", f.type);
		if (!fuzz_stable(z, &f, used))
			return quic_test_fail(t, "%#llx not stable", f.type);
	}
	return 0;
}

/* Random bytes, half of them behind a known frame type, decoded until an
 * error: the cursor only moves forward and never past the end, a failure
 * leaves it, data points inside the packet, and what decodes re-encodes
 * no longer than it was and decodes again to the same bytes.
 */
static int frame_fuzz(struct quic_test *t)
{
	struct fuzz *z;
	unsigned int i;
	int ret = 0;

	z = kmalloc(sizeof(*z), GFP_KERNEL);
	if (!z)
		return -ENOMEM;
	for (i = 0; i < FUZZ_ITERS && !ret; i++) {
		u32 len = get_random_u32_below(FUZZ_LEN + 1);

		get_random_bytes(z->buf, len);
		if (len && get_random_u32_below(2))
			z->buf[0] = frame_types[get_random_u32_below(ARRAY_SIZE(frame_types))];
		ret = fuzz_one(t, z, len);
		if (!(i % 4096))
			cond_resched();
	}
	kfree(z);
	return ret;
}

/* With no data pointer, a STREAM frame is written but for its data
 * bytes, its last ones, which are left as they were (quic_out_data()'s
 * paged chunks write them).
 */
static int frame_encode_no_data(struct quic_test *t)
{
	static const u8 data[5] = { 1, 2, 3, 4, 5 };
	u8 want[32], got[32];
	struct quic_frame f = {
		.type = QUIC_FRAME_STREAM | QUIC_STREAM_BIT_OFF |
			QUIC_STREAM_BIT_LEN,
		.data = { .id = 4, .offset = 1000, .data = data,
			  .len = sizeof(data) },
	};
	int n, m;

	n = quic_frame_encode(want, sizeof(want), &f);
	f.data.data = NULL;
	memset(got, 0x5a, sizeof(got));
	m = quic_frame_encode(got, sizeof(got), &f);
	if (n <= (int)sizeof(data) || m != n)
		return quic_test_fail(t, "lengths %d and %d", n, m);
	if (memcmp(got, want, n - sizeof(data)))
		return quic_test_fail(t, "header differs");
	if (memchr_inv(got + n - sizeof(data), 0x5a, sizeof(data)))
		return quic_test_fail(t, "data bytes written");
	return 0;
}

static const struct quic_test_case frame_cases[] = {
	QUIC_TEST_CASE(frame_round_trip),
	QUIC_TEST_CASE(frame_truncated),
	QUIC_TEST_CASE(frame_unknown_types),
	QUIC_TEST_CASE(frame_wire_vectors),
	QUIC_TEST_CASE(frame_invalid_values),
	QUIC_TEST_CASE(frame_ack_ranges_cap),
	QUIC_TEST_CASE(frame_encode_errors),
	QUIC_TEST_CASE(frame_encode_no_data),
	QUIC_TEST_CASE(frame_fit),
	QUIC_TEST_CASE(frame_allowed_table),
	QUIC_TEST_CASE(frame_ack_eliciting),
	QUIC_TEST_CASE(frame_types_mask),
	QUIC_TEST_CASE(frame_ack_frequency),
	QUIC_TEST_CASE(frame_fuzz),
};

const struct quic_test_suite quic_frame_suite = {
	.name = "quic_frame",
	.cases = frame_cases,
	.num_cases = ARRAY_SIZE(frame_cases),
};
