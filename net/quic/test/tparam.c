// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the transport parameter codec (net/quic/tparam.c).
 *
 * Every input the decoder sees here is copied to the end of a vmalloc()ed
 * page, so that a read past its end hits the guard page and faults instead
 * of going unnoticed.
 */

#include <linux/kernel.h>
#include <linux/quic.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include "../tparam.h"
#include "../varint.h"

#include "test.h"

#define QUIC_SERVER_ONLY_BITS	(BIT(QUIC_TPB_ORIGINAL_DCID) |		\
				 BIT(QUIC_TPB_RETRY_SCID) |		\
				 BIT(QUIC_TPB_STATELESS_RESET_TOKEN) |	\
				 BIT(QUIC_TPB_PREFERRED_ADDRESS))

/* Decode @len bytes placed at the very end of a page. */
static int decode_guarded(const u8 *data, u32 len, struct quic_tparams *tp,
			  bool from_server)
{
	u8 *page;
	int err;

	if (len > PAGE_SIZE)
		return -E2BIG;
	page = vmalloc(PAGE_SIZE);
	if (!page)
		return -ENOMEM;
	memcpy(page + PAGE_SIZE - len, data, len);
	err = quic_tparams_decode(page + PAGE_SIZE - len, len, tp, from_server);
	vfree(page);
	return err;
}

/* Append a parameter with a raw value. */
static u32 put_raw(u8 *p, u64 id, const void *v, u32 len)
{
	u8 *s = p;

	p = quic_varint_put(p, id);
	p = quic_varint_put(p, len);
	if (len)
		memcpy(p, v, len);
	return p + len - s;
}

/* Append an integer parameter in the shortest encoding. */
static u32 put_int(u8 *p, u64 id, u64 v)
{
	u8 val[8];

	return put_raw(p, id, val, quic_varint_put(val, v) - val);
}

/* Decode a single parameter and expect @want. */
static int expect_one(struct quic_test *t, u64 id, const void *v, u32 len,
		      bool from_server, int want)
{
	struct quic_tparams tp;
	u8 buf[128];
	int err;

	err = decode_guarded(buf, put_raw(buf, id, v, len), &tp, from_server);
	if (err != want)
		return quic_test_fail(t, "param 0x%llx len %u: got %d, want %d",
				      id, len, err, want);
	return 0;
}

/* Decode one integer parameter of value @v and expect @want. */
static int expect_int(struct quic_test *t, u64 id, u64 v, int want,
		      struct quic_tparams *tp)
{
	u8 buf[32];
	int err;

	err = decode_guarded(buf, put_int(buf, id, v), tp, true);
	if (err != want)
		return quic_test_fail(t, "param 0x%llx = %llu: got %d, want %d",
				      id, v, err, want);
	return 0;
}

static void set_cid(struct quic_cid *cid, u8 len, u8 seed)
{
	u8 i;

	cid->len = len;
	for (i = 0; i < len; i++)
		cid->data[i] = seed + i;
}

static bool cid_eq(const struct quic_cid *a, const struct quic_cid *b)
{
	return a->len == b->len && !memcmp(a->data, b->data, a->len);
}

/* A server set with every parameter present and no default value. */
static void full_server_set(struct quic_tparams *tp)
{
	struct quic_preferred_address *pa = &tp->preferred_address;
	u32 i;

	quic_tparams_init_local(tp);
	set_cid(&tp->original_dcid, 20, 0x10);
	set_cid(&tp->initial_scid, 8, 0x40);
	set_cid(&tp->retry_scid, 12, 0x80);
	for (i = 0; i < QUIC_RESET_TOKEN_LEN; i++) {
		tp->stateless_reset_token[i] = 0xa0 + i;
		pa->reset_token[i] = 0xc0 + i;
	}
	pa->ipv4_addr[0] = 192;
	pa->ipv4_addr[3] = 1;
	pa->ipv4_port = 4433;
	pa->ipv6_addr[0] = 0x20;
	pa->ipv6_addr[15] = 1;
	pa->ipv6_port = 443;
	set_cid(&pa->cid, 16, 0x30);
	tp->present |= BIT(QUIC_TPB_ORIGINAL_DCID) | BIT(QUIC_TPB_INITIAL_SCID) |
		       BIT(QUIC_TPB_RETRY_SCID) |
		       BIT(QUIC_TPB_STATELESS_RESET_TOKEN) |
		       BIT(QUIC_TPB_PREFERRED_ADDRESS) |
		       BIT(QUIC_TPB_DISABLE_ACTIVE_MIGRATION) |
		       BIT(QUIC_TPB_GREASE_QUIC_BIT) |
		       BIT(QUIC_TPB_DISABLE_1RTT_ENCRYPTION);
	tp->max_udp_payload_size = 1452;
	tp->ack_delay_exponent = 10;
	tp->max_ack_delay_us = 16383000;
	tp->max_idle_timeout_us = 120000000;
	tp->active_cid_limit = 8;
	tp->max_datagram_frame_size = 65535;
	tp->max_streams_bidi = QUIC_TPARAM_MAX_STREAMS;
	tp->max_streams_uni = 7;
	tp->max_data = QUIC_VARINT_MAX;
	tp->max_stream_data_uni = 1;
	tp->chosen_version = QUIC_VERSION_V2;
}

/* Compare the values of two sets; @server: compare server-only ones too. */
static int compare_sets(struct quic_test *t, const struct quic_tparams *a,
			const struct quic_tparams *b, bool server)
{
	u32 mask = ~0U;

	if (!server)
		mask &= ~QUIC_SERVER_ONLY_BITS;
	/* Numeric parameters are sent only when not at their default. */
#define FLAGS_AND_BYTES (BIT(QUIC_TPB_ORIGINAL_DCID) | BIT(QUIC_TPB_RETRY_SCID) | \
			 BIT(QUIC_TPB_INITIAL_SCID) | BIT(QUIC_TPB_VERSION_INFO) | \
			 BIT(QUIC_TPB_STATELESS_RESET_TOKEN) | \
			 BIT(QUIC_TPB_PREFERRED_ADDRESS) | \
			 BIT(QUIC_TPB_DISABLE_ACTIVE_MIGRATION) | \
			 BIT(QUIC_TPB_GREASE_QUIC_BIT) | \
			 BIT(QUIC_TPB_DISABLE_1RTT_ENCRYPTION) | \
			 BIT(QUIC_TPB_MIN_ACK_DELAY))
	mask &= FLAGS_AND_BYTES;
#undef FLAGS_AND_BYTES
	if ((a->present & mask) != (b->present & mask))
		return quic_test_fail(t, "present %#x, want %#x",
				      b->present & mask, a->present & mask);
	if (a->max_idle_timeout_us != b->max_idle_timeout_us ||
	    a->max_ack_delay_us != b->max_ack_delay_us ||
	    a->max_udp_payload_size != b->max_udp_payload_size ||
	    a->max_data != b->max_data ||
	    a->max_stream_data_bidi_local != b->max_stream_data_bidi_local ||
	    a->max_stream_data_bidi_remote != b->max_stream_data_bidi_remote ||
	    a->max_stream_data_uni != b->max_stream_data_uni ||
	    a->max_streams_bidi != b->max_streams_bidi ||
	    a->max_streams_uni != b->max_streams_uni ||
	    a->active_cid_limit != b->active_cid_limit ||
	    a->max_datagram_frame_size != b->max_datagram_frame_size ||
	    a->ack_delay_exponent != b->ack_delay_exponent)
		return quic_test_fail(t, "numeric value differs");
	if (quic_tparams_has(a, QUIC_TPB_MIN_ACK_DELAY) &&
	    quic_tparams_min_ack_delay(a) != b->min_ack_delay_us)
		return quic_test_fail(t, "min_ack_delay differs");
	if (quic_tparams_has(a, QUIC_TPB_INITIAL_SCID) &&
	    !cid_eq(&a->initial_scid, &b->initial_scid))
		return quic_test_fail(t, "initial_scid differs");
	if (quic_tparams_has(a, QUIC_TPB_VERSION_INFO) &&
	    (a->chosen_version != b->chosen_version ||
	     a->num_versions != b->num_versions ||
	     memcmp(a->available_versions, b->available_versions,
		    a->num_versions * sizeof(u32))))
		return quic_test_fail(t, "version_information differs");
	if (!server)
		return 0;
	if (!cid_eq(&a->original_dcid, &b->original_dcid) ||
	    !cid_eq(&a->retry_scid, &b->retry_scid))
		return quic_test_fail(t, "server connection IDs differ");
	if (memcmp(a->stateless_reset_token, b->stateless_reset_token,
		   QUIC_RESET_TOKEN_LEN))
		return quic_test_fail(t, "stateless_reset_token differs");
	if (memcmp(&a->preferred_address.ipv4_addr,
		   &b->preferred_address.ipv4_addr, 4) ||
	    memcmp(&a->preferred_address.ipv6_addr,
		   &b->preferred_address.ipv6_addr, 16) ||
	    a->preferred_address.ipv4_port != b->preferred_address.ipv4_port ||
	    a->preferred_address.ipv6_port != b->preferred_address.ipv6_port ||
	    !cid_eq(&a->preferred_address.cid, &b->preferred_address.cid) ||
	    memcmp(a->preferred_address.reset_token,
		   b->preferred_address.reset_token, QUIC_RESET_TOKEN_LEN))
		return quic_test_fail(t, "preferred_address differs");
	return 0;
}

static int tparam_roundtrip_client(struct quic_test *t)
{
	struct quic_tparams a, b;
	u8 buf[512];
	int n, err;

	/* The full set, encoded as a client: server-only ones left out. */
	full_server_set(&a);
	a.chosen_version = QUIC_VERSION_V1;
	n = quic_tparams_encode(buf, sizeof(buf), &a, false);
	if (n < 0)
		return quic_test_fail(t, "encode: %d", n);
	err = decode_guarded(buf, n, &b, false);
	if (err)
		return quic_test_fail(t, "decode: %d", err);
	if (b.present & QUIC_SERVER_ONLY_BITS)
		return quic_test_fail(t, "client sent a server-only parameter");
	err = compare_sets(t, &a, &b, false);
	if (err)
		return err;

	/* The fresh-socket defaults. */
	quic_tparams_init_local(&a);
	set_cid(&a.initial_scid, 8, 1);
	quic_tparams_set(&a, QUIC_TPB_INITIAL_SCID);
	n = quic_tparams_encode(buf, sizeof(buf), &a, false);
	if (n < 0)
		return quic_test_fail(t, "encode defaults: %d", n);
	err = decode_guarded(buf, n, &b, false);
	if (err)
		return quic_test_fail(t, "decode defaults: %d", err);
	return compare_sets(t, &a, &b, false);
}

static int tparam_roundtrip_server(struct quic_test *t)
{
	struct quic_tparams a, b;
	u8 buf[512];
	int n, err;

	full_server_set(&a);
	n = quic_tparams_encode(buf, sizeof(buf), &a, true);
	if (n < 0)
		return quic_test_fail(t, "encode: %d", n);
	err = decode_guarded(buf, n, &b, true);
	if (err)
		return quic_test_fail(t, "decode: %d", err);
	err = compare_sets(t, &a, &b, true);
	if (err)
		return err;
	/* The same bytes from a client are refused. */
	if (decode_guarded(buf, n, &b, false) != -EINVAL)
		return quic_test_fail(t, "server set accepted from a client");
	return 0;
}

/* A hand-built server extension and the fields it must decode to. */
static const u8 tparam_vector[] = {
	0x00, 0x03, 0xaa, 0xbb, 0xcc,			/* original DCID */
	0x01, 0x04, 0x80, 0x00, 0x75, 0x30,		/* idle 30000 ms */
	0x02, 0x10, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,	/* reset token */
	0x03, 0x02, 0x45, 0xdc,				/* UDP payload 1500 */
	0x04, 0x04, 0x80, 0x10, 0x00, 0x00,		/* max_data 2^20 */
	0x05, 0x01, 0x3f,				/* bidi local 63 */
	0x06, 0x08, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
							/* bidi remote 256 */
	0x07, 0x02, 0x40, 0x00,				/* uni 0, 2 bytes */
	0x08, 0x01, 0x0a,				/* streams bidi 10 */
	0x09, 0x01, 0x03,				/* streams uni 3 */
	0x0a, 0x01, 0x14,				/* ack exponent 20 */
	0x0b, 0x02, 0x7f, 0xff,				/* ack delay 16383 */
	0x0c, 0x00,					/* no migration */
	0x0d, 0x2a,					/* preferred address */
	192, 0, 2, 1, 0x01, 0xbb,			/* 192.0.2.1:443 */
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
	0x11, 0x51,					/* [2001:db8::1]:4433 */
	0x01, 0x55,					/* CID 55 */
	0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee,
	0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee,	/* its token */
	0x0e, 0x01, 0x04,				/* CID limit 4 */
	0x0f, 0x04, 0xde, 0xad, 0xbe, 0xef,		/* initial SCID */
	0x10, 0x01, 0x77,				/* retry SCID */
	0x1b, 0x03, 0xaa, 0xbb, 0xcc,			/* reserved ID 27 */
	0x11, 0x08, 0x6b, 0x33, 0x43, 0xcf, 0x00, 0x00, 0x00, 0x01,
							/* chosen v2, [v1] */
	0x20, 0x02, 0x44, 0xb0,				/* datagram 1200 */
	0x6a, 0xb2, 0x00,				/* grease_quic_bit */
	0x80, 0x00, 0xba, 0xad, 0x00,			/* disable 1-RTT */
	0xc0, 0x00, 0x00, 0x00, 0xff, 0x04, 0xde, 0x1b,
	0x02, 0x43, 0xe8,				/* min_ack_delay 1 ms */
};

static int tparam_vector_decode(struct quic_test *t)
{
	static const u8 v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x01 };
	const struct quic_preferred_address *pa;
	struct quic_tparams tp;
	int err, i;

	err = decode_guarded(tparam_vector, sizeof(tparam_vector), &tp, true);
	if (err)
		return quic_test_fail(t, "decode: %d", err);
	if (tp.present != (GENMASK(QUIC_TPB_NUM - 1, 0)))
		return quic_test_fail(t, "present %#x", tp.present);
	if (tp.original_dcid.len != 3 || tp.original_dcid.data[2] != 0xcc)
		return quic_test_fail(t, "original_dcid");
	for (i = 0; i < QUIC_RESET_TOKEN_LEN; i++)
		if (tp.stateless_reset_token[i] != i)
			return quic_test_fail(t, "stateless_reset_token");
	if (tp.max_idle_timeout_us != 30000000 ||
	    tp.max_udp_payload_size != 1500 || tp.max_data != 1 << 20 ||
	    tp.max_stream_data_bidi_local != 63 ||
	    tp.max_stream_data_bidi_remote != 256 ||
	    tp.max_stream_data_uni != 0 || tp.max_streams_bidi != 10 ||
	    tp.max_streams_uni != 3 || tp.ack_delay_exponent != 20 ||
	    tp.max_ack_delay_us != 16383000 || tp.active_cid_limit != 4 ||
	    tp.max_datagram_frame_size != 1200)
		return quic_test_fail(t, "numeric value");
	pa = &tp.preferred_address;
	if (pa->ipv4_addr[0] != 192 || pa->ipv4_addr[3] != 1 ||
	    pa->ipv4_port != 443 || memcmp(pa->ipv6_addr, v6, 16) ||
	    pa->ipv6_port != 4433 || pa->cid.len != 1 ||
	    pa->cid.data[0] != 0x55 || pa->reset_token[15] != 0xee)
		return quic_test_fail(t, "preferred_address");
	if (tp.initial_scid.len != 4 || tp.initial_scid.data[0] != 0xde ||
	    tp.retry_scid.len != 1 || tp.retry_scid.data[0] != 0x77)
		return quic_test_fail(t, "initial/retry SCID");
	if (tp.chosen_version != QUIC_VERSION_V2 || tp.num_versions != 1 ||
	    tp.available_versions[0] != QUIC_VERSION_V1)
		return quic_test_fail(t, "version_information");
	return 0;
}

static int tparam_empty_defaults(struct quic_test *t)
{
	struct quic_tparams tp;

	memset(&tp, 0xff, sizeof(tp));
	if (decode_guarded(NULL, 0, &tp, true))
		return quic_test_fail(t, "empty extension refused");
	if (tp.present || tp.max_udp_payload_size != 65527 ||
	    tp.ack_delay_exponent != 3 || tp.max_ack_delay_us != 25000 ||
	    tp.active_cid_limit != 2 || tp.max_idle_timeout_us ||
	    tp.max_data || tp.max_stream_data_bidi_local ||
	    tp.max_stream_data_bidi_remote || tp.max_stream_data_uni ||
	    tp.max_streams_bidi || tp.max_streams_uni ||
	    tp.max_datagram_frame_size)
		return quic_test_fail(t, "wrong RFC 9000 default");
	return 0;
}

/* The default local client set, and a maximal one, fit libquic's buffer. */
static int tparam_local_size(struct quic_test *t)
{
	struct quic_tparams tp;
	u8 buf[512];
	int n;

	quic_tparams_init_local(&tp);
	set_cid(&tp.initial_scid, 8, 0);
	quic_tparams_set(&tp, QUIC_TPB_INITIAL_SCID);
	n = quic_tparams_encode(buf, QUIC_TPARAM_EXT_LOCAL_MAX_LEN, &tp, false);
	if (n < 0 || n > QUIC_TPARAM_EXT_LOCAL_MAX_LEN)
		return quic_test_fail(t, "default client set: %d", n);

	full_server_set(&tp);
	n = quic_tparams_encode(buf, QUIC_TPARAM_EXT_LOCAL_MAX_LEN, &tp, true);
	if (n < 0 || n > QUIC_TPARAM_EXT_LOCAL_MAX_LEN)
		return quic_test_fail(t, "full server set: %d", n);
	return 0;
}

static int tparam_encode_nospace(struct quic_test *t)
{
	struct quic_tparams tp;
	u8 buf[512];
	int n, m;
	u32 room;

	full_server_set(&tp);
	n = quic_tparams_encode(buf, sizeof(buf), &tp, true);
	if (n < 0)
		return quic_test_fail(t, "encode: %d", n);
	for (room = 0; room < n; room++) {
		m = quic_tparams_encode(buf, room, &tp, true);
		if (m != -ENOSPC)
			return quic_test_fail(t, "room %u of %d: got %d", room,
					      n, m);
	}
	if (quic_tparams_encode(buf, n, &tp, true) != n)
		return quic_test_fail(t, "exact room refused");
	return 0;
}

static int tparam_encode_invalid(struct quic_test *t)
{
	struct quic_tparams tp;
	u8 buf[512];

	full_server_set(&tp);
	tp.initial_scid.len = QUIC_CID_MAX_LEN + 1;
	if (quic_tparams_encode(buf, sizeof(buf), &tp, true) != -EINVAL)
		return quic_test_fail(t, "21-byte CID encoded");
	full_server_set(&tp);
	tp.preferred_address.cid.len = 0;
	if (quic_tparams_encode(buf, sizeof(buf), &tp, true) != -EINVAL)
		return quic_test_fail(t, "preferred address without CID");
	/* ...which a client does not send at all. */
	if (quic_tparams_encode(buf, sizeof(buf), &tp, false) < 0)
		return quic_test_fail(t, "client encode failed");
	full_server_set(&tp);
	tp.max_data = QUIC_VARINT_MAX + 1;
	if (quic_tparams_encode(buf, sizeof(buf), &tp, true) != -EINVAL)
		return quic_test_fail(t, "varint over 2^62 - 1 encoded");
	full_server_set(&tp);
	tp.num_versions = QUIC_TPARAM_MAX_VERSIONS + 1;
	if (quic_tparams_encode(buf, sizeof(buf), &tp, true) != -EINVAL)
		return quic_test_fail(t, "too many versions encoded");
	return 0;
}

static int tparam_duplicate(struct quic_test *t)
{
	struct quic_tparams tp;
	u8 buf[64];
	u32 n;

	n = put_int(buf, QUIC_TPARAM_INITIAL_MAX_DATA, 1000);
	n += put_int(buf + n, QUIC_TPARAM_INITIAL_MAX_DATA, 1000);
	if (decode_guarded(buf, n, &tp, true) != -EINVAL)
		return quic_test_fail(t, "duplicate integer accepted");
	n = put_raw(buf, QUIC_TPARAM_GREASE_QUIC_BIT, NULL, 0);
	n += put_int(buf + n, QUIC_TPARAM_MAX_UDP_PAYLOAD_SIZE, 1200);
	n += put_raw(buf + n, QUIC_TPARAM_GREASE_QUIC_BIT, NULL, 0);
	if (decode_guarded(buf, n, &tp, true) != -EINVAL)
		return quic_test_fail(t, "duplicate flag accepted");
	n = put_raw(buf, QUIC_TPARAM_INITIAL_SOURCE_CONNECTION_ID, NULL, 0);
	n += put_raw(buf + n, QUIC_TPARAM_INITIAL_SOURCE_CONNECTION_ID, NULL, 0);
	if (decode_guarded(buf, n, &tp, false) != -EINVAL)
		return quic_test_fail(t, "duplicate CID accepted");
	return 0;
}

static int tparam_client_server_only(struct quic_test *t)
{
	static const u8 pa[41 + 1] = { [24] = 1, [25] = 0x42 };
	static const u8 token[QUIC_RESET_TOKEN_LEN];
	static const u8 cid[8];
	int err;

	err = expect_one(t, QUIC_TPARAM_ORIGINAL_DESTINATION_CONNECTION_ID,
			 cid, sizeof(cid), false, -EINVAL) ?:
	      expect_one(t, QUIC_TPARAM_STATELESS_RESET_TOKEN, token,
			 sizeof(token), false, -EINVAL) ?:
	      expect_one(t, QUIC_TPARAM_RETRY_SOURCE_CONNECTION_ID, cid,
			 sizeof(cid), false, -EINVAL) ?:
	      expect_one(t, QUIC_TPARAM_PREFERRED_ADDRESS, pa, sizeof(pa),
			 false, -EINVAL);
	if (err)
		return err;
	/* The same from a server are fine. */
	return expect_one(t, QUIC_TPARAM_ORIGINAL_DESTINATION_CONNECTION_ID,
			  cid, sizeof(cid), true, 0) ?:
	       expect_one(t, QUIC_TPARAM_STATELESS_RESET_TOKEN, token,
			  sizeof(token), true, 0) ?:
	       expect_one(t, QUIC_TPARAM_RETRY_SOURCE_CONNECTION_ID, cid,
			  sizeof(cid), true, 0) ?:
	       expect_one(t, QUIC_TPARAM_PREFERRED_ADDRESS, pa, sizeof(pa),
			  true, 0);
}

static int tparam_max_udp_payload_size(struct quic_test *t)
{
	struct quic_tparams tp;

	return expect_int(t, QUIC_TPARAM_MAX_UDP_PAYLOAD_SIZE, 1199, -EINVAL, &tp) ?:
	       expect_int(t, QUIC_TPARAM_MAX_UDP_PAYLOAD_SIZE, 0, -EINVAL, &tp) ?:
	       expect_int(t, QUIC_TPARAM_MAX_UDP_PAYLOAD_SIZE, 1200, 0, &tp) ?:
	       expect_int(t, QUIC_TPARAM_MAX_UDP_PAYLOAD_SIZE, QUIC_VARINT_MAX,
			  0, &tp);
}

static int tparam_ack_delay_exponent(struct quic_test *t)
{
	struct quic_tparams tp;
	int err;

	err = expect_int(t, QUIC_TPARAM_ACK_DELAY_EXPONENT, 21, -EINVAL, &tp) ?:
	      expect_int(t, QUIC_TPARAM_ACK_DELAY_EXPONENT, 255, -EINVAL, &tp) ?:
	      expect_int(t, QUIC_TPARAM_ACK_DELAY_EXPONENT, 0, 0, &tp);
	if (err)
		return err;
	if (tp.ack_delay_exponent)
		return quic_test_fail(t, "exponent 0 read as %u",
				      tp.ack_delay_exponent);
	return expect_int(t, QUIC_TPARAM_ACK_DELAY_EXPONENT, 20, 0, &tp);
}

static int tparam_max_ack_delay(struct quic_test *t)
{
	struct quic_tparams tp;
	int err;

	err = expect_int(t, QUIC_TPARAM_MAX_ACK_DELAY, 1 << 14, -EINVAL, &tp) ?:
	      expect_int(t, QUIC_TPARAM_MAX_ACK_DELAY, QUIC_VARINT_MAX,
			 -EINVAL, &tp) ?:
	      expect_int(t, QUIC_TPARAM_MAX_ACK_DELAY, (1 << 14) - 1, 0, &tp);
	if (err)
		return err;
	if (tp.max_ack_delay_us != 16383000)
		return quic_test_fail(t, "16383 ms read as %llu us",
				      tp.max_ack_delay_us);
	return 0;
}

/* min_ack_delay (draft-ietf-quic-ack-frequency 3): microseconds, at most
 * max_ack_delay, else TRANSPORT_PARAMETER_ERROR (-EINVAL); sent by the
 * fresh-socket set, no larger than its max_ack_delay.
 */
static int tparam_min_ack_delay(struct quic_test *t)
{
	static const u8 short_val[] = { 0x40 };
	struct quic_tparams tp;
	u8 buf[256];
	u32 n;
	int err;

	err = expect_int(t, QUIC_TPARAM_MIN_ACK_DELAY, 25000, 0, &tp) ?:
	      expect_int(t, QUIC_TPARAM_MIN_ACK_DELAY, 0, 0, &tp) ?:
	      expect_int(t, QUIC_TPARAM_MIN_ACK_DELAY, 25001, -EINVAL, &tp) ?:
	      expect_int(t, QUIC_TPARAM_MIN_ACK_DELAY, QUIC_VARINT_MAX,
			 -EINVAL, &tp) ?:
	      expect_one(t, QUIC_TPARAM_MIN_ACK_DELAY, short_val,
			 sizeof(short_val), true, -EINVAL) ?:
	      expect_one(t, QUIC_TPARAM_MIN_ACK_DELAY, NULL, 0, false, -EINVAL);
	if (err)
		return err;
	/* Against the max_ack_delay sent with it, in either order. */
	n = put_int(buf, QUIC_TPARAM_MIN_ACK_DELAY, 2000);
	n += put_int(buf + n, QUIC_TPARAM_MAX_ACK_DELAY, 1);
	if (decode_guarded(buf, n, &tp, false) != -EINVAL)
		return quic_test_fail(t, "2000 us over 1 ms taken");
	n = put_int(buf, QUIC_TPARAM_MAX_ACK_DELAY, 2);
	n += put_int(buf + n, QUIC_TPARAM_MIN_ACK_DELAY, 2000);
	if (decode_guarded(buf, n, &tp, false) ||
	    !quic_tparams_has(&tp, QUIC_TPB_MIN_ACK_DELAY) ||
	    tp.min_ack_delay_us != 2000)
		return quic_test_fail(t, "2000 us under 2 ms refused");
	n += put_int(buf + n, QUIC_TPARAM_MIN_ACK_DELAY, 2000);
	if (decode_guarded(buf, n, &tp, false) != -EINVAL)
		return quic_test_fail(t, "sent twice taken");
	/* The local set advertises it, clamped to its max_ack_delay. */
	quic_tparams_init_local(&tp);
	if (!quic_tparams_has(&tp, QUIC_TPB_MIN_ACK_DELAY) ||
	    !tp.min_ack_delay_us || tp.min_ack_delay_us > tp.max_ack_delay_us)
		return quic_test_fail(t, "local min_ack_delay %llu",
				      tp.min_ack_delay_us);
	tp.max_ack_delay_us = 1000;
	tp.min_ack_delay_us = 8000;
	err = quic_tparams_encode(buf, sizeof(buf), &tp, false);
	if (err < 0)
		return quic_test_fail(t, "encode: %d", err);
	if (decode_guarded(buf, err, &tp, true) || tp.min_ack_delay_us != 1000)
		return quic_test_fail(t, "clamped to %llu", tp.min_ack_delay_us);
	return 0;
}

static int tparam_active_cid_limit(struct quic_test *t)
{
	struct quic_tparams tp;

	return expect_int(t, QUIC_TPARAM_ACTIVE_CONNECTION_ID_LIMIT, 0,
			  -EINVAL, &tp) ?:
	       expect_int(t, QUIC_TPARAM_ACTIVE_CONNECTION_ID_LIMIT, 1,
			  -EINVAL, &tp) ?:
	       expect_int(t, QUIC_TPARAM_ACTIVE_CONNECTION_ID_LIMIT, 2, 0, &tp);
}

static int tparam_max_streams(struct quic_test *t)
{
	struct quic_tparams tp;

	return expect_int(t, QUIC_TPARAM_INITIAL_MAX_STREAMS_BIDI,
			  QUIC_TPARAM_MAX_STREAMS + 1, -EINVAL, &tp) ?:
	       expect_int(t, QUIC_TPARAM_INITIAL_MAX_STREAMS_UNI,
			  QUIC_TPARAM_MAX_STREAMS + 1, -EINVAL, &tp) ?:
	       expect_int(t, QUIC_TPARAM_INITIAL_MAX_STREAMS_BIDI,
			  QUIC_TPARAM_MAX_STREAMS, 0, &tp) ?:
	       expect_int(t, QUIC_TPARAM_INITIAL_MAX_STREAMS_UNI,
			  QUIC_TPARAM_MAX_STREAMS, 0, &tp);
}

/* Integer parameters whose varint does not fill their length exactly: a
 * byte too many, a varint cut short, an empty value. A valid value in a
 * longer encoding than needed is fine.
 */
static int tparam_varint_length(struct quic_test *t)
{
	static const u64 ids[] = {
		QUIC_TPARAM_MAX_IDLE_TIMEOUT,
		QUIC_TPARAM_MAX_UDP_PAYLOAD_SIZE,
		QUIC_TPARAM_INITIAL_MAX_DATA,
		QUIC_TPARAM_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL,
		QUIC_TPARAM_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE,
		QUIC_TPARAM_INITIAL_MAX_STREAM_DATA_UNI,
		QUIC_TPARAM_INITIAL_MAX_STREAMS_BIDI,
		QUIC_TPARAM_INITIAL_MAX_STREAMS_UNI,
		QUIC_TPARAM_ACK_DELAY_EXPONENT,
		QUIC_TPARAM_MAX_ACK_DELAY,
		QUIC_TPARAM_ACTIVE_CONNECTION_ID_LIMIT,
		QUIC_TPARAM_MAX_DATAGRAM_FRAME_SIZE,
	};
	u8 v2[3], v8[9];
	int i, err;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		u64 v = ids[i] == QUIC_TPARAM_MAX_UDP_PAYLOAD_SIZE ? 1200 : 5;

		quic_varint_put_len(v2, v, 2);
		v2[2] = 0;
		quic_varint_put_len(v8, v, 8);
		v8[8] = 0;
		err = expect_one(t, ids[i], v2, 3, true, -EINVAL) ?:
		      expect_one(t, ids[i], v8, 9, true, -EINVAL) ?:
		      expect_one(t, ids[i], v2, 1, true, -EINVAL) ?:
		      expect_one(t, ids[i], v8, 7, true, -EINVAL) ?:
		      expect_one(t, ids[i], v8, 0, true, -EINVAL) ?:
		      expect_one(t, ids[i], v2, 2, true, 0) ?:
		      expect_one(t, ids[i], v8, 8, true, 0);
		if (err)
			return err;
	}
	return 0;
}

static int tparam_reset_token_length(struct quic_test *t)
{
	static const u8 token[QUIC_RESET_TOKEN_LEN + 1];

	return expect_one(t, QUIC_TPARAM_STATELESS_RESET_TOKEN, token, 15,
			  true, -EINVAL) ?:
	       expect_one(t, QUIC_TPARAM_STATELESS_RESET_TOKEN, token, 17,
			  true, -EINVAL) ?:
	       expect_one(t, QUIC_TPARAM_STATELESS_RESET_TOKEN, token, 0,
			  true, -EINVAL) ?:
	       expect_one(t, QUIC_TPARAM_STATELESS_RESET_TOKEN, token, 16,
			  true, 0);
}

static int tparam_cid_length(struct quic_test *t)
{
	static const u64 ids[] = {
		QUIC_TPARAM_ORIGINAL_DESTINATION_CONNECTION_ID,
		QUIC_TPARAM_INITIAL_SOURCE_CONNECTION_ID,
		QUIC_TPARAM_RETRY_SOURCE_CONNECTION_ID,
	};
	static const u8 cid[QUIC_CID_MAX_LEN + 1];
	int i, err;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		err = expect_one(t, ids[i], cid, 21, true, -EINVAL) ?:
		      expect_one(t, ids[i], cid, 20, true, 0) ?:
		      expect_one(t, ids[i], cid, 0, true, 0);
		if (err)
			return err;
	}
	return 0;
}

static int tparam_preferred_address(struct quic_test *t)
{
	u8 pa[41 + QUIC_CID_MAX_LEN + 2] = {};
	int err;

	/* Zero-length CID. */
	err = expect_one(t, QUIC_TPARAM_PREFERRED_ADDRESS, pa, 41, true,
			 -EINVAL);
	if (err)
		return err;
	pa[24] = 4;
	err = expect_one(t, QUIC_TPARAM_PREFERRED_ADDRESS, pa, 45, true, 0) ?:
	      expect_one(t, QUIC_TPARAM_PREFERRED_ADDRESS, pa, 44, true,
			 -EINVAL) ?:
	      expect_one(t, QUIC_TPARAM_PREFERRED_ADDRESS, pa, 46, true,
			 -EINVAL) ?:
	      expect_one(t, QUIC_TPARAM_PREFERRED_ADDRESS, pa, 24, true,
			 -EINVAL) ?:
	      expect_one(t, QUIC_TPARAM_PREFERRED_ADDRESS, pa, 0, true,
			 -EINVAL);
	if (err)
		return err;
	pa[24] = QUIC_CID_MAX_LEN + 1;
	return expect_one(t, QUIC_TPARAM_PREFERRED_ADDRESS, pa, 41 + 21, true,
			  -EINVAL);
}

static int tparam_flag_with_value(struct quic_test *t)
{
	static const u64 ids[] = {
		QUIC_TPARAM_DISABLE_ACTIVE_MIGRATION,
		QUIC_TPARAM_GREASE_QUIC_BIT,
		QUIC_TPARAM_DISABLE_1RTT_ENCRYPTION,
	};
	static const u8 one[1];
	int i, err;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		err = expect_one(t, ids[i], one, 1, true, -EINVAL) ?:
		      expect_one(t, ids[i], one, 0, false, 0);
		if (err)
			return err;
	}
	return 0;
}

static int tparam_version_information(struct quic_test *t)
{
	static const u8 v2_v1[] = { 0x6b, 0x33, 0x43, 0xcf, 0, 0, 0, 1 };
	static const u8 v1_v1[] = { 0, 0, 0, 1, 0, 0, 0, 1 };
	static const u8 zero_chosen[] = { 0, 0, 0, 0, 0, 0, 0, 1 };
	static const u8 zero_avail[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0 };
	u8 many[4 * 40], buf[4 * 40 + 4];
	struct quic_tparams tp;
	u32 i, n;
	int err;

	err = expect_one(t, QUIC_TPARAM_VERSION_INFORMATION, v1_v1, 0, true,
			 -EINVAL) ?:
	      expect_one(t, QUIC_TPARAM_VERSION_INFORMATION, v1_v1, 3, true,
			 -EINVAL) ?:
	      expect_one(t, QUIC_TPARAM_VERSION_INFORMATION, v1_v1, 6, true,
			 -EINVAL) ?:
	      expect_one(t, QUIC_TPARAM_VERSION_INFORMATION, zero_chosen,
			 sizeof(zero_chosen), true, -EINVAL) ?:
	      expect_one(t, QUIC_TPARAM_VERSION_INFORMATION, zero_avail,
			 sizeof(zero_avail), true, -EINVAL) ?:
	      /* Chosen not among Available: only a server may say that. */
	      expect_one(t, QUIC_TPARAM_VERSION_INFORMATION, v2_v1,
			 sizeof(v2_v1), false, -EINVAL) ?:
	      expect_one(t, QUIC_TPARAM_VERSION_INFORMATION, v2_v1,
			 sizeof(v2_v1), true, 0) ?:
	      expect_one(t, QUIC_TPARAM_VERSION_INFORMATION, v1_v1, 4, true,
			 0) ?:
	      expect_one(t, QUIC_TPARAM_VERSION_INFORMATION, v1_v1,
			 sizeof(v1_v1), false, 0);
	if (err)
		return err;

	/* Forty versions: all checked, the first sixteen kept. */
	for (i = 0; i < ARRAY_SIZE(many) / 4; i++)
		quic_uint_put(many + 4 * i, 0x0a0a0a0a + i, 4);
	quic_uint_put(many + 4 * 39, 0x0a0a0a0a, 4);
	n = put_raw(buf, QUIC_TPARAM_VERSION_INFORMATION, many, sizeof(many));
	err = decode_guarded(buf, n, &tp, false);
	if (err)
		return quic_test_fail(t, "40 versions: %d", err);
	if (tp.num_versions != QUIC_TPARAM_MAX_VERSIONS ||
	    tp.chosen_version != 0x0a0a0a0a ||
	    tp.available_versions[15] != 0x0a0a0a0a + 16)
		return quic_test_fail(t, "40 versions kept wrong");
	quic_uint_put(many + 4 * 39, 0, 4);
	n = put_raw(buf, QUIC_TPARAM_VERSION_INFORMATION, many, sizeof(many));
	if (decode_guarded(buf, n, &tp, true) != -EINVAL)
		return quic_test_fail(t, "zero past the kept ones accepted");

	/* The Chosen Version check of RFC 9368, section 4. */
	if (decode_guarded(NULL, 0, &tp, true) ||
	    quic_tparams_check_version(&tp, QUIC_VERSION_V2))
		return quic_test_fail(t, "absent version_information refused");
	n = put_raw(buf, QUIC_TPARAM_VERSION_INFORMATION, v2_v1, sizeof(v2_v1));
	if (decode_guarded(buf, n, &tp, true))
		return quic_test_fail(t, "v2 [v1] refused");
	if (quic_tparams_check_version(&tp, QUIC_VERSION_V2))
		return quic_test_fail(t, "matching Chosen Version refused");
	if (quic_tparams_check_version(&tp, QUIC_VERSION_V1) != -EPROTONOSUPPORT)
		return quic_test_fail(t, "Chosen Version mismatch accepted");
	return 0;
}

/* The server's version_information as a client checks it: @vi (NULL for
 * none) decoded from the wire, then checked against @ours with the
 * client's preference V1, V2.
 */
static int server_versions(const u8 *vi, u32 len,
			   const struct quic_tparams *ours, u32 version,
			   u32 first, bool after_vn)
{
	static const u32 pref[] = { QUIC_VERSION_V1, QUIC_VERSION_V2 };
	struct quic_tparams tp;
	u8 buf[64];
	int err;

	err = decode_guarded(buf, vi ? put_raw(buf,
					       QUIC_TPARAM_VERSION_INFORMATION,
					       vi, len) : 0, &tp, true);
	if (err)
		return err;
	return quic_tparams_check_server_versions(&tp, ours, version, first,
						  pref, ARRAY_SIZE(pref),
						  after_vn);
}

#define GREASE	0x1a2a3a4aU

static int tparam_server_versions(struct quic_test *t)
{
	static const u8 v1_v2v1[] = { 0, 0, 0, 1, 0x6b, 0x33, 0x43, 0xcf,
				       0, 0, 0, 1 };
	static const u8 v2_v2v1[] = { 0x6b, 0x33, 0x43, 0xcf, 0x6b, 0x33, 0x43,
				       0xcf, 0, 0, 0, 1 };
	static const u8 v2_v2[] = { 0x6b, 0x33, 0x43, 0xcf, 0x6b, 0x33, 0x43,
				     0xcf };
	static const u8 v2_gv2[] = { 0x6b, 0x33, 0x43, 0xcf, 0x1a, 0x2a, 0x3a,
				      0x4a, 0x6b, 0x33, 0x43, 0xcf };
	static const u8 v1_none[] = { 0, 0, 0, 1 };
	static const u8 v2_v1[] = { 0x6b, 0x33, 0x43, 0xcf, 0, 0, 0, 1 };
	static const struct {
		const u8 *vi;
		u32 len;
		u32 version, first;
		bool after_vn;
		int want;
	} c[] = {
		/* Plain: the Chosen Version must be the version in use. */
		{ v1_v2v1, sizeof(v1_v2v1), QUIC_VERSION_V1, QUIC_VERSION_V1,
		  false, 0 },
		{ v2_v2v1, sizeof(v2_v2v1), QUIC_VERSION_V1, QUIC_VERSION_V1,
		  false, -EPROTONOSUPPORT },
		{ NULL, 0, QUIC_VERSION_V1, QUIC_VERSION_V1, false, 0 },
		/* Empty Available Versions: a server may send that. */
		{ v1_none, sizeof(v1_none), QUIC_VERSION_V1, QUIC_VERSION_V1,
		  false, 0 },
		/* Compatible negotiation, V1 to V2: confirmed, or not. */
		{ v2_v2v1, sizeof(v2_v2v1), QUIC_VERSION_V2, QUIC_VERSION_V1,
		  false, 0 },
		{ NULL, 0, QUIC_VERSION_V2, QUIC_VERSION_V1, false,
		  -EPROTONOSUPPORT },
		{ v1_v2v1, sizeof(v1_v2v1), QUIC_VERSION_V2, QUIC_VERSION_V1,
		  false, -EPROTONOSUPPORT },
		/* After Version Negotiation to V1: a V1-only server may
		 * send nothing (RFC 9368 8), but not an empty list.
		 */
		{ NULL, 0, QUIC_VERSION_V1, GREASE, true, 0 },
		{ v1_none, sizeof(v1_none), QUIC_VERSION_V1, GREASE,
		  true, -EPROTONOSUPPORT },
		{ v1_v2v1, sizeof(v1_v2v1), QUIC_VERSION_V1, GREASE,
		  true, 0 },
		/* To V2: only if the server does not list V1, which we
		 * prefer; a missing version_information does not do.
		 */
		{ NULL, 0, QUIC_VERSION_V2, GREASE, true,
		  -EPROTONOSUPPORT },
		{ v2_v2v1, sizeof(v2_v2v1), QUIC_VERSION_V2, GREASE,
		  true, -EPROTONOSUPPORT },
		{ v2_v2, sizeof(v2_v2), QUIC_VERSION_V2, GREASE, true,
		  0 },
		{ v2_gv2, sizeof(v2_gv2), QUIC_VERSION_V2, GREASE,
		  true, 0 },
		/* V1 listed, though the Chosen Version is V2: a forged
		 * Version Negotiation; and a Chosen Version not in use.
		 */
		{ v2_v1, sizeof(v2_v1), QUIC_VERSION_V2, GREASE, true,
		  -EPROTONOSUPPORT },
		{ v2_v2, sizeof(v2_v2), QUIC_VERSION_V1, GREASE, true,
		  -EPROTONOSUPPORT },
		/* Malformed ones never get to the check. */
		{ v2_v2v1, 3, QUIC_VERSION_V2, QUIC_VERSION_V1, false,
		  -EINVAL },
		{ v2_v2v1, 10, QUIC_VERSION_V2, QUIC_VERSION_V1, false,
		  -EINVAL },
		{ v2_v2v1, 0, QUIC_VERSION_V2, QUIC_VERSION_V1, false,
		  -EINVAL },
	};
	static const u8 zero_chosen[] = { 0, 0, 0, 0, 0, 0, 0, 1 };
	static const u8 zero_avail[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0 };
	struct quic_tparams ours;
	u32 i;
	int err;

	quic_tparams_init_local(&ours);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		err = server_versions(c[i].vi, c[i].len, &ours, c[i].version,
				      c[i].first, c[i].after_vn);
		if (err != c[i].want)
			return quic_test_fail(t, "case %u: got %d, want %d", i,
					      err, c[i].want);
	}
	if (server_versions(zero_chosen, sizeof(zero_chosen), &ours,
			    QUIC_VERSION_V1, QUIC_VERSION_V1, false) != -EINVAL ||
	    server_versions(zero_avail, sizeof(zero_avail), &ours,
			    QUIC_VERSION_V1, QUIC_VERSION_V1, false) != -EINVAL)
		return quic_test_fail(t, "a zero version accepted");

	/* A Chosen Version the client did not offer. */
	ours.num_versions = 1;
	ours.available_versions[0] = QUIC_VERSION_V1;
	if (server_versions(v2_v2v1, sizeof(v2_v2v1), &ours, QUIC_VERSION_V2,
			    QUIC_VERSION_V1, false) != -EPROTONOSUPPORT)
		return quic_test_fail(t, "Chosen Version not offered accepted");
	/* A client that sent none offered nothing to check against. */
	quic_tparams_clear(&ours, QUIC_TPB_VERSION_INFO);
	if (server_versions(v2_v2v1, sizeof(v2_v2v1), &ours, QUIC_VERSION_V2,
			    QUIC_VERSION_V1, false))
		return quic_test_fail(t, "client without version_information");
	return 0;
}

#undef GREASE

static int tparam_bad_framing(struct quic_test *t)
{
	static const struct {
		u8 len;
		u8 bytes[8];
	} bad[] = {
		{ 1, { 0x40 } },			/* ID cut */
		{ 1, { 0x04 } },			/* no length */
		{ 2, { 0x04, 0x41 } },			/* length cut */
		{ 3, { 0x04, 0x02, 0x01 } },		/* value cut */
		{ 2, { 0x1b, 0x01 } },			/* unknown, value cut */
		{ 7, { 0x1b, 0xc0, 0, 0, 0, 0, 0 } },	/* 8-byte length cut */
	};
	struct quic_tparams tp;
	int i, err;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err = decode_guarded(bad[i].bytes, bad[i].len, &tp, true);
		if (err != -EINVAL)
			return quic_test_fail(t, "input %d: got %d", i, err);
	}
	return 0;
}

/* Every prefix of a valid encoding: valid at parameter boundaries only. */
static int tparam_truncation(struct quic_test *t)
{
	bool boundary[512 + 1] = {};
	struct quic_tparams tp;
	u8 buf[512];
	const u8 *p;
	u32 left, len;
	int n, err;
	u64 v;

	full_server_set(&tp);
	n = quic_tparams_encode(buf, sizeof(buf), &tp, true);
	if (n < 0)
		return quic_test_fail(t, "encode: %d", n);
	p = buf;
	left = n;
	boundary[0] = true;
	while (left) {
		if (!quic_varint_get(&p, &left, &v) ||
		    !quic_varint_get(&p, &left, &v) || v > left)
			return quic_test_fail(t, "own encoding malformed");
		p += v;
		left -= v;
		boundary[p - buf] = true;
	}
	for (len = 0; len <= n; len++) {
		err = decode_guarded(buf, len, &tp, true);
		if (err != (boundary[len] ? 0 : -EINVAL))
			return quic_test_fail(t, "prefix %u of %d: got %d", len,
					      n, err);
	}
	return 0;
}

static int tparam_grease_skipped(struct quic_test *t)
{
	static const u8 junk[40] = { 0xff, 0xfe };
	struct quic_tparams tp;
	u8 buf[256];
	u32 n = 0;
	int err;

	n += put_raw(buf + n, 27, junk, 3);
	n += put_int(buf + n, QUIC_TPARAM_INITIAL_MAX_DATA, 4242);
	n += put_raw(buf + n, 31 * 1000 + 27, junk, sizeof(junk));
	n += put_raw(buf + n, 27, NULL, 0);		/* twice is fine */
	n += put_raw(buf + n, 31ULL * 148764065110560899ULL + 27, junk, 1);
	n += put_raw(buf + n, QUIC_VARINT_MAX, junk, 2); /* unknown, not grease */
	n += put_raw(buf + n, 0x12, junk, 5);
	n += put_int(buf + n, QUIC_TPARAM_ACTIVE_CONNECTION_ID_LIMIT, 5);
	err = decode_guarded(buf, n, &tp, false);
	if (err)
		return quic_test_fail(t, "decode: %d", err);
	if (tp.present != (BIT(QUIC_TPB_MAX_DATA) | BIT(QUIC_TPB_ACTIVE_CID_LIMIT)) ||
	    tp.max_data != 4242 || tp.active_cid_limit != 5)
		return quic_test_fail(t, "known parameters lost");
	return 0;
}

static int tparam_units(struct quic_test *t)
{
	struct quic_tparams tp, back;
	u8 buf[64];
	int n, err;

	/* Microseconds are rounded up to milliseconds on the wire. */
	quic_tparams_init_peer(&tp);
	tp.max_idle_timeout_us = 1000001;
	tp.max_ack_delay_us = 16383999;
	n = quic_tparams_encode(buf, sizeof(buf), &tp, false);
	err = n < 0 ? n : decode_guarded(buf, n, &back, false);
	if (err)
		return quic_test_fail(t, "round trip: %d", err);
	if (back.max_idle_timeout_us != 1001000 ||
	    back.max_ack_delay_us != 16383000)
		return quic_test_fail(t, "got %llu/%llu us",
				      back.max_idle_timeout_us,
				      back.max_ack_delay_us);

	/* Huge idle timeouts saturate. */
	err = expect_int(t, QUIC_TPARAM_MAX_IDLE_TIMEOUT, QUIC_VARINT_MAX, 0,
			 &tp);
	if (err)
		return err;
	if (tp.max_idle_timeout_us != U64_MAX)
		return quic_test_fail(t, "idle timeout did not saturate");
	n = quic_tparams_encode(buf, sizeof(buf), &tp, false);
	if (n < 0)
		return quic_test_fail(t, "saturated encode: %d", n);
	return 0;
}

static int tparam_user_conversion(struct quic_test *t)
{
	struct quic_transport_param p = {}, q = {};
	struct quic_tparams tp, saved;

	/* A fresh socket reads back quic-api.rst's defaults. */
	quic_tparams_init_local(&tp);
	quic_tparams_to_user(&tp, &p);
	if (p.active_connection_id_limit != 7 || p.ack_delay_exponent != 3 ||
	    p.max_datagram_frame_size || p.max_udp_payload_size != 65527 ||
	    p.max_idle_timeout != 30000000 || p.max_ack_delay != 25000 ||
	    p.max_streams_bidi != 100 || p.max_streams_uni != 100 ||
	    p.max_data != 2097120 || p.max_stream_data_bidi_local != 1048560 ||
	    p.max_stream_data_bidi_remote != 1048560 ||
	    p.max_stream_data_uni != 1048560 || p.disable_active_migration ||
	    p.grease_quic_bit || p.stateless_reset ||
	    p.disable_1rtt_encryption || p.disable_compatible_version)
		return quic_test_fail(t, "fresh-socket defaults");

	/* A zero structure changes nothing. */
	memset(&p, 0, sizeof(p));
	saved = tp;
	if (quic_tparams_from_user(&tp, &p) || memcmp(&tp, &saved, sizeof(tp)))
		return quic_test_fail(t, "zero set changed something");

	/* Values and flags are applied and read back. */
	p.max_idle_timeout = 5000000;
	p.max_ack_delay = 10000;
	p.max_udp_payload_size = 1400;
	p.max_streams_bidi = 4096;
	p.max_data = 536870911;
	p.max_datagram_frame_size = 1200;
	p.grease_quic_bit = 1;
	p.disable_compatible_version = 1;
	p.stateless_reset = 1;
	if (quic_tparams_from_user(&tp, &p))
		return quic_test_fail(t, "valid set refused");
	quic_tparams_to_user(&tp, &q);
	if (q.max_idle_timeout != 5000000 || q.max_ack_delay != 10000 ||
	    q.max_udp_payload_size != 1400 || q.max_streams_bidi != 4096 ||
	    q.max_data != 536870911 || q.max_datagram_frame_size != 1200 ||
	    !q.grease_quic_bit || !q.disable_compatible_version ||
	    !q.stateless_reset || q.max_streams_uni != 100)
		return quic_test_fail(t, "set not read back");

	/* One bad field rejects the whole call. */
	saved = tp;
	memset(&p, 0, sizeof(p));
	p.max_data = 10000;
	p.max_ack_delay = 16384000;
	if (quic_tparams_from_user(&tp, &p) != -EINVAL ||
	    memcmp(&tp, &saved, sizeof(tp)))
		return quic_test_fail(t, "bad max_ack_delay applied");
	p.max_ack_delay = 0;
	p.max_streams_uni = 4097;
	if (quic_tparams_from_user(&tp, &p) != -EINVAL)
		return quic_test_fail(t, "4097 local streams accepted");
	p.remote = 1;
	if (quic_tparams_from_user(&tp, &p) || tp.max_streams_uni != 4096)
		return quic_test_fail(t, "remote streams not clamped");
	memset(&p, 0, sizeof(p));
	p.max_data = 536870912;
	if (quic_tparams_from_user(&tp, &p) != -EINVAL)
		return quic_test_fail(t, "local max_data over limit");
	p.remote = 1;
	if (quic_tparams_from_user(&tp, &p))
		return quic_test_fail(t, "remote max_data refused");
	memset(&p, 0, sizeof(p));
	p.active_connection_id_limit = 1;
	if (quic_tparams_from_user(&tp, &p) != -EINVAL)
		return quic_test_fail(t, "CID limit 1 accepted");
	p.active_connection_id_limit = 9;
	if (quic_tparams_from_user(&tp, &p) != -EINVAL)
		return quic_test_fail(t, "CID limit 9 accepted");
	memset(&p, 0, sizeof(p));
	p.max_udp_payload_size = 1199;
	if (quic_tparams_from_user(&tp, &p) != -EINVAL)
		return quic_test_fail(t, "UDP payload 1199 accepted");
	memset(&p, 0, sizeof(p));
	p.ack_delay_exponent = 21;
	if (quic_tparams_from_user(&tp, &p) != -EINVAL)
		return quic_test_fail(t, "exponent 21 accepted");
	memset(&p, 0, sizeof(p));
	p.max_idle_timeout = 999999;
	if (quic_tparams_from_user(&tp, &p) != -EINVAL)
		return quic_test_fail(t, "idle timeout under 1 s accepted");
	memset(&p, 0, sizeof(p));
	p.max_datagram_frame_size = 1199;
	if (quic_tparams_from_user(&tp, &p) != -EINVAL)
		return quic_test_fail(t, "datagram size 1199 accepted");
	memset(&p, 0, sizeof(p));
	p.max_stream_data_uni = 268435456;
	if (quic_tparams_from_user(&tp, &p) != -EINVAL)
		return quic_test_fail(t, "local stream data over limit");

	/* The peer's values, clamped to the structure's fields. */
	quic_tparams_init_peer(&tp);
	tp.max_udp_payload_size = 100000;
	tp.max_streams_bidi = QUIC_TPARAM_MAX_STREAMS;
	tp.active_cid_limit = 1000;
	tp.max_idle_timeout_us = U64_MAX;
	quic_tparams_to_user(&tp, &q);
	if (q.max_udp_payload_size != 65527 || q.max_streams_bidi != 65535 ||
	    q.active_connection_id_limit != 255 ||
	    q.max_idle_timeout != U32_MAX || !q.disable_compatible_version)
		return quic_test_fail(t, "peer values not clamped");
	return 0;
}

static u64 xorshift64(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Random inputs, and mutations of a valid encoding: the decoder must never
 * fault, and whatever it accepts must hold only valid values and encode
 * again.
 */
static int tparam_fuzz(struct quic_test *t)
{
	u64 seed = get_random_u64() | 1, s = seed;
	struct {
		struct quic_tparams tp, valid;
		u8 venc[512], out[1024];
	} *w;
	u32 i, j, len;
	int err = 0, vlen;
	u8 *page, *in;

	page = vmalloc(PAGE_SIZE);
	w = kmalloc(sizeof(*w), GFP_KERNEL);
	if (!page || !w) {
		vfree(page);
		kfree(w);
		return -ENOMEM;
	}
	full_server_set(&w->valid);
	vlen = quic_tparams_encode(w->venc, sizeof(w->venc), &w->valid, true);
	if (vlen < 0)
		err = quic_test_fail(t, "encode: %d", vlen);

	for (i = 0; i < 40000 && !err; i++) {
		struct quic_tparams *tp = &w->tp;
		bool from_server = i & 1;

		if (i & 2) {
			len = xorshift64(&s) % (QUIC_TPARAM_EXT_MAX_LEN + 1);
			in = page + PAGE_SIZE - len;
			for (j = 0; j < len; j++)
				in[j] = xorshift64(&s);
		} else {
			len = xorshift64(&s) % (vlen + 1);
			in = page + PAGE_SIZE - len;
			memcpy(in, w->venc, len);
			for (j = xorshift64(&s) % 4; j && len; j--)
				in[xorshift64(&s) % len] = xorshift64(&s);
		}
		if (quic_tparams_decode(in, len, tp, from_server))
			continue;
		if (tp->original_dcid.len > QUIC_CID_MAX_LEN ||
		    tp->initial_scid.len > QUIC_CID_MAX_LEN ||
		    tp->retry_scid.len > QUIC_CID_MAX_LEN ||
		    tp->preferred_address.cid.len > QUIC_CID_MAX_LEN ||
		    tp->num_versions > QUIC_TPARAM_MAX_VERSIONS ||
		    tp->ack_delay_exponent > QUIC_TPARAM_MAX_ACK_DELAY_EXPONENT ||
		    tp->max_ack_delay_us > 16383000 ||
		    tp->active_cid_limit < 2 || tp->max_udp_payload_size < 1200 ||
		    tp->max_streams_bidi > QUIC_TPARAM_MAX_STREAMS ||
		    tp->max_streams_uni > QUIC_TPARAM_MAX_STREAMS ||
		    (!from_server && (tp->present & QUIC_SERVER_ONLY_BITS)))
			err = quic_test_fail(t, "seed %llx: invalid value accepted",
					     seed);
		else if (quic_tparams_encode(w->out, sizeof(w->out), tp,
					     from_server) < 0)
			err = quic_test_fail(t, "seed %llx: re-encode failed",
					     seed);
		if (!(i % 1024))
			cond_resched();
	}
	kfree(w);
	vfree(page);
	return err;
}

static const struct quic_test_case quic_tparam_cases[] = {
	QUIC_TEST_CASE(tparam_roundtrip_client),
	QUIC_TEST_CASE(tparam_roundtrip_server),
	QUIC_TEST_CASE(tparam_vector_decode),
	QUIC_TEST_CASE(tparam_empty_defaults),
	QUIC_TEST_CASE(tparam_local_size),
	QUIC_TEST_CASE(tparam_encode_nospace),
	QUIC_TEST_CASE(tparam_encode_invalid),
	QUIC_TEST_CASE(tparam_duplicate),
	QUIC_TEST_CASE(tparam_client_server_only),
	QUIC_TEST_CASE(tparam_max_udp_payload_size),
	QUIC_TEST_CASE(tparam_ack_delay_exponent),
	QUIC_TEST_CASE(tparam_max_ack_delay),
	QUIC_TEST_CASE(tparam_min_ack_delay),
	QUIC_TEST_CASE(tparam_active_cid_limit),
	QUIC_TEST_CASE(tparam_max_streams),
	QUIC_TEST_CASE(tparam_varint_length),
	QUIC_TEST_CASE(tparam_reset_token_length),
	QUIC_TEST_CASE(tparam_cid_length),
	QUIC_TEST_CASE(tparam_preferred_address),
	QUIC_TEST_CASE(tparam_flag_with_value),
	QUIC_TEST_CASE(tparam_version_information),
	QUIC_TEST_CASE(tparam_server_versions),
	QUIC_TEST_CASE(tparam_bad_framing),
	QUIC_TEST_CASE(tparam_truncation),
	QUIC_TEST_CASE(tparam_grease_skipped),
	QUIC_TEST_CASE(tparam_units),
	QUIC_TEST_CASE(tparam_user_conversion),
	QUIC_TEST_CASE(tparam_fuzz),
};

const struct quic_test_suite quic_tparam_suite = {
	.name		= "quic_tparam",
	.cases		= quic_tparam_cases,
	.num_cases	= ARRAY_SIZE(quic_tparam_cases),
};
