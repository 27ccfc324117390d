/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC frame codecs (RFC 9000 section 19, RFC 9221 DATAGRAM, and
 * draft-ietf-quic-ack-frequency's ACK_FREQUENCY and IMMEDIATE_ACK).
 *
 * Pure code over a byte cursor: no socket or skb state.  Decoded frames
 * that carry bytes (CRYPTO, STREAM, NEW_TOKEN, DATAGRAM, the close reason,
 * connection IDs, reset tokens, path data) point into the packet buffer;
 * nothing is copied and nothing is allocated.
 *
 * Errors.  quic_frame_decode() returns 0 or -EPROTO.  On -EPROTO, f->err
 * holds the QUIC transport error code to close the connection with
 * (QUIC_TRANSPORT_ERROR_FRAME_ENCODING or _PROTOCOL_VIOLATION) and f->type
 * the frame type as read, known or not, or 0 if no type could be read
 * (RFC 9000 19.19: 0 when the triggering frame type is unknown).
 */
#ifndef _NET_QUIC_FRAME_H
#define _NET_QUIC_FRAME_H

#include <linux/bits.h>
#include <linux/types.h>
#include "ackrange.h"

enum quic_frame_type {
	QUIC_FRAME_PADDING			= 0x00,
	QUIC_FRAME_PING				= 0x01,
	QUIC_FRAME_ACK				= 0x02,
	QUIC_FRAME_ACK_ECN			= 0x03,
	QUIC_FRAME_RESET_STREAM			= 0x04,
	QUIC_FRAME_STOP_SENDING			= 0x05,
	QUIC_FRAME_CRYPTO			= 0x06,
	QUIC_FRAME_NEW_TOKEN			= 0x07,
	QUIC_FRAME_STREAM			= 0x08,	/* to 0x0f */
	QUIC_FRAME_MAX_DATA			= 0x10,
	QUIC_FRAME_MAX_STREAM_DATA		= 0x11,
	QUIC_FRAME_MAX_STREAMS_BIDI		= 0x12,
	QUIC_FRAME_MAX_STREAMS_UNI		= 0x13,
	QUIC_FRAME_DATA_BLOCKED			= 0x14,
	QUIC_FRAME_STREAM_DATA_BLOCKED		= 0x15,
	QUIC_FRAME_STREAMS_BLOCKED_BIDI		= 0x16,
	QUIC_FRAME_STREAMS_BLOCKED_UNI		= 0x17,
	QUIC_FRAME_NEW_CONNECTION_ID		= 0x18,
	QUIC_FRAME_RETIRE_CONNECTION_ID		= 0x19,
	QUIC_FRAME_PATH_CHALLENGE		= 0x1a,
	QUIC_FRAME_PATH_RESPONSE		= 0x1b,
	QUIC_FRAME_CONNECTION_CLOSE		= 0x1c,
	QUIC_FRAME_CONNECTION_CLOSE_APP		= 0x1d,
	QUIC_FRAME_HANDSHAKE_DONE		= 0x1e,
	QUIC_FRAME_IMMEDIATE_ACK		= 0x1f,	/* ack-frequency */
	QUIC_FRAME_DATAGRAM			= 0x30,
	QUIC_FRAME_DATAGRAM_LEN			= 0x31,
	QUIC_FRAME_ACK_FREQUENCY		= 0xaf,	/* ack-frequency */
};

/* Low bits of the STREAM frame types 0x08-0x0f. */
#define QUIC_STREAM_BIT_FIN	0x01
#define QUIC_STREAM_BIT_LEN	0x02
#define QUIC_STREAM_BIT_OFF	0x04

#define QUIC_FRAME_CID_MAX_LEN		20
#define QUIC_FRAME_RESET_TOKEN_LEN	16
#define QUIC_FRAME_PATH_DATA_LEN	8
/* Largest MAX_STREAMS / STREAMS_BLOCKED count (RFC 9000 19.11, 19.14). */
#define QUIC_FRAME_MAX_STREAMS		BIT_ULL(60)

/**
 * struct quic_frame_ack - ACK and ACK_ECN (0x02, 0x03)
 * @largest: Largest Acknowledged
 * @delay: ACK Delay as on the wire (not yet scaled by ack_delay_exponent)
 * @range_count: ACK Range Count as on the wire (ranges after the first);
 *	set by the decoder, ignored by the encoder
 * @nr_ranges: decode: ranges stored in quic_frame.ranges; encode: ranges
 *	to write from quic_frame.ranges (at least 1)
 * @ecn: ECT(0), ECT(1) and ECN-CE counts, for ACK_ECN only
 *
 * Ranges are absolute, in the wire's descending order: ranges[0] holds
 * Largest Acknowledged.  The decoder stores the first max_ranges ranges
 * (the newest packet numbers) and validates but drops the rest, so a peer
 * cannot make it allocate or store more than the caller allows; @nr_ranges
 * < @range_count + 1 tells that it did.  Forgetting acknowledgements is
 * safe: those packets are declared lost at worst.  The encoder writes
 * ranges that must be strictly descending with a gap of at least one
 * unacknowledged packet between them.
 */
struct quic_frame_ack {
	u64	largest;
	u64	delay;
	u64	range_count;
	u32	nr_ranges;
	u64	ecn[3];
};

/**
 * struct quic_frame_stream_ctl - RESET_STREAM, STOP_SENDING,
 *	MAX_STREAM_DATA, STREAM_DATA_BLOCKED
 * @id: Stream ID
 * @value: Application Protocol Error Code (RESET_STREAM, STOP_SENDING) or
 *	Maximum Stream Data / Maximum Stream Data limit (the other two)
 * @final_size: Final Size, RESET_STREAM only
 */
struct quic_frame_stream_ctl {
	u64	id;
	u64	value;
	u64	final_size;
};

/**
 * struct quic_frame_data - CRYPTO, STREAM, NEW_TOKEN, DATAGRAM
 * @id: Stream ID (STREAM)
 * @offset: Offset (CRYPTO, STREAM; 0 when the STREAM OFF bit is clear)
 * @data: the bytes, pointing into the packet
 * @len: their number
 *
 * The STREAM flags are the low bits of quic_frame.type (QUIC_STREAM_BIT_*);
 * the encoder follows them: without OFF the offset must be 0, without LEN
 * the data runs to the end of the packet (the caller makes it the last
 * frame).  The same holds for DATAGRAM (0x30) against DATAGRAM_LEN.
 */
struct quic_frame_data {
	u64		id;
	u64		offset;
	const u8	*data;
	u32		len;
};

/**
 * struct quic_frame_new_cid - NEW_CONNECTION_ID (0x18)
 * @seq: Sequence Number
 * @retire_prior_to: Retire Prior To, at most @seq
 * @id: the connection ID, pointing into the packet
 * @len: its length, 1 to 20
 * @token: the 16-byte Stateless Reset Token, pointing into the packet
 */
struct quic_frame_new_cid {
	u64		seq;
	u64		retire_prior_to;
	const u8	*id;
	u32		len;
	const u8	*token;
};

/**
 * struct quic_frame_close - CONNECTION_CLOSE (0x1c, 0x1d)
 * @err: Error Code
 * @frame_type: Frame Type that caused it (0x1c only)
 * @reason: Reason Phrase, pointing into the packet (not NUL-terminated)
 * @len: its length
 */
struct quic_frame_close {
	u64		err;
	u64		frame_type;
	const u8	*reason;
	u32		len;
};

/**
 * struct quic_frame_ackf - ACK_FREQUENCY (0xaf, draft-ietf-quic-ack-frequency)
 * @seq: Sequence Number
 * @threshold: Ack-Eliciting Threshold
 * @max_delay_us: Request Max Ack Delay, in microseconds
 * @reorder: Reordering Threshold
 */
struct quic_frame_ackf {
	u64	seq;
	u64	threshold;
	u64	max_delay_us;
	u64	reorder;
};

/**
 * struct quic_frame - one decoded frame, or one to encode
 * @type: the frame type, with the STREAM flag bits
 * @err: on decode failure, the transport error code (see the top of file)
 * @ranges: caller's array for ACK ranges (decode: filled; encode: read);
 *	the decoder never changes this field or @max_ranges
 * @max_ranges: capacity of @ranges, for the decoder
 * @padding: PADDING: number of consecutive padding bytes (the decoder
 *	takes a whole run at once; the encoder writes @padding bytes, >= 1)
 * @ack: ACK, ACK_ECN
 * @stream_ctl: RESET_STREAM, STOP_SENDING, MAX_STREAM_DATA,
 *	STREAM_DATA_BLOCKED
 * @data: CRYPTO, NEW_TOKEN, STREAM, DATAGRAM
 * @value: Maximum Data (MAX_DATA, DATA_BLOCKED), Maximum Streams
 *	(MAX_STREAMS, STREAMS_BLOCKED, at most 2^60) or Sequence Number
 *	(RETIRE_CONNECTION_ID)
 * @new_cid: NEW_CONNECTION_ID
 * @path_data: PATH_CHALLENGE, PATH_RESPONSE: 8 bytes, into the packet
 * @close: CONNECTION_CLOSE
 * @ackf: ACK_FREQUENCY
 */
struct quic_frame {
	u64				type;
	u32				err;
	u32				max_ranges;
	struct quic_ack_range		*ranges;
	union {
		u32				padding;
		struct quic_frame_ack		ack;
		struct quic_frame_stream_ctl	stream_ctl;
		struct quic_frame_data		data;
		u64				value;
		struct quic_frame_new_cid	new_cid;
		const u8			*path_data;
		struct quic_frame_close		close;
		struct quic_frame_ackf		ackf;
	};
};

/**
 * struct quic_frame_attr - what the RFCs say of a frame type
 * @levels: the encryption levels it may appear at, BIT() of enum
 *	quic_crypto_level (RFC 9000 Table 3, section 12.4); another level is
 *	a connection error of type PROTOCOL_VIOLATION
 * @ack_eliciting: it makes its packet ack-eliciting (RFC 9002 section 2)
 * @probing: it is a probing frame (RFC 9000 section 9.1): a packet of
 *	probing frames only does not migrate the connection
 */
struct quic_frame_attr {
	u8	levels;
	bool	ack_eliciting;
	bool	probing;
};

const struct quic_frame_attr *quic_frame_attr_get(u64 type);
int quic_frame_decode(const u8 **p, u32 *len, struct quic_frame *f);
int quic_frame_len(const struct quic_frame *f);
int quic_frame_encode(u8 *p, u32 room, const struct quic_frame *f);
int quic_frame_stream_fit(u64 id, u64 offset, bool with_len, u32 room,
			  u32 data_len);
int quic_frame_crypto_fit(u64 offset, u32 room, u32 data_len);
bool quic_frame_allowed(u64 type, u8 level);
bool quic_frame_ack_eliciting(u64 type);
bool quic_frame_in_flight(u64 type);
bool quic_frame_probing(u64 type);

/**
 * quic_frame_is_stream - whether @type is one of the STREAM types
 * @type: a frame type
 *
 * Return: true for 0x08 to 0x0f.
 */
/* A frame type as one bit of a mask (the tracepoints'): bit N for type N
 * up to 0x1e, bit 31 for the others (IMMEDIATE_ACK, DATAGRAM,
 * ACK_FREQUENCY).
 */
static inline u32 quic_frame_type_bit(u64 type)
{
	return type < 31 ? BIT(type) : BIT(31);
}

u32 quic_frame_types(const u8 *p, u32 len);

static inline bool quic_frame_is_stream(u64 type)
{
	return (type & ~7ULL) == QUIC_FRAME_STREAM;
}

/**
 * quic_frame_stream_type - the STREAM frame type for a set of fields
 * @offset: the Offset; the OFF bit is set when it is not 0
 * @with_len: set the LEN bit
 * @fin: set the FIN bit
 *
 * Return: a type from 0x08 to 0x0f.
 */
static inline u64 quic_frame_stream_type(u64 offset, bool with_len, bool fin)
{
	return QUIC_FRAME_STREAM | (offset ? QUIC_STREAM_BIT_OFF : 0) |
	       (with_len ? QUIC_STREAM_BIT_LEN : 0) |
	       (fin ? QUIC_STREAM_BIT_FIN : 0);
}

#endif /* _NET_QUIC_FRAME_H */
