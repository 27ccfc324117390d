// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC transport parameters: the body of the TLS quic_transport_parameters
 * extension, a sequence of (varint ID, varint length, value) (RFC 9000,
 * section 18).
 *
 * Error mapping of the decoder: every malformed or forbidden parameter,
 * including a version_information that fails to parse (RFC 9368, section
 * 4: too short, length not a multiple of 4, a zero version, or a client's
 * Chosen Version missing from its Available Versions), is -EINVAL, which
 * the caller turns into TRANSPORT_PARAMETER_ERROR. -EPROTONOSUPPORT
 * (VERSION_NEGOTIATION_ERROR) comes only from quic_tparams_check_version(),
 * once the caller knows which version the Chosen Version must match.
 */

#include <linux/errno.h>
#include <linux/export.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/quic.h>
#include <linux/string.h>
#include "export.h"
#include "tparam.h"
#include "varint.h"

/* Parameters only a server may send (RFC 9000, section 18.2). */
#define QUIC_TPARAM_SERVER_ONLY	(BIT(QUIC_TPB_ORIGINAL_DCID) |		\
				 BIT(QUIC_TPB_STATELESS_RESET_TOKEN) |	\
				 BIT(QUIC_TPB_PREFERRED_ADDRESS) |	\
				 BIT(QUIC_TPB_RETRY_SCID))

/* Fixed part of preferred_address: addresses, ports, CID length, token. */
#define QUIC_PREFERRED_ADDRESS_FIXED_LEN	(4 + 2 + 16 + 2 + 1 + \
						 QUIC_RESET_TOKEN_LEN)

/* Socket defaults of the local parameters (quic-api.rst, section 2.7). */
#define QUIC_LOCAL_ACTIVE_CID_LIMIT	7
#define QUIC_LOCAL_MAX_IDLE_TIMEOUT_US	30000000
#define QUIC_LOCAL_MAX_STREAMS		100
#define QUIC_LOCAL_MAX_DATA		(65535 * 32)
#define QUIC_LOCAL_MAX_STREAM_DATA	(65535 * 16)
/* Our min_ack_delay: the ACK timer (output.c) fires at half the delay,
 * in whole jiffies, so two jiffies are the shortest delay it keeps.
 */
#define QUIC_LOCAL_MIN_ACK_DELAY_US	(2 * DIV_ROUND_UP(USEC_PER_SEC, HZ))

/* Limits of QUIC_SOCKOPT_TRANSPORT_PARAM (quic-api.rst, section 6). */
#define QUIC_USER_MAX_ACTIVE_CID_LIMIT	8
#define QUIC_USER_MIN_IDLE_TIMEOUT_US	1000000
#define QUIC_USER_MIN_DATAGRAM		1200
#define QUIC_USER_MIN_MAX_DATA		1200
#define QUIC_USER_LOCAL_MAX_DATA	536870911
#define QUIC_USER_LOCAL_MAX_STREAM_DATA	268435455
#define QUIC_USER_MAX_STREAMS		4096

/* The bit of a known parameter ID, or -1 for an unknown one. */
static int quic_tparam_bit(u64 id)
{
	if (id <= QUIC_TPARAM_VERSION_INFORMATION)
		return id;
	switch (id) {
	case QUIC_TPARAM_MAX_DATAGRAM_FRAME_SIZE:
		return QUIC_TPB_MAX_DATAGRAM_FRAME_SIZE;
	case QUIC_TPARAM_GREASE_QUIC_BIT:
		return QUIC_TPB_GREASE_QUIC_BIT;
	case QUIC_TPARAM_DISABLE_1RTT_ENCRYPTION:
		return QUIC_TPB_DISABLE_1RTT_ENCRYPTION;
	case QUIC_TPARAM_MIN_ACK_DELAY:
		return QUIC_TPB_MIN_ACK_DELAY;
	}
	return -1;
}

static u64 quic_ms_to_us(u64 ms)
{
	return ms > div_u64(U64_MAX, 1000) ? U64_MAX : ms * 1000;
}

static u64 quic_us_to_ms(u64 us)
{
	u32 rem;
	u64 ms = div_u64_rem(us, 1000, &rem);

	return ms + !!rem;
}

/**
 * quic_tparams_init_peer - set the values of absent parameters
 * @tp: the parameters
 *
 * Clears @tp and sets the defaults of RFC 9000, section 18.2: what a peer
 * that sent an empty extension has said. No parameter is present.
 */
void quic_tparams_init_peer(struct quic_tparams *tp)
{
	memset(tp, 0, sizeof(*tp));
	tp->max_udp_payload_size = QUIC_TPARAM_DEF_MAX_UDP_PAYLOAD_SIZE;
	tp->ack_delay_exponent = QUIC_TPARAM_DEF_ACK_DELAY_EXPONENT;
	tp->max_ack_delay_us = QUIC_TPARAM_DEF_MAX_ACK_DELAY_US;
	tp->active_cid_limit = QUIC_TPARAM_DEF_ACTIVE_CID_LIMIT;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_tparams_init_peer);

/**
 * quic_tparams_init_local - set the local parameters of a fresh socket
 * @tp: the parameters
 *
 * The defaults of quic-api.rst, section 2.7: 100 streams of each type,
 * 2097120 bytes for the connection and 1048560 per stream, a 30 s idle
 * timeout, 7 active connection IDs, version_information offering
 * version 2 and version 1 with version 1 chosen, and min_ack_delay (the
 * ACK timer's granularity: we take ACK_FREQUENCY frames). The connection
 * IDs are the caller's to fill in.
 */
void quic_tparams_init_local(struct quic_tparams *tp)
{
	quic_tparams_init_peer(tp);
	tp->active_cid_limit = QUIC_LOCAL_ACTIVE_CID_LIMIT;
	tp->max_idle_timeout_us = QUIC_LOCAL_MAX_IDLE_TIMEOUT_US;
	tp->max_streams_bidi = QUIC_LOCAL_MAX_STREAMS;
	tp->max_streams_uni = QUIC_LOCAL_MAX_STREAMS;
	tp->max_data = QUIC_LOCAL_MAX_DATA;
	tp->max_stream_data_bidi_local = QUIC_LOCAL_MAX_STREAM_DATA;
	tp->max_stream_data_bidi_remote = QUIC_LOCAL_MAX_STREAM_DATA;
	tp->max_stream_data_uni = QUIC_LOCAL_MAX_STREAM_DATA;
	tp->chosen_version = QUIC_VERSION_V1;
	tp->available_versions[0] = QUIC_VERSION_V2;
	tp->available_versions[1] = QUIC_VERSION_V1;
	tp->num_versions = 2;
	quic_tparams_set(tp, QUIC_TPB_VERSION_INFO);
	tp->min_ack_delay_us = QUIC_LOCAL_MIN_ACK_DELAY_US;
	quic_tparams_set(tp, QUIC_TPB_MIN_ACK_DELAY);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_tparams_init_local);

/* An output cursor that remembers the first error. */
struct quic_tparam_writer {
	u8	*p;
	u8	*end;
	int	err;
};

/* Write the ID and length of a parameter; return where its value goes. */
static u8 *quic_tparam_put_head(struct quic_tparam_writer *w, u64 id, u32 len)
{
	u32 need = quic_varint_len(id) + quic_varint_len(len) + len;

	if (w->err)
		return NULL;
	if (need > w->end - w->p) {
		w->err = -ENOSPC;
		return NULL;
	}
	w->p = quic_varint_put(w->p, id);
	w->p = quic_varint_put(w->p, len);
	w->p += len;
	return w->p - len;
}

static void quic_tparam_put_varint(struct quic_tparam_writer *w, u64 id, u64 v)
{
	u32 n = quic_varint_len(v);
	u8 *p;

	if (!n) {
		w->err = w->err ?: -EINVAL;
		return;
	}
	p = quic_tparam_put_head(w, id, n);
	if (p)
		quic_varint_put(p, v);
}

static void quic_tparam_put_bytes(struct quic_tparam_writer *w, u64 id,
				  const u8 *data, u32 len)
{
	u8 *p = quic_tparam_put_head(w, id, len);

	if (p && len)
		memcpy(p, data, len);
}

static void quic_tparam_put_cid(struct quic_tparam_writer *w, u64 id,
				const struct quic_cid *cid)
{
	if (cid->len > QUIC_CID_MAX_LEN) {
		w->err = w->err ?: -EINVAL;
		return;
	}
	quic_tparam_put_bytes(w, id, cid->data, cid->len);
}

static void quic_tparam_put_flag(struct quic_tparam_writer *w, u64 id,
				 const struct quic_tparams *tp,
				 enum quic_tparam_bit bit)
{
	if (quic_tparams_has(tp, bit))
		quic_tparam_put_head(w, id, 0);
}

/* A numeric parameter, unless it has its default value. */
static void quic_tparam_put_num(struct quic_tparam_writer *w, u64 id, u64 v,
				u64 def)
{
	if (v != def)
		quic_tparam_put_varint(w, id, v);
}

static void quic_tparam_put_preferred(struct quic_tparam_writer *w,
				      const struct quic_preferred_address *pa)
{
	u8 *p;

	if (!pa->cid.len || pa->cid.len > QUIC_CID_MAX_LEN) {
		w->err = w->err ?: -EINVAL;
		return;
	}
	p = quic_tparam_put_head(w, QUIC_TPARAM_PREFERRED_ADDRESS,
				 QUIC_PREFERRED_ADDRESS_FIXED_LEN + pa->cid.len);
	if (!p)
		return;
	memcpy(p, pa->ipv4_addr, sizeof(pa->ipv4_addr));
	p = quic_uint_put(p + sizeof(pa->ipv4_addr), pa->ipv4_port, 2);
	memcpy(p, pa->ipv6_addr, sizeof(pa->ipv6_addr));
	p = quic_uint_put(p + sizeof(pa->ipv6_addr), pa->ipv6_port, 2);
	*p++ = pa->cid.len;
	memcpy(p, pa->cid.data, pa->cid.len);
	memcpy(p + pa->cid.len, pa->reset_token, QUIC_RESET_TOKEN_LEN);
}

static void quic_tparam_put_versions(struct quic_tparam_writer *w,
				     const struct quic_tparams *tp)
{
	u32 i;
	u8 *p;

	if (tp->num_versions > QUIC_TPARAM_MAX_VERSIONS) {
		w->err = w->err ?: -EINVAL;
		return;
	}
	p = quic_tparam_put_head(w, QUIC_TPARAM_VERSION_INFORMATION,
				 4 * (1 + tp->num_versions));
	if (!p)
		return;
	p = quic_uint_put(p, tp->chosen_version, 4);
	for (i = 0; i < tp->num_versions; i++)
		p = quic_uint_put(p, tp->available_versions[i], 4);
}

/**
 * quic_tparams_encode - build the transport parameters extension body
 * @buf: where to write
 * @room: bytes available at @buf
 * @tp: the local parameters
 * @server: true when we are the server
 *
 * The server-only parameters (original_destination_connection_id,
 * stateless_reset_token, retry_source_connection_id, preferred_address)
 * are written only when @server is true, and only if present in @tp.
 * Times are rounded up to whole milliseconds; max_ack_delay is capped at
 * 2^14 - 1 ms. min_ack_delay, in microseconds, is written when present,
 * and no larger than max_ack_delay (quic_tparams_min_ack_delay()).
 *
 * Return: the number of bytes written, -ENOSPC if they do not fit in
 * @room, or -EINVAL if @tp holds a value that cannot be encoded (a
 * connection ID over 20 bytes, a varint over 2^62 - 1, a preferred address
 * without a connection ID, too many versions).
 */
int quic_tparams_encode(u8 *buf, u32 room, const struct quic_tparams *tp,
			bool server)
{
	struct quic_tparam_writer w = { .p = buf, .end = buf + room };

	if (server) {
		if (quic_tparams_has(tp, QUIC_TPB_ORIGINAL_DCID))
			quic_tparam_put_cid(&w, QUIC_TPARAM_ORIGINAL_DESTINATION_CONNECTION_ID,
					    &tp->original_dcid);
		if (quic_tparams_has(tp, QUIC_TPB_STATELESS_RESET_TOKEN))
			quic_tparam_put_bytes(&w, QUIC_TPARAM_STATELESS_RESET_TOKEN,
					      tp->stateless_reset_token,
					      QUIC_RESET_TOKEN_LEN);
		if (quic_tparams_has(tp, QUIC_TPB_RETRY_SCID))
			quic_tparam_put_cid(&w, QUIC_TPARAM_RETRY_SOURCE_CONNECTION_ID,
					    &tp->retry_scid);
		if (quic_tparams_has(tp, QUIC_TPB_PREFERRED_ADDRESS))
			quic_tparam_put_preferred(&w, &tp->preferred_address);
	}
	if (quic_tparams_has(tp, QUIC_TPB_INITIAL_SCID))
		quic_tparam_put_cid(&w, QUIC_TPARAM_INITIAL_SOURCE_CONNECTION_ID,
				    &tp->initial_scid);
	quic_tparam_put_num(&w, QUIC_TPARAM_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL,
			    tp->max_stream_data_bidi_local, 0);
	quic_tparam_put_num(&w, QUIC_TPARAM_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE,
			    tp->max_stream_data_bidi_remote, 0);
	quic_tparam_put_num(&w, QUIC_TPARAM_INITIAL_MAX_STREAM_DATA_UNI,
			    tp->max_stream_data_uni, 0);
	quic_tparam_put_num(&w, QUIC_TPARAM_INITIAL_MAX_DATA, tp->max_data, 0);
	quic_tparam_put_num(&w, QUIC_TPARAM_INITIAL_MAX_STREAMS_BIDI,
			    tp->max_streams_bidi, 0);
	quic_tparam_put_num(&w, QUIC_TPARAM_INITIAL_MAX_STREAMS_UNI,
			    tp->max_streams_uni, 0);
	quic_tparam_put_num(&w, QUIC_TPARAM_MAX_UDP_PAYLOAD_SIZE,
			    tp->max_udp_payload_size,
			    QUIC_TPARAM_DEF_MAX_UDP_PAYLOAD_SIZE);
	quic_tparam_put_num(&w, QUIC_TPARAM_ACK_DELAY_EXPONENT,
			    tp->ack_delay_exponent,
			    QUIC_TPARAM_DEF_ACK_DELAY_EXPONENT);
	quic_tparam_put_flag(&w, QUIC_TPARAM_DISABLE_ACTIVE_MIGRATION, tp,
			     QUIC_TPB_DISABLE_ACTIVE_MIGRATION);
	quic_tparam_put_flag(&w, QUIC_TPARAM_DISABLE_1RTT_ENCRYPTION, tp,
			     QUIC_TPB_DISABLE_1RTT_ENCRYPTION);
	if (quic_tparams_has(tp, QUIC_TPB_VERSION_INFO))
		quic_tparam_put_versions(&w, tp);
	quic_tparam_put_flag(&w, QUIC_TPARAM_GREASE_QUIC_BIT, tp,
			     QUIC_TPB_GREASE_QUIC_BIT);
	quic_tparam_put_num(&w, QUIC_TPARAM_MAX_ACK_DELAY,
			    min_t(u64, quic_us_to_ms(tp->max_ack_delay_us),
				  QUIC_TPARAM_MAX_MAX_ACK_DELAY_MS),
			    QUIC_TPARAM_DEF_MAX_ACK_DELAY_US / 1000);
	quic_tparam_put_num(&w, QUIC_TPARAM_MAX_IDLE_TIMEOUT,
			    min_t(u64, quic_us_to_ms(tp->max_idle_timeout_us),
				  QUIC_VARINT_MAX), 0);
	quic_tparam_put_num(&w, QUIC_TPARAM_ACTIVE_CONNECTION_ID_LIMIT,
			    tp->active_cid_limit,
			    QUIC_TPARAM_DEF_ACTIVE_CID_LIMIT);
	quic_tparam_put_num(&w, QUIC_TPARAM_MAX_DATAGRAM_FRAME_SIZE,
			    tp->max_datagram_frame_size, 0);
	if (quic_tparams_has(tp, QUIC_TPB_MIN_ACK_DELAY))
		quic_tparam_put_varint(&w, QUIC_TPARAM_MIN_ACK_DELAY,
				       quic_tparams_min_ack_delay(tp));

	return w.err ?: (int)(w.p - buf);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_tparams_encode);

/* A varint that fills exactly the @len bytes of a value. */
static int quic_tparam_get_varint(const u8 *p, u32 len, u64 *v)
{
	if (!quic_varint_get(&p, &len, v) || len)
		return -EINVAL;
	return 0;
}

static int quic_tparam_get_cid(const u8 *p, u32 len, struct quic_cid *cid)
{
	if (len > QUIC_CID_MAX_LEN)
		return -EINVAL;
	cid->len = len;
	memcpy(cid->data, p, len);
	return 0;
}

static int quic_tparam_get_preferred(const u8 *p, u32 len,
				     struct quic_preferred_address *pa)
{
	u64 v;

	/* Addresses, ports and the CID length come before the variable part. */
	if (len < QUIC_PREFERRED_ADDRESS_FIXED_LEN)
		return -EINVAL;
	memcpy(pa->ipv4_addr, p, sizeof(pa->ipv4_addr));
	p += sizeof(pa->ipv4_addr);
	len -= sizeof(pa->ipv4_addr);
	quic_uint_get(&p, &len, &v, 2);
	pa->ipv4_port = v;
	memcpy(pa->ipv6_addr, p, sizeof(pa->ipv6_addr));
	p += sizeof(pa->ipv6_addr);
	len -= sizeof(pa->ipv6_addr);
	quic_uint_get(&p, &len, &v, 2);
	pa->ipv6_port = v;
	quic_uint_get(&p, &len, &v, 1);
	/* A zero-length CID is forbidden here (RFC 9000, section 18.2). */
	if (!v || v > QUIC_CID_MAX_LEN || len != v + QUIC_RESET_TOKEN_LEN)
		return -EINVAL;
	pa->cid.len = v;
	memcpy(pa->cid.data, p, v);
	memcpy(pa->reset_token, p + v, QUIC_RESET_TOKEN_LEN);
	return 0;
}

/* version_information; a parsing failure is -EINVAL (RFC 9368, section 4). */
static int quic_tparam_get_versions(const u8 *p, u32 len,
				    struct quic_tparams *tp, bool from_server)
{
	bool chosen_listed = false;
	u64 v;

	if (len < 4 || len % 4)
		return -EINVAL;
	quic_uint_get(&p, &len, &v, 4);
	if (!v)
		return -EINVAL;
	tp->chosen_version = v;
	tp->num_versions = 0;
	while (len) {
		quic_uint_get(&p, &len, &v, 4);
		if (!v)
			return -EINVAL;
		if (v == tp->chosen_version)
			chosen_listed = true;
		if (tp->num_versions < QUIC_TPARAM_MAX_VERSIONS)
			tp->available_versions[tp->num_versions++] = v;
	}
	if (!from_server && !chosen_listed)
		return -EINVAL;
	return 0;
}

static int quic_tparam_get_one(struct quic_tparams *tp, u64 id, const u8 *p,
			       u32 len, bool from_server)
{
	int bit = quic_tparam_bit(id);
	u64 v = 0;

	/* Unknown parameters, reserved ones included, are ignored. */
	if (bit < 0)
		return 0;
	if (quic_tparams_has(tp, bit))
		return -EINVAL;
	if (!from_server && (BIT(bit) & QUIC_TPARAM_SERVER_ONLY))
		return -EINVAL;
	quic_tparams_set(tp, bit);

	switch (id) {
	case QUIC_TPARAM_ORIGINAL_DESTINATION_CONNECTION_ID:
		return quic_tparam_get_cid(p, len, &tp->original_dcid);
	case QUIC_TPARAM_INITIAL_SOURCE_CONNECTION_ID:
		return quic_tparam_get_cid(p, len, &tp->initial_scid);
	case QUIC_TPARAM_RETRY_SOURCE_CONNECTION_ID:
		return quic_tparam_get_cid(p, len, &tp->retry_scid);
	case QUIC_TPARAM_STATELESS_RESET_TOKEN:
		if (len != QUIC_RESET_TOKEN_LEN)
			return -EINVAL;
		memcpy(tp->stateless_reset_token, p, len);
		return 0;
	case QUIC_TPARAM_PREFERRED_ADDRESS:
		return quic_tparam_get_preferred(p, len, &tp->preferred_address);
	case QUIC_TPARAM_VERSION_INFORMATION:
		return quic_tparam_get_versions(p, len, tp, from_server);
	case QUIC_TPARAM_DISABLE_ACTIVE_MIGRATION:
	case QUIC_TPARAM_GREASE_QUIC_BIT:
	case QUIC_TPARAM_DISABLE_1RTT_ENCRYPTION:
		return len ? -EINVAL : 0;
	}

	/* The rest are integers. */
	if (quic_tparam_get_varint(p, len, &v))
		return -EINVAL;
	switch (id) {
	case QUIC_TPARAM_MAX_IDLE_TIMEOUT:
		tp->max_idle_timeout_us = quic_ms_to_us(v);
		break;
	case QUIC_TPARAM_MAX_UDP_PAYLOAD_SIZE:
		if (v < QUIC_TPARAM_MIN_MAX_UDP_PAYLOAD_SIZE)
			return -EINVAL;
		tp->max_udp_payload_size = v;
		break;
	case QUIC_TPARAM_INITIAL_MAX_DATA:
		tp->max_data = v;
		break;
	case QUIC_TPARAM_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL:
		tp->max_stream_data_bidi_local = v;
		break;
	case QUIC_TPARAM_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE:
		tp->max_stream_data_bidi_remote = v;
		break;
	case QUIC_TPARAM_INITIAL_MAX_STREAM_DATA_UNI:
		tp->max_stream_data_uni = v;
		break;
	case QUIC_TPARAM_INITIAL_MAX_STREAMS_BIDI:
	case QUIC_TPARAM_INITIAL_MAX_STREAMS_UNI:
		if (v > QUIC_TPARAM_MAX_STREAMS)
			return -EINVAL;
		if (id == QUIC_TPARAM_INITIAL_MAX_STREAMS_BIDI)
			tp->max_streams_bidi = v;
		else
			tp->max_streams_uni = v;
		break;
	case QUIC_TPARAM_ACK_DELAY_EXPONENT:
		if (v > QUIC_TPARAM_MAX_ACK_DELAY_EXPONENT)
			return -EINVAL;
		tp->ack_delay_exponent = v;
		break;
	case QUIC_TPARAM_MAX_ACK_DELAY:
		if (v > QUIC_TPARAM_MAX_MAX_ACK_DELAY_MS)
			return -EINVAL;
		tp->max_ack_delay_us = v * 1000;
		break;
	case QUIC_TPARAM_ACTIVE_CONNECTION_ID_LIMIT:
		if (v < QUIC_TPARAM_MIN_ACTIVE_CID_LIMIT)
			return -EINVAL;
		tp->active_cid_limit = v;
		break;
	case QUIC_TPARAM_MAX_DATAGRAM_FRAME_SIZE:
		tp->max_datagram_frame_size = v;
		break;
	case QUIC_TPARAM_MIN_ACK_DELAY:
		tp->min_ack_delay_us = v;
		break;
	}
	return 0;
}

/**
 * quic_tparams_decode - parse and validate the peer's extension body
 * @buf: the extension body
 * @len: its length
 * @tp: where to store the parameters; parameters the peer did not send
 *	get their RFC 9000 defaults
 * @from_server: true when the peer is the server
 *
 * Rejected: a truncated parameter; a known parameter sent twice; a
 * server-only parameter sent by a client; an integer whose varint does not
 * fill its length exactly; max_udp_payload_size < 1200; ack_delay_exponent
 * > 20; max_ack_delay >= 2^14 ms; active_connection_id_limit < 2;
 * initial_max_streams_* > 2^60; a stateless_reset_token that is not 16
 * bytes; a connection ID over 20 bytes; a preferred_address with a
 * zero-length connection ID or a length that does not match its connection
 * ID; a flag parameter with a value; a version_information that fails to
 * parse; a min_ack_delay (microseconds) above max_ack_delay
 * (draft-ietf-quic-ack-frequency, section 3). Unknown parameters,
 * reserved (31 * N + 27) ones included, are skipped. Whether the required
 * connection IDs are there and match the packet headers is the caller's to
 * check, with @tp->present.
 *
 * Return: 0, or -EINVAL (TRANSPORT_PARAMETER_ERROR); @tp is then partly
 * filled and must not be used.
 */
int quic_tparams_decode(const u8 *buf, u32 len, struct quic_tparams *tp,
			bool from_server)
{
	u64 id, vlen;
	int err;

	quic_tparams_init_peer(tp);
	while (len) {
		if (!quic_varint_get(&buf, &len, &id) ||
		    !quic_varint_get(&buf, &len, &vlen) || vlen > len)
			return -EINVAL;
		err = quic_tparam_get_one(tp, id, buf, vlen, from_server);
		if (err)
			return err;
		buf += vlen;
		len -= vlen;
	}
	if (quic_tparams_has(tp, QUIC_TPB_MIN_ACK_DELAY) &&
	    tp->min_ack_delay_us > tp->max_ack_delay_us)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_tparams_decode);

/**
 * quic_tparams_check_version - check the peer's Chosen Version
 * @tp: the peer's parameters, from quic_tparams_decode()
 * @version: the version the Chosen Version must be: for a server, the
 *	version of the client's first Initial; for a client, the version in
 *	use (RFC 9368, section 4)
 *
 * A peer that sent no version_information passes.
 *
 * Return: 0, or -EPROTONOSUPPORT (VERSION_NEGOTIATION_ERROR) on a mismatch.
 */
int quic_tparams_check_version(const struct quic_tparams *tp, u32 version)
{
	if (quic_tparams_has(tp, QUIC_TPB_VERSION_INFO) &&
	    tp->chosen_version != version)
		return -EPROTONOSUPPORT;
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_tparams_check_version);

static bool quic_tparams_lists(const struct quic_tparams *tp, u32 version)
{
	u32 i;

	for (i = 0; i < tp->num_versions; i++)
		if (tp->available_versions[i] == version)
			return true;
	return false;
}

/**
 * quic_tparams_check_server_versions - a client's check of the server's
 *	version_information (RFC 9368, sections 4 and 8)
 * @tp: the server's parameters, from quic_tparams_decode()
 * @ours: the client's own parameters, as it sent them
 * @version: the version in use (the Negotiated Version)
 * @first: the version of the client's first Initials
 * @pref: the versions the client speaks, most preferred first
 * @npref: entries at @pref
 * @after_vn: the client sent its first flight again after a Version
 *	Negotiation packet
 *
 * The server's Chosen Version must be @version and, if the client sent
 * version_information, one of its Available Versions. A client that
 * moved to another version without a Version Negotiation (compatible
 * negotiation) needs the server's version_information to confirm it.
 * After Version Negotiation the server's Available Versions must not
 * show that the Version Negotiation packet was forged: the client must
 * have picked the same version from them plus @version; an empty list
 * fails, and a missing version_information stands for Chosen Version 1
 * with Available Versions [1] (section 8), so it passes in version 1
 * only. Only the Available Versions the decoder kept (the first
 * QUIC_TPARAM_MAX_VERSIONS) count.
 *
 * Return: 0, or -EPROTONOSUPPORT (VERSION_NEGOTIATION_ERROR).
 */
int quic_tparams_check_server_versions(const struct quic_tparams *tp,
				       const struct quic_tparams *ours,
				       u32 version, u32 first, const u32 *pref,
				       u32 npref, bool after_vn)
{
	bool has = quic_tparams_has(tp, QUIC_TPB_VERSION_INFO);
	u32 i;

	if (has && tp->chosen_version != version)
		return -EPROTONOSUPPORT;
	if (has && quic_tparams_has(ours, QUIC_TPB_VERSION_INFO) &&
	    !quic_tparams_lists(ours, tp->chosen_version))
		return -EPROTONOSUPPORT;
	if (!after_vn)
		return first == version || has ? 0 : -EPROTONOSUPPORT;
	if (!has)
		return version == QUIC_VERSION_V1 ? 0 : -EPROTONOSUPPORT;
	if (!tp->num_versions)
		return -EPROTONOSUPPORT;
	for (i = 0; i < npref; i++)
		if (pref[i] == version || quic_tparams_lists(tp, pref[i]))
			return pref[i] == version ? 0 : -EPROTONOSUPPORT;
	return -EPROTONOSUPPORT;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_tparams_check_server_versions);

/**
 * quic_tparams_to_user - fill a QUIC_SOCKOPT_TRANSPORT_PARAM answer
 * @tp: the parameters
 * @p: the socket option value; all fields but @p->remote are written
 *
 * Times become microseconds (saturating); values wider than their field
 * are clamped (max_udp_payload_size to 65527). disable_compatible_version
 * reports the absence of version_information and stateless_reset the
 * presence of a reset token.
 */
void quic_tparams_to_user(const struct quic_tparams *tp,
			  struct quic_transport_param *p)
{
	p->disable_active_migration =
		quic_tparams_has(tp, QUIC_TPB_DISABLE_ACTIVE_MIGRATION);
	p->grease_quic_bit = quic_tparams_has(tp, QUIC_TPB_GREASE_QUIC_BIT);
	p->stateless_reset =
		quic_tparams_has(tp, QUIC_TPB_STATELESS_RESET_TOKEN);
	p->disable_1rtt_encryption =
		quic_tparams_has(tp, QUIC_TPB_DISABLE_1RTT_ENCRYPTION);
	p->disable_compatible_version =
		!quic_tparams_has(tp, QUIC_TPB_VERSION_INFO);
	p->active_connection_id_limit = min_t(u64, tp->active_cid_limit, U8_MAX);
	p->ack_delay_exponent = tp->ack_delay_exponent;
	p->max_datagram_frame_size = min_t(u64, tp->max_datagram_frame_size,
					   U16_MAX);
	p->max_udp_payload_size = min_t(u64, tp->max_udp_payload_size,
					QUIC_TPARAM_DEF_MAX_UDP_PAYLOAD_SIZE);
	p->max_idle_timeout = min_t(u64, tp->max_idle_timeout_us, U32_MAX);
	p->max_ack_delay = min_t(u64, tp->max_ack_delay_us, U32_MAX);
	p->max_streams_bidi = min_t(u64, tp->max_streams_bidi, U16_MAX);
	p->max_streams_uni = min_t(u64, tp->max_streams_uni, U16_MAX);
	p->max_data = tp->max_data;
	p->max_stream_data_bidi_local = tp->max_stream_data_bidi_local;
	p->max_stream_data_bidi_remote = tp->max_stream_data_bidi_remote;
	p->max_stream_data_uni = tp->max_stream_data_uni;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_tparams_to_user);

static bool quic_user_bad(u64 v, u64 lo, u64 hi)
{
	return v && (v < lo || v > hi);
}

/**
 * quic_tparams_from_user - apply a QUIC_SOCKOPT_TRANSPORT_PARAM set
 * @tp: the parameters, local or the peer's according to @p->remote
 * @p: the socket option value
 *
 * A zero field leaves its parameter unchanged and a non-zero flag turns
 * its parameter on (disable_compatible_version turns version_information
 * off); quic-api.rst, section 6. Non-zero fields must lie within:
 * max_udp_payload_size 1200..65527, ack_delay_exponent <= 20,
 * max_ack_delay < 16384000 us, active_connection_id_limit 2..8,
 * max_idle_timeout >= 1 s, max_datagram_frame_size >= 1200, max_data >=
 * 1200 and, locally, <= 536870911, max_stream_data_* >= 1200 and, locally,
 * <= 268435455; max_streams_* <= 4096 locally, clamped to 4096 for the
 * peer. stateless_reset only marks the token present: its value is the
 * caller's to fill in.
 *
 * Return: 0, or -EINVAL with nothing applied.
 */
int quic_tparams_from_user(struct quic_tparams *tp,
			   const struct quic_transport_param *p)
{
	u64 max_data = p->remote ? U64_MAX : QUIC_USER_LOCAL_MAX_DATA;
	u64 max_sdata = p->remote ? U64_MAX : QUIC_USER_LOCAL_MAX_STREAM_DATA;
	u64 max_streams = p->remote ? U16_MAX : QUIC_USER_MAX_STREAMS;

	if (quic_user_bad(p->max_udp_payload_size,
			  QUIC_TPARAM_MIN_MAX_UDP_PAYLOAD_SIZE,
			  QUIC_TPARAM_DEF_MAX_UDP_PAYLOAD_SIZE) ||
	    p->ack_delay_exponent > QUIC_TPARAM_MAX_ACK_DELAY_EXPONENT ||
	    p->max_ack_delay > QUIC_TPARAM_MAX_MAX_ACK_DELAY_MS * 1000 + 999 ||
	    quic_user_bad(p->active_connection_id_limit,
			  QUIC_TPARAM_MIN_ACTIVE_CID_LIMIT,
			  QUIC_USER_MAX_ACTIVE_CID_LIMIT) ||
	    quic_user_bad(p->max_idle_timeout, QUIC_USER_MIN_IDLE_TIMEOUT_US,
			  U32_MAX) ||
	    quic_user_bad(p->max_datagram_frame_size, QUIC_USER_MIN_DATAGRAM,
			  U16_MAX) ||
	    quic_user_bad(p->max_data, QUIC_USER_MIN_MAX_DATA, max_data) ||
	    quic_user_bad(p->max_stream_data_bidi_local,
			  QUIC_USER_MIN_MAX_DATA, max_sdata) ||
	    quic_user_bad(p->max_stream_data_bidi_remote,
			  QUIC_USER_MIN_MAX_DATA, max_sdata) ||
	    quic_user_bad(p->max_stream_data_uni, QUIC_USER_MIN_MAX_DATA,
			  max_sdata) ||
	    p->max_streams_bidi > max_streams ||
	    p->max_streams_uni > max_streams)
		return -EINVAL;

	if (p->disable_active_migration)
		quic_tparams_set(tp, QUIC_TPB_DISABLE_ACTIVE_MIGRATION);
	if (p->grease_quic_bit)
		quic_tparams_set(tp, QUIC_TPB_GREASE_QUIC_BIT);
	if (p->stateless_reset)
		quic_tparams_set(tp, QUIC_TPB_STATELESS_RESET_TOKEN);
	if (p->disable_1rtt_encryption)
		quic_tparams_set(tp, QUIC_TPB_DISABLE_1RTT_ENCRYPTION);
	if (p->disable_compatible_version)
		quic_tparams_clear(tp, QUIC_TPB_VERSION_INFO);
	if (p->active_connection_id_limit)
		tp->active_cid_limit = p->active_connection_id_limit;
	if (p->ack_delay_exponent)
		tp->ack_delay_exponent = p->ack_delay_exponent;
	if (p->max_datagram_frame_size)
		tp->max_datagram_frame_size = p->max_datagram_frame_size;
	if (p->max_udp_payload_size)
		tp->max_udp_payload_size = p->max_udp_payload_size;
	if (p->max_idle_timeout)
		tp->max_idle_timeout_us = p->max_idle_timeout;
	if (p->max_ack_delay)
		tp->max_ack_delay_us = p->max_ack_delay;
	if (p->max_streams_bidi)
		tp->max_streams_bidi = min_t(u64, p->max_streams_bidi,
					     QUIC_USER_MAX_STREAMS);
	if (p->max_streams_uni)
		tp->max_streams_uni = min_t(u64, p->max_streams_uni,
					    QUIC_USER_MAX_STREAMS);
	if (p->max_data)
		tp->max_data = p->max_data;
	if (p->max_stream_data_bidi_local)
		tp->max_stream_data_bidi_local = p->max_stream_data_bidi_local;
	if (p->max_stream_data_bidi_remote)
		tp->max_stream_data_bidi_remote = p->max_stream_data_bidi_remote;
	if (p->max_stream_data_uni)
		tp->max_stream_data_uni = p->max_stream_data_uni;
	return 0;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_tparams_from_user);
