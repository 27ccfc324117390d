/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the send path of a connection (net/quic/output.c): the data
 * queued to send until it is acknowledged, the packet builder, and what
 * acknowledged and lost packets mean for recovery (recovery.h).
 *
 * Everything here takes the socket locked (conn.h).
 */
#ifndef __NET_QUIC_OUTPUT_H
#define __NET_QUIC_OUTPUT_H

#include <linux/list.h>
#include <linux/types.h>

struct iov_iter;
struct quic_ack_range;
struct quic_frame_ack;
struct quic_sent_pkt;
struct quic_stream;
struct sock;

/**
 * struct quic_crypto_chunk - CRYPTO stream bytes of one level to deliver
 * @list: link in &quic_pnspace.crypto_out, ascending offsets
 * @offset: offset in the level's CRYPTO stream
 * @len: bytes at @data
 * @need_send: not yet sent, or to be sent again
 * @data: the bytes
 */
struct quic_crypto_chunk {
	struct list_head	list;
	u64			offset;
	u32			len;
	bool			need_send;
	u8			data[];
};

/**
 * struct quic_stream_out - STREAM bytes to deliver
 * @list: link in &quic_conn.stream_out, in the order queued
 * @id: the stream
 * @offset: offset in the stream
 * @len: bytes at @data
 * @fin: the last bytes of the stream (may be a bare FIN, @len 0)
 * @refs: sent-packet records pointing here
 * @need_send: not yet sent, or to be sent again
 * @sent: sent at least once (SIOCOUTQNSD counts the others)
 * @acked: delivered and off the list; freed once @refs is 0
 * @data: the bytes
 */
struct quic_stream_out {
	struct list_head	list;
	s64			id;
	u64			offset;
	u32			len;
	u32			refs;
	bool			fin;
	bool			need_send;
	bool			sent;
	bool			acked;
	u8			data[];
};

int quic_output_crypto(struct sock *sk, u8 level, struct iov_iter *from,
		       u32 len);
void quic_output_flush(struct sock *sk, gfp_t gfp);
void quic_output_ack_timeout(struct sock *sk);
void quic_output_pace_timeout(struct sock *sk);
void quic_output_close(struct sock *sk, u32 err, gfp_t gfp);
void quic_output_close_app(struct sock *sk, gfp_t gfp);
void quic_output_pkt_free(void *ctx, struct quic_sent_pkt *pkt);
int quic_output_ack_rcvd(struct sock *sk, u8 level,
			 const struct quic_frame_ack *ack,
			 const struct quic_ack_range *ranges);
void quic_output_loss_timeout(struct sock *sk);
int quic_output_stream(struct sock *sk, struct quic_stream *st,
		       struct iov_iter *from, u32 len, bool fin);
void quic_output_stream_free(struct sock *sk);
void quic_output_msd(struct sock *sk, s64 id);
void quic_output_stream_drop(struct sock *sk, s64 id);

#endif /* __NET_QUIC_OUTPUT_H */
