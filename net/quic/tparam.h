/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC transport parameters (RFC 9000, sections 7.3, 7.4 and 18), with
 * version_information (RFC 9368, section 3), max_datagram_frame_size
 * (RFC 9221, section 3), grease_quic_bit (RFC 9287), min_ack_delay
 * (draft-ietf-quic-ack-frequency, section 3) and the reference
 * implementation's disable_1rtt_encryption.
 *
 * A pure codec (net/quic/tparam.c): it builds the body of the TLS
 * quic_transport_parameters extension from a struct quic_tparams and
 * parses and validates the peer's, with no socket state, so that it can
 * also be compiled in user space for fuzzing. Checks that need connection
 * state (connection IDs matching those seen in packet headers, a Retry
 * having happened, the version in use) belong to the caller.
 */

#ifndef _NET_QUIC_TPARAM_H
#define _NET_QUIC_TPARAM_H

#include <linux/bits.h>
#include <linux/types.h>
#include "cid.h"

struct quic_transport_param;

/* Transport parameter IDs. */
enum quic_tparam_id {
	QUIC_TPARAM_ORIGINAL_DESTINATION_CONNECTION_ID	= 0x00,
	QUIC_TPARAM_MAX_IDLE_TIMEOUT			= 0x01,
	QUIC_TPARAM_STATELESS_RESET_TOKEN		= 0x02,
	QUIC_TPARAM_MAX_UDP_PAYLOAD_SIZE		= 0x03,
	QUIC_TPARAM_INITIAL_MAX_DATA			= 0x04,
	QUIC_TPARAM_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL	= 0x05,
	QUIC_TPARAM_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE	= 0x06,
	QUIC_TPARAM_INITIAL_MAX_STREAM_DATA_UNI		= 0x07,
	QUIC_TPARAM_INITIAL_MAX_STREAMS_BIDI		= 0x08,
	QUIC_TPARAM_INITIAL_MAX_STREAMS_UNI		= 0x09,
	QUIC_TPARAM_ACK_DELAY_EXPONENT			= 0x0a,
	QUIC_TPARAM_MAX_ACK_DELAY			= 0x0b,
	QUIC_TPARAM_DISABLE_ACTIVE_MIGRATION		= 0x0c,
	QUIC_TPARAM_PREFERRED_ADDRESS			= 0x0d,
	QUIC_TPARAM_ACTIVE_CONNECTION_ID_LIMIT		= 0x0e,
	QUIC_TPARAM_INITIAL_SOURCE_CONNECTION_ID	= 0x0f,
	QUIC_TPARAM_RETRY_SOURCE_CONNECTION_ID		= 0x10,
	QUIC_TPARAM_VERSION_INFORMATION			= 0x11,
	QUIC_TPARAM_MAX_DATAGRAM_FRAME_SIZE		= 0x20,
	QUIC_TPARAM_GREASE_QUIC_BIT			= 0x2ab2,
	QUIC_TPARAM_DISABLE_1RTT_ENCRYPTION		= 0xbaad,
	QUIC_TPARAM_MIN_ACK_DELAY			= 0xff04de1b,
};

/* Bits of quic_tparams.present, one per known parameter. The parameters
 * of IDs 0x00 to 0x11 use their ID as bit number.
 */
enum quic_tparam_bit {
	QUIC_TPB_ORIGINAL_DCID		= QUIC_TPARAM_ORIGINAL_DESTINATION_CONNECTION_ID,
	QUIC_TPB_MAX_IDLE_TIMEOUT	= QUIC_TPARAM_MAX_IDLE_TIMEOUT,
	QUIC_TPB_STATELESS_RESET_TOKEN	= QUIC_TPARAM_STATELESS_RESET_TOKEN,
	QUIC_TPB_MAX_UDP_PAYLOAD_SIZE	= QUIC_TPARAM_MAX_UDP_PAYLOAD_SIZE,
	QUIC_TPB_MAX_DATA		= QUIC_TPARAM_INITIAL_MAX_DATA,
	QUIC_TPB_MAX_STREAM_DATA_BIDI_LOCAL = QUIC_TPARAM_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL,
	QUIC_TPB_MAX_STREAM_DATA_BIDI_REMOTE = QUIC_TPARAM_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE,
	QUIC_TPB_MAX_STREAM_DATA_UNI	= QUIC_TPARAM_INITIAL_MAX_STREAM_DATA_UNI,
	QUIC_TPB_MAX_STREAMS_BIDI	= QUIC_TPARAM_INITIAL_MAX_STREAMS_BIDI,
	QUIC_TPB_MAX_STREAMS_UNI	= QUIC_TPARAM_INITIAL_MAX_STREAMS_UNI,
	QUIC_TPB_ACK_DELAY_EXPONENT	= QUIC_TPARAM_ACK_DELAY_EXPONENT,
	QUIC_TPB_MAX_ACK_DELAY		= QUIC_TPARAM_MAX_ACK_DELAY,
	QUIC_TPB_DISABLE_ACTIVE_MIGRATION = QUIC_TPARAM_DISABLE_ACTIVE_MIGRATION,
	QUIC_TPB_PREFERRED_ADDRESS	= QUIC_TPARAM_PREFERRED_ADDRESS,
	QUIC_TPB_ACTIVE_CID_LIMIT	= QUIC_TPARAM_ACTIVE_CONNECTION_ID_LIMIT,
	QUIC_TPB_INITIAL_SCID		= QUIC_TPARAM_INITIAL_SOURCE_CONNECTION_ID,
	QUIC_TPB_RETRY_SCID		= QUIC_TPARAM_RETRY_SOURCE_CONNECTION_ID,
	QUIC_TPB_VERSION_INFO		= QUIC_TPARAM_VERSION_INFORMATION,
	QUIC_TPB_MAX_DATAGRAM_FRAME_SIZE,
	QUIC_TPB_GREASE_QUIC_BIT,
	QUIC_TPB_DISABLE_1RTT_ENCRYPTION,
	QUIC_TPB_MIN_ACK_DELAY,
	QUIC_TPB_NUM,
};

/* Length of a stateless reset token (RFC 9000, section 10.3). */
#define QUIC_RESET_TOKEN_LEN		16
/* Available Versions of version_information that are kept; more are
 * validated and then ignored.
 */
#define QUIC_TPARAM_MAX_VERSIONS	16
/* Largest peer extension body accepted (QUIC_SOCKOPT_TRANSPORT_PARAM_EXT). */
#define QUIC_TPARAM_EXT_MAX_LEN		512
/* Largest local extension body libquic can take. */
#define QUIC_TPARAM_EXT_LOCAL_MAX_LEN	256

/* Defaults of absent parameters (RFC 9000, section 18.2). */
#define QUIC_TPARAM_DEF_MAX_UDP_PAYLOAD_SIZE	65527
#define QUIC_TPARAM_DEF_ACK_DELAY_EXPONENT	3
#define QUIC_TPARAM_DEF_MAX_ACK_DELAY_US	25000
#define QUIC_TPARAM_DEF_ACTIVE_CID_LIMIT	2

/* Limits of valid values (RFC 9000, section 18.2). */
#define QUIC_TPARAM_MIN_MAX_UDP_PAYLOAD_SIZE	1200
#define QUIC_TPARAM_MAX_ACK_DELAY_EXPONENT	20
#define QUIC_TPARAM_MAX_MAX_ACK_DELAY_MS	((1U << 14) - 1)
#define QUIC_TPARAM_MIN_ACTIVE_CID_LIMIT	2
#define QUIC_TPARAM_MAX_STREAMS			BIT_ULL(60)

/**
 * struct quic_preferred_address - the preferred_address parameter
 * @ipv4_addr: IPv4 address, network order; all zero if none
 * @ipv4_port: IPv4 port, host order
 * @ipv6_addr: IPv6 address, network order; all zero if none
 * @ipv6_port: IPv6 port, host order
 * @cid: connection ID for the new path, 1 to 20 bytes
 * @reset_token: stateless reset token of @cid
 */
struct quic_preferred_address {
	u8		ipv4_addr[4];
	u16		ipv4_port;
	u8		ipv6_addr[16];
	u16		ipv6_port;
	struct quic_cid	cid;
	u8		reset_token[QUIC_RESET_TOKEN_LEN];
};

/**
 * struct quic_tparams - one endpoint's transport parameters
 * @present: QUIC_TPB_* bits of the parameters present; see below
 * @original_dcid: original_destination_connection_id (server only)
 * @initial_scid: initial_source_connection_id
 * @retry_scid: retry_source_connection_id (server only)
 * @stateless_reset_token: stateless_reset_token (server only)
 * @preferred_address: preferred_address (server only)
 * @max_idle_timeout_us: max_idle_timeout in microseconds; 0 is none
 * @max_ack_delay_us: max_ack_delay in microseconds
 * @min_ack_delay_us: min_ack_delay in microseconds, when present; at most
 *	@max_ack_delay_us
 * @max_udp_payload_size: max_udp_payload_size
 * @max_data: initial_max_data
 * @max_stream_data_bidi_local: initial_max_stream_data_bidi_local
 * @max_stream_data_bidi_remote: initial_max_stream_data_bidi_remote
 * @max_stream_data_uni: initial_max_stream_data_uni
 * @max_streams_bidi: initial_max_streams_bidi
 * @max_streams_uni: initial_max_streams_uni
 * @active_cid_limit: active_connection_id_limit
 * @max_datagram_frame_size: max_datagram_frame_size; 0 is no datagrams
 * @ack_delay_exponent: ack_delay_exponent
 * @num_versions: Available Versions kept in @available_versions
 * @chosen_version: version_information's Chosen Version
 * @available_versions: version_information's Available Versions
 *
 * The numeric fields always hold the value in force: decoding starts from
 * the defaults of absent parameters. The encoder emits a numeric parameter
 * only when its value differs from that default, and the connection IDs,
 * the reset token, the preferred address, version_information and the
 * flags (disable_active_migration, grease_quic_bit,
 * disable_1rtt_encryption) and min_ack_delay only when their @present bit
 * is set. After
 * decoding, @present tells exactly which parameters the peer sent.
 */
struct quic_tparams {
	u32				present;
	struct quic_cid			original_dcid;
	struct quic_cid			initial_scid;
	struct quic_cid			retry_scid;
	u8				stateless_reset_token[QUIC_RESET_TOKEN_LEN];
	struct quic_preferred_address	preferred_address;
	u64				max_idle_timeout_us;
	u64				max_ack_delay_us;
	u64				min_ack_delay_us;
	u64				max_udp_payload_size;
	u64				max_data;
	u64				max_stream_data_bidi_local;
	u64				max_stream_data_bidi_remote;
	u64				max_stream_data_uni;
	u64				max_streams_bidi;
	u64				max_streams_uni;
	u64				active_cid_limit;
	u64				max_datagram_frame_size;
	u8				ack_delay_exponent;
	u8				num_versions;
	u32				chosen_version;
	u32				available_versions[QUIC_TPARAM_MAX_VERSIONS];
};

static inline bool quic_tparams_has(const struct quic_tparams *tp,
				    enum quic_tparam_bit bit)
{
	return tp->present & BIT(bit);
}

static inline void quic_tparams_set(struct quic_tparams *tp,
				    enum quic_tparam_bit bit)
{
	tp->present |= BIT(bit);
}

static inline void quic_tparams_clear(struct quic_tparams *tp,
				      enum quic_tparam_bit bit)
{
	tp->present &= ~BIT(bit);
}

/**
 * quic_tparams_min_ack_delay - the min_ack_delay @tp advertises
 * @tp: parameters with min_ack_delay present
 *
 * Return: @tp->min_ack_delay_us, but no more than @tp->max_ack_delay_us,
 * as quic_tparams_encode() writes it.
 */
static inline u64 quic_tparams_min_ack_delay(const struct quic_tparams *tp)
{
	return tp->min_ack_delay_us < tp->max_ack_delay_us ?
	       tp->min_ack_delay_us : tp->max_ack_delay_us;
}

void quic_tparams_init_peer(struct quic_tparams *tp);
void quic_tparams_init_local(struct quic_tparams *tp);
int quic_tparams_encode(u8 *buf, u32 room, const struct quic_tparams *tp,
			bool server);
int quic_tparams_decode(const u8 *buf, u32 len, struct quic_tparams *tp,
			bool from_server);
int quic_tparams_check_version(const struct quic_tparams *tp, u32 version);
int quic_tparams_check_server_versions(const struct quic_tparams *tp,
				       const struct quic_tparams *ours,
				       u32 version, u32 first, const u32 *pref,
				       u32 npref, bool after_vn);
void quic_tparams_to_user(const struct quic_tparams *tp,
			  struct quic_transport_param *p);
int quic_tparams_from_user(struct quic_tparams *tp,
			   const struct quic_transport_param *p);

#endif /* _NET_QUIC_TPARAM_H */
