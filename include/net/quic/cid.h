/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC connection IDs (RFC 9000, section 5.1): the value type shared by
 * the codecs (transport parameters, frames, packet headers) and the
 * connection ID tables.
 */

#ifndef _NET_QUIC_CID_H
#define _NET_QUIC_CID_H

#include <linux/types.h>

/* Longest connection ID of QUIC version 1 (RFC 9000, section 17.2). */
#define QUIC_CID_MAX_LEN	20

/**
 * struct quic_cid - a connection ID
 * @len: length in bytes, 0 to QUIC_CID_MAX_LEN
 * @data: the bytes; those past @len are unspecified
 */
struct quic_cid {
	u8	len;
	u8	data[QUIC_CID_MAX_LEN];
};

#endif /* _NET_QUIC_CID_H */
