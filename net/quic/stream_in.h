/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the stream and flow control frames a connection receives
 * (net/quic/stream_in.c), handlers of input.c's frame table.
 */
#ifndef __NET_QUIC_STREAM_IN_H
#define __NET_QUIC_STREAM_IN_H

struct quic_frame;
struct quic_in_pkt;

int quic_stream_in_limits(struct quic_in_pkt *in, const struct quic_frame *f);
int quic_stream_in_ctl(struct quic_in_pkt *in, const struct quic_frame *f);
int quic_stream_in_data(struct quic_in_pkt *in, const struct quic_frame *f);

#endif /* __NET_QUIC_STREAM_IN_H */
