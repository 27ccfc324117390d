// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC frame codecs (RFC 9000 section 19, RFC 9221 section 4,
 * draft-ietf-quic-ack-frequency sections 4 and 5).
 *
 * Decoding rules that are choices of ours, where the RFC leaves one:
 *
 * - A frame type in a longer encoding than necessary is a
 *   PROTOCOL_VIOLATION (RFC 9000 12.4 allows this).  An unknown type is a
 *   FRAME_ENCODING_ERROR whatever its encoding; that check comes first.
 * - A STREAM or CRYPTO frame whose offset plus length exceeds 2^62 - 1 is
 *   a FRAME_ENCODING_ERROR (19.6 and 19.8 allow it or FLOW_CONTROL_ERROR /
 *   CRYPTO_BUFFER_EXCEEDED).  So is a STREAMS_BLOCKED count above 2^60
 *   (19.14 allows it or STREAM_LIMIT_ERROR).
 * - A run of PADDING bytes decodes as one frame.
 * - ACK ranges beyond the caller's capacity are validated and dropped
 *   (see struct quic_frame_ack).
 *
 * What needs connection state is left to the caller: whether the frame may
 * appear at the packet's encryption level (quic_frame_allowed()), who may
 * send NEW_TOKEN and HANDSHAKE_DONE (only a server), stream ID direction
 * and limits, and whether DATAGRAM was negotiated.
 */

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/nospec.h>
#include <linux/quic.h>
#include <linux/string.h>
#include "export.h"
#include "frame.h"
#include "varint.h"

#define QUIC_LV(l)	BIT(QUIC_CRYPTO_##l)
#define QUIC_LV_ALL	(QUIC_LV(INITIAL) | QUIC_LV(HANDSHAKE) | \
			 QUIC_LV(EARLY) | QUIC_LV(APP))
#define QUIC_LV_IH1	(QUIC_LV(INITIAL) | QUIC_LV(HANDSHAKE) | QUIC_LV(APP))
#define QUIC_LV_01	(QUIC_LV(EARLY) | QUIC_LV(APP))
#define QUIC_LV_1	QUIC_LV(APP)

#define QUIC_FA(lv, eliciting, probe)				\
	{ .levels = (lv), .ack_eliciting = (eliciting), .probing = (probe) }

/* The attributes of each known frame type, indexed by type: the levels of
 * RFC 9000 Table 3 (section 12.4; RFC 9221 section 4 for DATAGRAM), which
 * frames make a packet ack-eliciting (RFC 9002 section 2) and which are
 * probing frames (RFC 9000 section 9.1). A type without an entry (no
 * levels) is unknown. ACK_FREQUENCY and IMMEDIATE_ACK go in 1-RTT packets
 * only: min_ack_delay, which allows them, is known once the handshake is.
 */
static const struct quic_frame_attr quic_frame_attrs[] = {
	[QUIC_FRAME_PADDING]		  = QUIC_FA(QUIC_LV_ALL, false, true),
	[QUIC_FRAME_PING]		  = QUIC_FA(QUIC_LV_ALL, true, false),
	[QUIC_FRAME_ACK]		  = QUIC_FA(QUIC_LV_IH1, false, false),
	[QUIC_FRAME_ACK_ECN]		  = QUIC_FA(QUIC_LV_IH1, false, false),
	[QUIC_FRAME_RESET_STREAM]	  = QUIC_FA(QUIC_LV_01, true, false),
	[QUIC_FRAME_STOP_SENDING]	  = QUIC_FA(QUIC_LV_01, true, false),
	[QUIC_FRAME_CRYPTO]		  = QUIC_FA(QUIC_LV_IH1, true, false),
	[QUIC_FRAME_NEW_TOKEN]		  = QUIC_FA(QUIC_LV_1, true, false),
	[QUIC_FRAME_STREAM ... QUIC_FRAME_STREAM + 7] =
					    QUIC_FA(QUIC_LV_01, true, false),
	[QUIC_FRAME_MAX_DATA]		  = QUIC_FA(QUIC_LV_01, true, false),
	[QUIC_FRAME_MAX_STREAM_DATA]	  = QUIC_FA(QUIC_LV_01, true, false),
	[QUIC_FRAME_MAX_STREAMS_BIDI]	  = QUIC_FA(QUIC_LV_01, true, false),
	[QUIC_FRAME_MAX_STREAMS_UNI]	  = QUIC_FA(QUIC_LV_01, true, false),
	[QUIC_FRAME_DATA_BLOCKED]	  = QUIC_FA(QUIC_LV_01, true, false),
	[QUIC_FRAME_STREAM_DATA_BLOCKED]  = QUIC_FA(QUIC_LV_01, true, false),
	[QUIC_FRAME_STREAMS_BLOCKED_BIDI] = QUIC_FA(QUIC_LV_01, true, false),
	[QUIC_FRAME_STREAMS_BLOCKED_UNI]  = QUIC_FA(QUIC_LV_01, true, false),
	[QUIC_FRAME_NEW_CONNECTION_ID]	  = QUIC_FA(QUIC_LV_01, true, true),
	[QUIC_FRAME_RETIRE_CONNECTION_ID] = QUIC_FA(QUIC_LV_01, true, false),
	[QUIC_FRAME_PATH_CHALLENGE]	  = QUIC_FA(QUIC_LV_01, true, true),
	[QUIC_FRAME_PATH_RESPONSE]	  = QUIC_FA(QUIC_LV_1, true, true),
	[QUIC_FRAME_CONNECTION_CLOSE]	  = QUIC_FA(QUIC_LV_ALL, false, false),
	[QUIC_FRAME_CONNECTION_CLOSE_APP] = QUIC_FA(QUIC_LV_01, false, false),
	[QUIC_FRAME_HANDSHAKE_DONE]	  = QUIC_FA(QUIC_LV_1, true, false),
	[QUIC_FRAME_IMMEDIATE_ACK]	  = QUIC_FA(QUIC_LV_1, true, false),
	[QUIC_FRAME_DATAGRAM]		  = QUIC_FA(QUIC_LV_01, true, false),
	[QUIC_FRAME_DATAGRAM_LEN]	  = QUIC_FA(QUIC_LV_01, true, false),
	[QUIC_FRAME_ACK_FREQUENCY]	  = QUIC_FA(QUIC_LV_1, true, false),
};

/**
 * quic_frame_attr_get - the attributes of a frame type
 * @type: the frame type, as read from the packet
 *
 * Return: the type's entry, or NULL if the type is unknown.
 */
const struct quic_frame_attr *quic_frame_attr_get(u64 type)
{
	const struct quic_frame_attr *a;
	unsigned long i;

	if (type >= ARRAY_SIZE(quic_frame_attrs))
		return NULL;
	i = array_index_nospec((unsigned long)type, ARRAY_SIZE(quic_frame_attrs));
	a = &quic_frame_attrs[i];
	return a->levels ? a : NULL;
}

static bool quic_frame_known(u64 type)
{
	return quic_frame_attr_get(type);
}

/* Take @n bytes at the cursor. */
static bool quic_get_bytes(const u8 **p, u32 *len, u32 n, const u8 **out)
{
	if (*len < n)
		return false;
	*out = *p;
	*p += n;
	*len -= n;
	return true;
}

/* Take a varint length and that many bytes. */
static bool quic_get_vbytes(const u8 **p, u32 *len, const u8 **out, u32 *n)
{
	u64 v;

	if (!quic_varint_get(p, len, &v) || v > *len)
		return false;
	*n = v;
	return quic_get_bytes(p, len, *n, out);
}

static void quic_ack_store(struct quic_frame *f, u64 smallest, u64 largest)
{
	struct quic_ack_range *r;

	if (f->ack.nr_ranges >= f->max_ranges)
		return;
	r = &f->ranges[f->ack.nr_ranges++];
	r->smallest = smallest;
	r->largest = largest;
}

static bool quic_get_ack(const u8 **p, u32 *len, struct quic_frame *f)
{
	struct quic_frame_ack *a = &f->ack;
	u64 first, gap, rlen, smallest, largest, i;

	if (!quic_varint_get(p, len, &a->largest) ||
	    !quic_varint_get(p, len, &a->delay) ||
	    !quic_varint_get(p, len, &a->range_count) ||
	    !quic_varint_get(p, len, &first) || first > a->largest)
		return false;
	largest = a->largest;
	smallest = largest - first;
	quic_ack_store(f, smallest, largest);

	/* Each range takes two bytes at least: the loop ends with the input. */
	for (i = 0; i < a->range_count; i++) {
		if (!quic_varint_get(p, len, &gap) ||
		    !quic_varint_get(p, len, &rlen) || gap + 2 > smallest)
			return false;
		largest = smallest - gap - 2;
		if (rlen > largest)
			return false;
		smallest = largest - rlen;
		quic_ack_store(f, smallest, largest);
	}
	if (f->type == QUIC_FRAME_ACK_ECN)
		for (i = 0; i < ARRAY_SIZE(a->ecn); i++)
			if (!quic_varint_get(p, len, &a->ecn[i]))
				return false;
	return true;
}

static bool quic_get_stream(const u8 **p, u32 *len, struct quic_frame *f)
{
	struct quic_frame_data *d = &f->data;

	if (!quic_varint_get(p, len, &d->id))
		return false;
	if ((f->type & QUIC_STREAM_BIT_OFF) &&
	    !quic_varint_get(p, len, &d->offset))
		return false;
	if (f->type & QUIC_STREAM_BIT_LEN) {
		if (!quic_get_vbytes(p, len, &d->data, &d->len))
			return false;
	} else {
		d->len = *len;
		quic_get_bytes(p, len, d->len, &d->data);
	}
	return d->offset + d->len <= QUIC_VARINT_MAX;
}

static bool quic_get_new_cid(const u8 **p, u32 *len, struct quic_frame *f)
{
	struct quic_frame_new_cid *c = &f->new_cid;
	u64 cid_len;

	if (!quic_varint_get(p, len, &c->seq) ||
	    !quic_varint_get(p, len, &c->retire_prior_to) ||
	    c->retire_prior_to > c->seq ||
	    !quic_uint_get(p, len, &cid_len, 1) ||
	    !cid_len || cid_len > QUIC_FRAME_CID_MAX_LEN)
		return false;
	c->len = cid_len;
	return quic_get_bytes(p, len, c->len, &c->id) &&
	       quic_get_bytes(p, len, QUIC_FRAME_RESET_TOKEN_LEN, &c->token);
}

/* The body of a frame whose type is read and known. */
static bool quic_get_body(const u8 **p, u32 *len, struct quic_frame *f)
{
	u64 type = f->type;

	if (quic_frame_is_stream(type))
		return quic_get_stream(p, len, f);

	switch (type) {
	case QUIC_FRAME_PADDING:
		f->padding = 1;
		while (*len && !**p && f->padding < U32_MAX) {
			(*p)++;
			(*len)--;
			f->padding++;
		}
		return true;
	case QUIC_FRAME_PING:
	case QUIC_FRAME_HANDSHAKE_DONE:
	case QUIC_FRAME_IMMEDIATE_ACK:
		return true;
	case QUIC_FRAME_ACK:
	case QUIC_FRAME_ACK_ECN:
		return quic_get_ack(p, len, f);
	case QUIC_FRAME_ACK_FREQUENCY:
		return quic_varint_get(p, len, &f->ackf.seq) &&
		       quic_varint_get(p, len, &f->ackf.threshold) &&
		       quic_varint_get(p, len, &f->ackf.max_delay_us) &&
		       quic_varint_get(p, len, &f->ackf.reorder);
	case QUIC_FRAME_RESET_STREAM:
		return quic_varint_get(p, len, &f->stream_ctl.id) &&
		       quic_varint_get(p, len, &f->stream_ctl.value) &&
		       quic_varint_get(p, len, &f->stream_ctl.final_size);
	case QUIC_FRAME_STOP_SENDING:
	case QUIC_FRAME_MAX_STREAM_DATA:
	case QUIC_FRAME_STREAM_DATA_BLOCKED:
		return quic_varint_get(p, len, &f->stream_ctl.id) &&
		       quic_varint_get(p, len, &f->stream_ctl.value);
	case QUIC_FRAME_CRYPTO:
		return quic_varint_get(p, len, &f->data.offset) &&
		       quic_get_vbytes(p, len, &f->data.data, &f->data.len) &&
		       f->data.offset + f->data.len <= QUIC_VARINT_MAX;
	case QUIC_FRAME_NEW_TOKEN:
		return quic_get_vbytes(p, len, &f->data.data, &f->data.len) &&
		       f->data.len;
	case QUIC_FRAME_MAX_DATA:
	case QUIC_FRAME_DATA_BLOCKED:
	case QUIC_FRAME_RETIRE_CONNECTION_ID:
		return quic_varint_get(p, len, &f->value);
	case QUIC_FRAME_MAX_STREAMS_BIDI:
	case QUIC_FRAME_MAX_STREAMS_UNI:
	case QUIC_FRAME_STREAMS_BLOCKED_BIDI:
	case QUIC_FRAME_STREAMS_BLOCKED_UNI:
		return quic_varint_get(p, len, &f->value) &&
		       f->value <= QUIC_FRAME_MAX_STREAMS;
	case QUIC_FRAME_NEW_CONNECTION_ID:
		return quic_get_new_cid(p, len, f);
	case QUIC_FRAME_PATH_CHALLENGE:
	case QUIC_FRAME_PATH_RESPONSE:
		return quic_get_bytes(p, len, QUIC_FRAME_PATH_DATA_LEN,
				      &f->path_data);
	case QUIC_FRAME_CONNECTION_CLOSE:
		if (!quic_varint_get(p, len, &f->close.err) ||
		    !quic_varint_get(p, len, &f->close.frame_type))
			return false;
		return quic_get_vbytes(p, len, &f->close.reason, &f->close.len);
	case QUIC_FRAME_CONNECTION_CLOSE_APP:
		return quic_varint_get(p, len, &f->close.err) &&
		       quic_get_vbytes(p, len, &f->close.reason, &f->close.len);
	case QUIC_FRAME_DATAGRAM:
		f->data.len = *len;
		return quic_get_bytes(p, len, f->data.len, &f->data.data);
	case QUIC_FRAME_DATAGRAM_LEN:
		return quic_get_vbytes(p, len, &f->data.data, &f->data.len);
	}
	return false;
}

/**
 * quic_frame_decode - decode one frame
 * @p: cursor into the packet payload, advanced past the frame on success
 * @len: bytes left at *@p, decreased on success
 * @f: the frame; the caller sets @f->ranges and @f->max_ranges (may be
 *	NULL and 0) before the call, and the decoder sets everything else
 *
 * Nothing is copied: the data fields of @f point into the packet, which
 * must outlive their use.  The cursor moves only on success, and never by
 * more than *@len.
 *
 * Return: 0, or -EPROTO with the transport error code in @f->err.
 */
int quic_frame_decode(const u8 **p, u32 *len, struct quic_frame *f)
{
	struct quic_ack_range *ranges = f->ranges;
	u32 max_ranges = f->max_ranges;
	const u8 *q = *p;
	u32 left = *len;
	u64 type;

	memset(f, 0, sizeof(*f));
	f->ranges = ranges;
	f->max_ranges = max_ranges;
	f->err = QUIC_TRANSPORT_ERROR_FRAME_ENCODING;
	if (!quic_varint_get(&q, &left, &type))
		return -EPROTO;
	f->type = type;
	if (!quic_frame_known(type))
		return -EPROTO;
	if (*len - left != quic_varint_len(type)) {
		f->err = QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;
		return -EPROTO;
	}
	if (!quic_get_body(&q, &left, f))
		return -EPROTO;
	f->err = 0;
	*p = q;
	*len = left;
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_frame_decode);

/**
 * quic_frame_types - the types of the frames of a packet payload
 * @p: the payload, plaintext
 * @len: its length
 *
 * For the packet-sent tracepoint, and only when it is on: the payload is
 * decoded again.
 *
 * Return: a mask of quic_frame_type_bit() of each frame up to the first
 * that does not decode.
 */
u32 quic_frame_types(const u8 *p, u32 len)
{
	struct quic_frame f;
	u32 types = 0;

	while (len) {
		memset(&f, 0, sizeof(f));
		if (quic_frame_decode(&p, &len, &f))
			break;
		types |= quic_frame_type_bit(f.type);
	}
	return types;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_frame_types);

/* Size of a varint, or a mark that makes the total invalid: a frame size
 * sums a few such terms and u32 data lengths, so it cannot wrap around.
 */
#define QUIC_FRAME_BAD	BIT_ULL(40)

static u64 quic_vsize(u64 v)
{
	return quic_varint_len(v) ?: QUIC_FRAME_BAD;
}

static u64 quic_ack_size(const struct quic_frame *f)
{
	const struct quic_ack_range *r = f->ranges;
	u32 i, n = f->ack.nr_ranges;
	u64 size;

	if (!n || !r || r[0].smallest > r[0].largest)
		return QUIC_FRAME_BAD;
	size = quic_vsize(r[0].largest) + quic_vsize(f->ack.delay) +
	       quic_vsize(n - 1) + quic_vsize(r[0].largest - r[0].smallest);
	for (i = 1; i < n; i++) {
		if (r[i].smallest > r[i].largest || r[i].largest >= U64_MAX - 1 ||
		    r[i].largest + 2 > r[i - 1].smallest)
			return QUIC_FRAME_BAD;
		size += quic_vsize(r[i - 1].smallest - r[i].largest - 2) +
			quic_vsize(r[i].largest - r[i].smallest);
	}
	if (f->type == QUIC_FRAME_ACK_ECN)
		for (i = 0; i < ARRAY_SIZE(f->ack.ecn); i++)
			size += quic_vsize(f->ack.ecn[i]);
	return size;
}

static u64 quic_body_size(const struct quic_frame *f)
{
	const struct quic_frame_data *d = &f->data;
	u64 type = f->type, size;

	if (quic_frame_is_stream(type)) {
		if (!(type & QUIC_STREAM_BIT_OFF) && d->offset)
			return QUIC_FRAME_BAD;
		size = quic_vsize(d->id) + d->len;
		if (type & QUIC_STREAM_BIT_OFF)
			size += quic_vsize(d->offset);
		if (type & QUIC_STREAM_BIT_LEN)
			size += quic_vsize(d->len);
		if (d->offset + d->len > QUIC_VARINT_MAX)
			return QUIC_FRAME_BAD;
		return size;
	}

	switch (type) {
	case QUIC_FRAME_PADDING:
		return f->padding ? f->padding - 1 : QUIC_FRAME_BAD;
	case QUIC_FRAME_PING:
	case QUIC_FRAME_HANDSHAKE_DONE:
	case QUIC_FRAME_IMMEDIATE_ACK:
		return 0;
	case QUIC_FRAME_ACK:
	case QUIC_FRAME_ACK_ECN:
		return quic_ack_size(f);
	case QUIC_FRAME_ACK_FREQUENCY:
		return quic_vsize(f->ackf.seq) + quic_vsize(f->ackf.threshold) +
		       quic_vsize(f->ackf.max_delay_us) +
		       quic_vsize(f->ackf.reorder);
	case QUIC_FRAME_RESET_STREAM:
		return quic_vsize(f->stream_ctl.id) +
		       quic_vsize(f->stream_ctl.value) +
		       quic_vsize(f->stream_ctl.final_size);
	case QUIC_FRAME_STOP_SENDING:
	case QUIC_FRAME_MAX_STREAM_DATA:
	case QUIC_FRAME_STREAM_DATA_BLOCKED:
		return quic_vsize(f->stream_ctl.id) +
		       quic_vsize(f->stream_ctl.value);
	case QUIC_FRAME_CRYPTO:
		if (d->offset + d->len > QUIC_VARINT_MAX)
			return QUIC_FRAME_BAD;
		return quic_vsize(d->offset) + quic_vsize(d->len) + d->len;
	case QUIC_FRAME_NEW_TOKEN:
		if (!d->len)
			return QUIC_FRAME_BAD;
		fallthrough;
	case QUIC_FRAME_DATAGRAM_LEN:
		return quic_vsize(d->len) + d->len;
	case QUIC_FRAME_DATAGRAM:
		return d->len;
	case QUIC_FRAME_MAX_DATA:
	case QUIC_FRAME_DATA_BLOCKED:
	case QUIC_FRAME_RETIRE_CONNECTION_ID:
		return quic_vsize(f->value);
	case QUIC_FRAME_MAX_STREAMS_BIDI:
	case QUIC_FRAME_MAX_STREAMS_UNI:
	case QUIC_FRAME_STREAMS_BLOCKED_BIDI:
	case QUIC_FRAME_STREAMS_BLOCKED_UNI:
		if (f->value > QUIC_FRAME_MAX_STREAMS)
			return QUIC_FRAME_BAD;
		return quic_vsize(f->value);
	case QUIC_FRAME_NEW_CONNECTION_ID:
		if (f->new_cid.retire_prior_to > f->new_cid.seq ||
		    !f->new_cid.len || f->new_cid.len > QUIC_FRAME_CID_MAX_LEN)
			return QUIC_FRAME_BAD;
		return quic_vsize(f->new_cid.seq) +
		       quic_vsize(f->new_cid.retire_prior_to) + 1 +
		       f->new_cid.len + QUIC_FRAME_RESET_TOKEN_LEN;
	case QUIC_FRAME_PATH_CHALLENGE:
	case QUIC_FRAME_PATH_RESPONSE:
		return QUIC_FRAME_PATH_DATA_LEN;
	case QUIC_FRAME_CONNECTION_CLOSE:
		size = quic_vsize(f->close.frame_type);
		return size + quic_vsize(f->close.err) +
		       quic_vsize(f->close.len) + f->close.len;
	case QUIC_FRAME_CONNECTION_CLOSE_APP:
		return quic_vsize(f->close.err) + quic_vsize(f->close.len) +
		       f->close.len;
	}
	return QUIC_FRAME_BAD;
}

/**
 * quic_frame_len - encoded size of a frame
 * @f: the frame, as for quic_frame_encode()
 *
 * Return: the size in bytes, or -EINVAL if @f cannot be encoded (unknown
 * type, a value beyond 2^62 - 1, or a field the decoder would reject).
 */
int quic_frame_len(const struct quic_frame *f)
{
	u64 size;

	if (!quic_frame_known(f->type))
		return -EINVAL;
	size = quic_vsize(f->type) + quic_body_size(f);
	if (size > INT_MAX)
		return -EINVAL;
	return size;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_frame_len);

/* @data NULL leaves the @len bytes for the caller to write. */
static u8 *quic_put_bytes(u8 *p, const u8 *data, u32 len)
{
	if (len && data)
		memcpy(p, data, len);
	return p + len;
}

static u8 *quic_put_ack(u8 *p, const struct quic_frame *f)
{
	const struct quic_ack_range *r = f->ranges;
	u32 i;

	p = quic_varint_put(p, r[0].largest);
	p = quic_varint_put(p, f->ack.delay);
	p = quic_varint_put(p, f->ack.nr_ranges - 1);
	p = quic_varint_put(p, r[0].largest - r[0].smallest);
	for (i = 1; i < f->ack.nr_ranges; i++) {
		p = quic_varint_put(p, r[i - 1].smallest - r[i].largest - 2);
		p = quic_varint_put(p, r[i].largest - r[i].smallest);
	}
	if (f->type == QUIC_FRAME_ACK_ECN)
		for (i = 0; i < ARRAY_SIZE(f->ack.ecn); i++)
			p = quic_varint_put(p, f->ack.ecn[i]);
	return p;
}

/* Write the body of a frame that quic_body_size() accepted. */
static u8 *quic_put_body(u8 *p, const struct quic_frame *f)
{
	const struct quic_frame_data *d = &f->data;
	u64 type = f->type;

	if (quic_frame_is_stream(type)) {
		p = quic_varint_put(p, d->id);
		if (type & QUIC_STREAM_BIT_OFF)
			p = quic_varint_put(p, d->offset);
		if (type & QUIC_STREAM_BIT_LEN)
			p = quic_varint_put(p, d->len);
		return quic_put_bytes(p, d->data, d->len);
	}

	switch (type) {
	case QUIC_FRAME_PADDING:
		memset(p, 0, f->padding - 1);
		return p + f->padding - 1;
	case QUIC_FRAME_ACK:
	case QUIC_FRAME_ACK_ECN:
		return quic_put_ack(p, f);
	case QUIC_FRAME_ACK_FREQUENCY:
		p = quic_varint_put(p, f->ackf.seq);
		p = quic_varint_put(p, f->ackf.threshold);
		p = quic_varint_put(p, f->ackf.max_delay_us);
		return quic_varint_put(p, f->ackf.reorder);
	case QUIC_FRAME_RESET_STREAM:
		p = quic_varint_put(p, f->stream_ctl.id);
		p = quic_varint_put(p, f->stream_ctl.value);
		return quic_varint_put(p, f->stream_ctl.final_size);
	case QUIC_FRAME_STOP_SENDING:
	case QUIC_FRAME_MAX_STREAM_DATA:
	case QUIC_FRAME_STREAM_DATA_BLOCKED:
		p = quic_varint_put(p, f->stream_ctl.id);
		return quic_varint_put(p, f->stream_ctl.value);
	case QUIC_FRAME_CRYPTO:
		p = quic_varint_put(p, d->offset);
		fallthrough;
	case QUIC_FRAME_NEW_TOKEN:
	case QUIC_FRAME_DATAGRAM_LEN:
		p = quic_varint_put(p, d->len);
		fallthrough;
	case QUIC_FRAME_DATAGRAM:
		return quic_put_bytes(p, d->data, d->len);
	case QUIC_FRAME_MAX_DATA:
	case QUIC_FRAME_DATA_BLOCKED:
	case QUIC_FRAME_RETIRE_CONNECTION_ID:
	case QUIC_FRAME_MAX_STREAMS_BIDI:
	case QUIC_FRAME_MAX_STREAMS_UNI:
	case QUIC_FRAME_STREAMS_BLOCKED_BIDI:
	case QUIC_FRAME_STREAMS_BLOCKED_UNI:
		return quic_varint_put(p, f->value);
	case QUIC_FRAME_NEW_CONNECTION_ID:
		p = quic_varint_put(p, f->new_cid.seq);
		p = quic_varint_put(p, f->new_cid.retire_prior_to);
		*p++ = f->new_cid.len;
		p = quic_put_bytes(p, f->new_cid.id, f->new_cid.len);
		return quic_put_bytes(p, f->new_cid.token,
				      QUIC_FRAME_RESET_TOKEN_LEN);
	case QUIC_FRAME_PATH_CHALLENGE:
	case QUIC_FRAME_PATH_RESPONSE:
		return quic_put_bytes(p, f->path_data, QUIC_FRAME_PATH_DATA_LEN);
	case QUIC_FRAME_CONNECTION_CLOSE:
	case QUIC_FRAME_CONNECTION_CLOSE_APP:
		p = quic_varint_put(p, f->close.err);
		if (type == QUIC_FRAME_CONNECTION_CLOSE)
			p = quic_varint_put(p, f->close.frame_type);
		p = quic_varint_put(p, f->close.len);
		return quic_put_bytes(p, f->close.reason, f->close.len);
	}
	return p;	/* PING, HANDSHAKE_DONE, IMMEDIATE_ACK */
}

/**
 * quic_frame_encode - encode one frame
 * @p: where to write
 * @room: bytes available at @p
 * @f: the frame: @f->type selects the fields used (see struct quic_frame);
 *	ACK ranges are read from @f->ranges
 *
 * Varints are written in their shortest encoding.  Nothing is written
 * unless the whole frame fits.  With @f->data.data NULL, the data bytes
 * of a STREAM, CRYPTO, NEW_TOKEN or DATAGRAM frame are left for the caller
 * to write: they are the frame's last @f->data.len bytes.
 *
 * Return: bytes written, -ENOSPC if they exceed @room, or -EINVAL if @f
 * cannot be encoded (see quic_frame_len()).
 */
int quic_frame_encode(u8 *p, u32 room, const struct quic_frame *f)
{
	int n = quic_frame_len(f);

	if (n < 0)
		return n;
	if (n > room)
		return -ENOSPC;
	p = quic_varint_put(p, f->type);
	quic_put_body(p, f);
	return n;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_frame_encode);

/* Data bytes that fit in @room after a header of @hdr bytes, and after a
 * Length field if @with_len: the best over the four sizes of that field.
 */
static int quic_frame_fit(u32 hdr, bool with_len, u64 offset, u32 room,
			  u32 data_len)
{
	u32 n, s, cand;

	room = min_t(u32, room, INT_MAX);
	if (room < hdr + with_len)
		return -ENOSPC;
	n = min(data_len, room - hdr);
	if (with_len) {
		n = 0;
		for (s = 1; s <= QUIC_VARINT_MAX_LEN && s <= room - hdr; s <<= 1) {
			cand = min_t(u64, min(data_len, room - hdr - s),
				     (1ULL << (8 * s - 2)) - 1);
			n = max(n, cand);
		}
	}
	if (n > QUIC_VARINT_MAX - offset)
		n = QUIC_VARINT_MAX - offset;
	return n;
}

/**
 * quic_frame_stream_fit - how much STREAM data fits in a given room
 * @id: the Stream ID
 * @offset: the Offset; the frame carries it when it is not 0, as with
 *	quic_frame_stream_type()
 * @with_len: whether the frame has a Length field
 * @room: bytes available for the whole frame
 * @data_len: bytes the caller has to send
 *
 * The Length field is sized for the result: the answer is the most data
 * whose frame fits in @room, which may fall short of @room by a byte or
 * more where a shorter Length field pays off.  0 is a valid answer: a frame
 * with FIN only.
 *
 * Return: data bytes, at most @data_len, or -ENOSPC if not even the
 * header fits, or -EINVAL if @id or @offset exceed 2^62 - 1.
 */
int quic_frame_stream_fit(u64 id, u64 offset, bool with_len, u32 room,
			  u32 data_len)
{
	u32 idl = quic_varint_len(id), offl = quic_varint_len(offset);

	if (!idl || !offl)
		return -EINVAL;
	return quic_frame_fit(1 + idl + (offset ? offl : 0), with_len, offset,
			      room, data_len);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_frame_stream_fit);

/**
 * quic_frame_crypto_fit - how much CRYPTO data fits in a given room
 * @offset: the Offset
 * @room: bytes available for the whole frame
 * @data_len: bytes the caller has to send
 *
 * Return: data bytes, at most @data_len, or -ENOSPC if not even the
 * header fits, or -EINVAL if @offset exceeds 2^62 - 1.
 */
int quic_frame_crypto_fit(u64 offset, u32 room, u32 data_len)
{
	u32 offl = quic_varint_len(offset);

	if (!offl)
		return -EINVAL;
	return quic_frame_fit(1 + offl, true, offset, room, data_len);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_frame_crypto_fit);

/**
 * quic_frame_allowed - whether a frame type may appear at a packet level
 * @type: the frame type
 * @level: the packet's encryption level, enum quic_crypto_level
 *	(QUIC_CRYPTO_INITIAL, _HANDSHAKE, _EARLY for 0-RTT, _APP for 1-RTT)
 *
 * A frame that is not allowed is a connection error of type
 * PROTOCOL_VIOLATION (RFC 9000 12.4).
 *
 * Return: true if allowed; false for unknown types and levels.
 */
bool quic_frame_allowed(u64 type, u8 level)
{
	const struct quic_frame_attr *a = quic_frame_attr_get(type);

	return a && level < QUIC_CRYPTO_MAX && (a->levels & BIT(level));
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_frame_allowed);

/**
 * quic_frame_ack_eliciting - whether a frame makes its packet ack-eliciting
 * @type: the frame type
 *
 * Return: true for every known frame but ACK, PADDING and CONNECTION_CLOSE
 * (RFC 9002 section 2).
 */
bool quic_frame_ack_eliciting(u64 type)
{
	const struct quic_frame_attr *a = quic_frame_attr_get(type);

	return a && a->ack_eliciting;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_frame_ack_eliciting);

/**
 * quic_frame_in_flight - whether a frame makes its packet count in flight
 * @type: the frame type
 *
 * Return: true for ack-eliciting frames and PADDING (RFC 9002 section 2).
 */
bool quic_frame_in_flight(u64 type)
{
	return type == QUIC_FRAME_PADDING || quic_frame_ack_eliciting(type);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_frame_in_flight);

/**
 * quic_frame_probing - whether a frame is a probing frame
 * @type: the frame type
 *
 * A packet holding only probing frames does not migrate the connection
 * (RFC 9000 section 9.1).
 *
 * Return: true for PATH_CHALLENGE, PATH_RESPONSE, NEW_CONNECTION_ID and
 * PADDING.
 */
bool quic_frame_probing(u64 type)
{
	const struct quic_frame_attr *a = quic_frame_attr_get(type);

	return a && a->probing;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_frame_probing);
