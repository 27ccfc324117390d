/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the send queue of a connection, its socket side
 * (net/quic/sendq.c): the records of the packets sent, each listing the
 * retransmittable frames it carried, for an ACK or a loss to act on; and
 * the CRYPTO and STREAM data queued until it is acknowledged, charged to
 * the socket. The queue itself is outq.h's.
 *
 * Everything here takes the socket locked (conn.h).
 */
#ifndef __NET_QUIC_SENDQ_H
#define __NET_QUIC_SENDQ_H

#include <linux/types.h>

#include "sent.h"

struct iov_iter;
struct quic_outq;
struct quic_outq_chunk;
struct quic_stream;
struct sock;
struct ubuf_info;

/* Frames a sent-packet record holds in itself; more go to extensions. */
#define QUIC_OUT_REC_ITEMS		4
#define QUIC_OUT_EXT_ITEMS		15

/* What one frame of a sent packet was, for an ACK or a loss to act on. */
enum quic_out_kind {
	QUIC_OUT_CHUNK,		/* CRYPTO or STREAM data: @chunk */
	QUIC_OUT_HANDSHAKE_DONE,
	QUIC_OUT_MAX_DATA,
	QUIC_OUT_MSD,		/* MAX_STREAM_DATA of stream @id */
	QUIC_OUT_CONN_CTL,	/* MAX_STREAMS or *_BLOCKED: @bit */
	QUIC_OUT_STREAM_CTL,	/* RESET_STREAM, ...: @bit of stream @id */
	QUIC_OUT_NEW_CID,	/* NEW_CONNECTION_ID of our ID @seq */
	QUIC_OUT_RETIRE_CID,	/* RETIRE_CONNECTION_ID of the peer's @seq */
	QUIC_OUT_NEW_TOKEN,
	QUIC_OUT_DATAGRAM,	/* DATAGRAM frames: never sent again */
	QUIC_OUT_PATH_CHALLENGE,	/* try @seq; another goes if still
					 * validating and it was the last
					 */
	QUIC_OUT_ACK_FREQUENCY,	/* ACK_FREQUENCY of Sequence Number @seq */
};

/**
 * struct quic_out_item - a retransmittable frame a sent packet carried
 * @chunk: QUIC_OUT_CHUNK: the data, referenced
 * @id: QUIC_OUT_MSD, QUIC_OUT_STREAM_CTL: the stream
 * @seq: QUIC_OUT_NEW_CID, QUIC_OUT_RETIRE_CID: the sequence number;
 *	QUIC_OUT_PATH_CHALLENGE: which try of the validation it was
 * @kind: enum quic_out_kind
 * @bit: QUIC_OUT_CONN_CTL: a QUIC_STREAM_MAX_STREAMS_* or
 *	QUIC_STREAM_BLOCKED_CONN_* bit; QUIC_OUT_STREAM_CTL: a
 *	QUIC_STREAM_CTL_* bit
 */
struct quic_out_item {
	union {
		struct quic_outq_chunk	*chunk;
		s64			id;
		u64			seq;
	};
	u8	kind;
	u8	bit;
};

/**
 * struct quic_out_ext - more frames of a sent packet
 * @next: the next extension, or NULL
 * @nr: items used
 * @item: the frames
 */
struct quic_out_ext {
	struct quic_out_ext	*next;
	u32			nr;
	struct quic_out_item	item[QUIC_OUT_EXT_ITEMS];
};

/**
 * struct quic_out_pkt - a sent packet we may have to answer for
 * @sent: the sent-store record
 * @level: its packet-number space
 * @pmtu_probe: a path MTU probe (PING and PADDING)
 * @ect: it left in a datagram marked ECT(0)
 * @nr: items used in @item
 * @item: the retransmittable frames it carried, the first ones
 * @ext: the others, if any, in extensions
 *
 * Every frame that is sent again when lost is recorded, so that a lost
 * packet sends again what it carried and nothing more (RFC 9000 13.3);
 * ACK, PADDING and PING are not.
 */
struct quic_out_pkt {
	struct quic_sent_pkt	sent;
	u8			level;
	bool			pmtu_probe;
	bool			ect;
	u8			nr;
	struct quic_out_item	item[QUIC_OUT_REC_ITEMS];
	struct quic_out_ext	*ext;
};

/**
 * struct quic_out_iter - a walk of the frames of a record
 * @ext: the extension being walked, once @in_ext
 * @i: the next item in the record, or in @ext
 * @in_ext: past the record's own items
 *
 * Zeroed to start (quic_sendq_item_next()).
 */
struct quic_out_iter {
	struct quic_out_ext	*ext;
	u32			i;
	bool			in_ext;
};

struct quic_out_item *quic_sendq_item_add(struct quic_out_pkt *rec);
bool quic_sendq_note(struct quic_out_pkt *rec, u8 kind, u8 bit, u64 val);
struct quic_out_item *quic_sendq_item_next(struct quic_out_pkt *rec,
					   struct quic_out_iter *it);
void quic_sendq_rec_release(struct quic_out_pkt *rec);
void quic_sendq_pkt_free(void *ctx, struct quic_sent_pkt *pkt);

int quic_sendq_crypto_room(struct sock *sk, u8 level, u32 len);
int quic_sendq_crypto(struct sock *sk, u8 level, struct iov_iter *from,
		      u32 len);
int quic_sendq_stream(struct sock *sk, struct quic_stream *st,
		      struct iov_iter *from, u32 len, bool fin, u32 room);
int quic_sendq_stream_pages(struct sock *sk, struct quic_stream *st,
			    struct iov_iter *from, u32 len, bool fin,
			    u32 room, struct ubuf_info *uarg);
int quic_sendq_chunk_split(struct sock *sk, struct quic_outq *q,
			   struct quic_outq_chunk *ch, int n);
void quic_sendq_chunk_gone(struct sock *sk, struct quic_outq_chunk *ch,
			   bool acked);
void quic_sendq_stream_drop(struct sock *sk, s64 id);
u64 quic_sendq_unsent(struct sock *sk);
bool quic_sendq_done(struct sock *sk);

#endif /* __NET_QUIC_SENDQ_H */
