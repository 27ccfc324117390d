/* SPDX-License-Identifier: GPL-2.0+ WITH Linux-syscall-note */
/*
 * QUIC: the user API of the in-kernel QUIC transport (RFC 9000, 9001,
 * 9002), compatible with draft-lxin-quic-socket-apis.
 *
 * A QUIC socket is created with
 *	socket(AF_INET or AF_INET6, SOCK_STREAM or SOCK_DGRAM, IPPROTO_QUIC)
 * and configured with socket options at level SOL_QUIC. The TLS 1.3
 * handshake runs in user space and hands the traffic secrets to the
 * kernel (QUIC_SOCKOPT_CRYPTO_SECRET); handshake messages travel through
 * sendmsg()/recvmsg() with a QUIC_HANDSHAKE_INFO control message.
 *
 * See Documentation/networking/quic.rst.
 */

#ifndef _UAPI_LINUX_QUIC_H
#define _UAPI_LINUX_QUIC_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/in.h>		/* IPPROTO_QUIC, in a tree with the series */
#include <linux/socket.h>
#else
#include <sys/socket.h>
#endif

/* For headers older than the series, and for user space. */
#ifndef IPPROTO_QUIC
enum {
	IPPROTO_QUIC = 261,		/* QUIC, RFC 9000 */
#define IPPROTO_QUIC IPPROTO_QUIC
};
#endif

#ifndef SOL_QUIC
#define SOL_QUIC	288
#endif

/**
 * enum quic_cmsg_type - control message types at level SOL_QUIC
 * @QUIC_STREAM_INFO: stream data; payload is &struct quic_stream_info
 * @QUIC_HANDSHAKE_INFO: handshake (CRYPTO) data; payload is
 *	&struct quic_handshake_info
 */
enum quic_cmsg_type {
	QUIC_STREAM_INFO,
	QUIC_HANDSHAKE_INFO,
};

/* Bits of a stream ID (RFC 9000, section 2.1). */
#define QUIC_STREAM_TYPE_SERVER_MASK	0x01
#define QUIC_STREAM_TYPE_UNI_MASK	0x02
#define QUIC_STREAM_TYPE_MASK		0x03

/**
 * enum quic_msg_flags - QUIC names of send/receive flag bits
 * @MSG_QUIC_STREAM_NEW: open the stream (send)
 * @MSG_QUIC_STREAM_FIN: end of the stream (send and receive)
 * @MSG_QUIC_STREAM_UNI: open a unidirectional stream (send)
 * @MSG_QUIC_STREAM_DONTWAIT: do not block on the peer's stream limit
 * @MSG_QUIC_STREAM_SNDBLOCK: tell the peer when blocked by its limits
 * @MSG_QUIC_DATAGRAM: the message is an unreliable datagram (RFC 9221)
 * @MSG_QUIC_NOTIFICATION: the message is an event (receive)
 *
 * The first five form the stream flags of &struct quic_stream_info.
 */
enum quic_msg_flags {
	MSG_QUIC_STREAM_NEW		= MSG_SYN,
	MSG_QUIC_STREAM_FIN		= MSG_FIN,
	MSG_QUIC_STREAM_UNI		= MSG_CONFIRM,
	MSG_QUIC_STREAM_DONTWAIT	= MSG_WAITFORONE,
	MSG_QUIC_STREAM_SNDBLOCK	= MSG_ERRQUEUE,
	MSG_QUIC_DATAGRAM		= MSG_RST,
	MSG_QUIC_NOTIFICATION		= MSG_MORE,
};

/**
 * enum quic_crypto_level - encryption levels (packet number spaces)
 * @QUIC_CRYPTO_APP: 1-RTT (application data)
 * @QUIC_CRYPTO_INITIAL: Initial
 * @QUIC_CRYPTO_HANDSHAKE: Handshake
 * @QUIC_CRYPTO_EARLY: 0-RTT
 * @QUIC_CRYPTO_MAX: number of levels
 */
enum quic_crypto_level {
	QUIC_CRYPTO_APP,
	QUIC_CRYPTO_INITIAL,
	QUIC_CRYPTO_HANDSHAKE,
	QUIC_CRYPTO_EARLY,
	QUIC_CRYPTO_MAX,
};

/**
 * struct quic_handshake_info - QUIC_HANDSHAKE_INFO control message
 * @crypto_level: the &enum quic_crypto_level of the handshake data
 */
struct quic_handshake_info {
	__u8	crypto_level;
};

/**
 * struct quic_stream_info - QUIC_STREAM_INFO control message, and the
 *	argument of QUIC_SOCKOPT_STREAM_OPEN
 * @stream_id: stream ID; -1 selects the stream on send
 * @stream_flags: MSG_QUIC_STREAM_* bits
 */
struct quic_stream_info {
	__s64	stream_id;
	__u32	stream_flags;
};

/* QUIC versions (RFC 9000, RFC 9369). */
#define QUIC_VERSION_V1		0x1
#define QUIC_VERSION_V2		0x6b3343cf

/**
 * enum quic_cong_algo - congestion control algorithms
 * @QUIC_CONG_ALG_RENO: NewReno (RFC 9002)
 * @QUIC_CONG_ALG_CUBIC: CUBIC (RFC 9438)
 * @QUIC_CONG_ALG_MAX: number of algorithms
 */
enum quic_cong_algo {
	QUIC_CONG_ALG_RENO,
	QUIC_CONG_ALG_CUBIC,
	QUIC_CONG_ALG_MAX,
};

/**
 * struct quic_transport_param - QUIC_SOCKOPT_TRANSPORT_PARAM
 * @remote: selects the peer's (!0) or the local (0) parameters
 * @disable_active_migration: disable_active_migration parameter
 * @grease_quic_bit: grease_quic_bit parameter (RFC 9287)
 * @stateless_reset: advertise a stateless reset token (server)
 * @disable_1rtt_encryption: turn off 1-RTT packet protection (extension)
 * @disable_compatible_version: no compatible version negotiation
 * @active_connection_id_limit: active_connection_id_limit parameter
 * @ack_delay_exponent: ack_delay_exponent parameter
 * @max_datagram_frame_size: max_datagram_frame_size (RFC 9221); 0 is off
 * @max_udp_payload_size: max_udp_payload_size parameter
 * @max_idle_timeout: max_idle_timeout, in microseconds
 * @max_ack_delay: max_ack_delay, in microseconds
 * @max_streams_bidi: initial_max_streams_bidi parameter
 * @max_streams_uni: initial_max_streams_uni parameter
 * @max_data: initial_max_data parameter
 * @max_stream_data_bidi_local: initial_max_stream_data_bidi_local
 * @max_stream_data_bidi_remote: initial_max_stream_data_bidi_remote
 * @max_stream_data_uni: initial_max_stream_data_uni parameter
 *
 * On set, a zero field leaves the current value unchanged.
 */
struct quic_transport_param {
	__u8	remote;
	__u8	disable_active_migration;
	__u8	grease_quic_bit;
	__u8	stateless_reset;
	__u8	disable_1rtt_encryption;
	__u8	disable_compatible_version;
	__u8	active_connection_id_limit;
	__u8	ack_delay_exponent;
	__u16	max_datagram_frame_size;
	__u16	max_udp_payload_size;
	__u32	max_idle_timeout;
	__u32	max_ack_delay;
	__u16	max_streams_bidi;
	__u16	max_streams_uni;
	__u64	max_data;
	__u64	max_stream_data_bidi_local;
	__u64	max_stream_data_bidi_remote;
	__u64	max_stream_data_uni;
};

/**
 * struct quic_config - QUIC_SOCKOPT_CONFIG
 * @version: the client's initial version; 0 means QUIC_VERSION_V1
 * @plpmtud_probe_interval: PLPMTUD probe interval in microseconds; 0 is off
 * @initial_smoothed_rtt: initial RTT estimate in microseconds
 * @payload_cipher_type: cipher hint for handshake agents (TLS_CIPHER_*)
 * @congestion_control_algo: an &enum quic_cong_algo value
 * @validate_peer_address: server: answer a first Initial with Retry
 * @stream_data_nodelay: !0 turns off the coalescing of small stream frames
 * @receive_session_ticket: client hint: seconds to wait for a ticket
 * @certificate_request: server hint: 0 none, 1 request, 2 require
 * @reserved: must be zero
 * @keepalive_probe_interval: keep-alive interval in microseconds; 0 is off
 *
 * On set, a zero field leaves the current value unchanged.
 */
struct quic_config {
	__u32	version;
	__u32	plpmtud_probe_interval;
	__u32	initial_smoothed_rtt;
	__u32	payload_cipher_type;
	__u8	congestion_control_algo;
	__u8	validate_peer_address;
	__u8	stream_data_nodelay;
	__u8	receive_session_ticket;
	__u8	certificate_request;
	__u8	reserved[3];
	__u32	keepalive_probe_interval;
};

/**
 * struct quic_crypto_secret - QUIC_SOCKOPT_CRYPTO_SECRET
 * @send: !0 for the transmit direction, 0 for receive
 * @level: QUIC_CRYPTO_HANDSHAKE, QUIC_CRYPTO_EARLY or QUIC_CRYPTO_APP
 * @reserved: must be zero
 * @type: the cipher, a TLS_CIPHER_* value from <linux/tls.h>
 * @secret: the TLS traffic secret; 32 or 48 bytes are used
 */
struct quic_crypto_secret {
	__u8	send;
	__u8	level;
	__u16	reserved;
	__u32	type;
#define QUIC_CRYPTO_SECRET_BUFFER_SIZE 48
	__u8	secret[QUIC_CRYPTO_SECRET_BUFFER_SIZE];
};

/* Socket options at level SOL_QUIC. */
#define QUIC_SOCKOPT_EVENT				0
#define QUIC_SOCKOPT_STREAM_OPEN			1
#define QUIC_SOCKOPT_STREAM_RESET			2
#define QUIC_SOCKOPT_STREAM_STOP_SENDING		3
#define QUIC_SOCKOPT_CONNECTION_ID			4
#define QUIC_SOCKOPT_CONNECTION_CLOSE			5
#define QUIC_SOCKOPT_CONNECTION_MIGRATION		6
#define QUIC_SOCKOPT_KEY_UPDATE				7
#define QUIC_SOCKOPT_TRANSPORT_PARAM			8
#define QUIC_SOCKOPT_CONFIG				9
#define QUIC_SOCKOPT_TOKEN				10
#define QUIC_SOCKOPT_ALPN				11
#define QUIC_SOCKOPT_SESSION_TICKET			12
#define QUIC_SOCKOPT_CRYPTO_SECRET			13
#define QUIC_SOCKOPT_TRANSPORT_PARAM_EXT		14

/* Options of this implementation, numbered apart from the socket-API
 * draft's (0 to 14, and any it adds below 64).
 */
#define QUIC_SOCKOPT_INFO				64

/**
 * struct quic_errinfo - QUIC_SOCKOPT_STREAM_RESET and
 *	QUIC_SOCKOPT_STREAM_STOP_SENDING
 * @stream_id: the stream
 * @errcode: application error code
 */
struct quic_errinfo {
	__s64	stream_id;
	__u32	errcode;
};

/**
 * struct quic_connection_id_info - QUIC_SOCKOPT_CONNECTION_ID and
 *	QUIC_EVENT_CONNECTION_ID
 * @dest: 0 for our (source) connection IDs, !0 for the peer's (destination)
 * @reserved: must be zero
 * @active: sequence number of the connection ID in use
 * @prior_to: get: lowest live sequence number; set: retire those below
 */
struct quic_connection_id_info {
	__u8	dest;
	__u8	reserved[3];
	__u32	active;
	__u32	prior_to;
};

/**
 * struct quic_event_option - QUIC_SOCKOPT_EVENT
 * @type: an &enum quic_event_type value
 * @on: 0 disables, !0 enables the event
 */
struct quic_event_option {
	__u8	type;
	__u8	on;
};

/**
 * enum quic_event_type - events, read with recvmsg() and flagged with
 *	MSG_QUIC_NOTIFICATION; one type byte, then the payload
 * @QUIC_EVENT_NONE: never delivered
 * @QUIC_EVENT_STREAM_UPDATE: &struct quic_stream_update
 * @QUIC_EVENT_STREAM_MAX_DATA: &struct quic_stream_max_data
 * @QUIC_EVENT_STREAM_MAX_STREAM: __u64, highest stream ID allowed now
 * @QUIC_EVENT_CONNECTION_ID: &struct quic_connection_id_info
 * @QUIC_EVENT_CONNECTION_CLOSE: &struct quic_connection_close
 * @QUIC_EVENT_CONNECTION_MIGRATION: __u8, 1 if our address changed
 * @QUIC_EVENT_KEY_UPDATE: __u8, the new key phase
 * @QUIC_EVENT_NEW_TOKEN: the token bytes
 * @QUIC_EVENT_NEW_SESSION_TICKET: the TLS NewSessionTicket message
 * @QUIC_EVENT_MAX: number of event types
 */
enum quic_event_type {
	QUIC_EVENT_NONE,
	QUIC_EVENT_STREAM_UPDATE,
	QUIC_EVENT_STREAM_MAX_DATA,
	QUIC_EVENT_STREAM_MAX_STREAM,
	QUIC_EVENT_CONNECTION_ID,
	QUIC_EVENT_CONNECTION_CLOSE,
	QUIC_EVENT_CONNECTION_MIGRATION,
	QUIC_EVENT_KEY_UPDATE,
	QUIC_EVENT_NEW_TOKEN,
	QUIC_EVENT_NEW_SESSION_TICKET,
	QUIC_EVENT_MAX,
};

/* Stream states (RFC 9000, section 3), reported in quic_stream_update. */
enum {
	QUIC_STREAM_SEND_STATE_READY,
	QUIC_STREAM_SEND_STATE_SEND,
	QUIC_STREAM_SEND_STATE_SENT,
	QUIC_STREAM_SEND_STATE_RECVD,
	QUIC_STREAM_SEND_STATE_RESET_SENT,
	QUIC_STREAM_SEND_STATE_RESET_RECVD,

	QUIC_STREAM_RECV_STATE_RECV,
	QUIC_STREAM_RECV_STATE_SIZE_KNOWN,
	QUIC_STREAM_RECV_STATE_RECVD,
	QUIC_STREAM_RECV_STATE_READ,
	QUIC_STREAM_RECV_STATE_RESET_RECVD,
	QUIC_STREAM_RECV_STATE_RESET_READ,
};

/**
 * struct quic_stream_update - QUIC_EVENT_STREAM_UPDATE
 * @id: stream ID
 * @state: the new QUIC_STREAM_*_STATE_* state
 * @reserved: zero
 * @errcode: application error code, for the reset states
 * @finalsz: final size of the stream, where known
 */
struct quic_stream_update {
	__s64	id;
	__u8	state;
	__u8	reserved[3];
	__u32	errcode;
	__u64	finalsz;
};

/**
 * struct quic_stream_max_data - QUIC_EVENT_STREAM_MAX_DATA
 * @id: stream ID
 * @max_data: the new send limit of the stream
 */
struct quic_stream_max_data {
	__s64	id;
	__u64	max_data;
};

/**
 * struct quic_connection_close - QUIC_SOCKOPT_CONNECTION_CLOSE and
 *	QUIC_EVENT_CONNECTION_CLOSE
 * @errcode: error code (transport or application)
 * @frame: frame type that caused a transport close
 * @reserved: zero
 * @phrase: reason phrase, NUL-terminated
 */
struct quic_connection_close {
	__u32	errcode;
	__u8	frame;
	__u8	reserved[3];
#define QUIC_CLOSE_PHRASE_BUFFER_SIZE 64
	__u8	phrase[QUIC_CLOSE_PHRASE_BUFFER_SIZE];
};

/**
 * union quic_event - payloads of the events, after the type byte
 * @update: QUIC_EVENT_STREAM_UPDATE
 * @max_data: QUIC_EVENT_STREAM_MAX_DATA
 * @close: QUIC_EVENT_CONNECTION_CLOSE
 * @info: QUIC_EVENT_CONNECTION_ID
 * @max_stream: QUIC_EVENT_STREAM_MAX_STREAM
 * @local_migration: QUIC_EVENT_CONNECTION_MIGRATION
 * @key_update_phase: QUIC_EVENT_KEY_UPDATE
 */
union quic_event {
	struct quic_stream_update	update;
	struct quic_stream_max_data	max_data;
	struct quic_connection_close	close;
	struct quic_connection_id_info	info;
	__u64				max_stream;
	__u8				local_migration;
	__u8				key_update_phase;
};

/**
 * struct quic_info - QUIC_SOCKOPT_INFO (getsockopt only)
 * @qi_version: QUIC_INFO_VERSION of the layout the kernel filled
 * @qi_state: the socket state, a TCP_* value as in &struct tcp_info
 * @qi_is_server: the server end of the connection
 * @qi_ecn: 0: ECN not in use, 1: testing, 2: capable, 3: validation failed
 * @qi_quic_version: the QUIC version in use (0x1: RFC 9000)
 * @qi_cipher: the cipher of the newest keys, a TLS_CIPHER_* value of
 *	<linux/tls.h>, 0 before any
 * @qi_cong_algo: an &enum quic_cong_algo value
 * @qi_key_phase: the current 1-RTT key phase bit
 * @qi_pmtu: the largest UDP payload the path takes now (datagram size)
 * @qi_streams_bidi: bidirectional streams open, both ends' together
 * @qi_streams_uni: unidirectional streams open, both ends' together
 * @qi_path_validating: a path validation is in progress
 * @qi_rtt_samples: an RTT sample was taken; else the RTT fields hold the
 *	initial estimate
 * @qi_pad: zero
 * @qi_srtt_us: smoothed RTT, microseconds (RFC 9002 5.3)
 * @qi_rttvar_us: RTT variation, microseconds
 * @qi_min_rtt_us: minimum RTT, microseconds
 * @qi_latest_rtt_us: the latest RTT sample, microseconds
 * @qi_cwnd: congestion window, bytes
 * @qi_ssthresh: slow start threshold, bytes (~0: none yet)
 * @qi_bytes_in_flight: bytes sent and not yet acknowledged or lost
 * @qi_pacing_rate: pacing rate, bytes per second (0: not paced)
 * @qi_pkts_sent: packets sent (a coalesced datagram counts each)
 * @qi_bytes_sent: bytes of those packets
 * @qi_pkts_rcvd: packets received and decrypted
 * @qi_bytes_rcvd: bytes of those packets
 * @qi_pkts_lost: ack-eliciting packets declared lost (RFC 9002 6.1)
 * @qi_bytes_lost: bytes of those packets
 * @qi_pkts_retrans: lost packets whose frames were queued again
 * @qi_spurious_losses: losses later found spurious (the packet was
 *	acknowledged after all)
 * @qi_ptos: probe timeouts that expired
 * @qi_cong_events: congestion events (losses or CE marks that reduced the
 *	window)
 *
 * getsockopt() fills the first optlen bytes (at most sizeof) and sets
 * optlen to what it filled, as TCP_INFO does: fields are only added at the
 * end, with a new @qi_version, so that a program built against an older
 * layout keeps working. Counters cover the connection's life.
 */
struct quic_info {
	__u8	qi_version;
	__u8	qi_state;
	__u8	qi_is_server;
	__u8	qi_ecn;
	__u32	qi_quic_version;
	__u32	qi_cipher;
	__u8	qi_cong_algo;
	__u8	qi_key_phase;
	__u8	qi_path_validating;
	__u8	qi_rtt_samples;
	__u32	qi_pmtu;
	__u32	qi_streams_bidi;
	__u32	qi_streams_uni;
	__u32	qi_pad;
	__u64	qi_srtt_us;
	__u64	qi_rttvar_us;
	__u64	qi_min_rtt_us;
	__u64	qi_latest_rtt_us;
	__u64	qi_cwnd;
	__u64	qi_ssthresh;
	__u64	qi_bytes_in_flight;
	__u64	qi_pacing_rate;
	__u64	qi_pkts_sent;
	__u64	qi_bytes_sent;
	__u64	qi_pkts_rcvd;
	__u64	qi_bytes_rcvd;
	__u64	qi_pkts_lost;
	__u64	qi_bytes_lost;
	__u64	qi_pkts_retrans;
	__u64	qi_spurious_losses;
	__u64	qi_ptos;
	__u64	qi_cong_events;
};

#define QUIC_INFO_VERSION	1

/* Transport error codes (RFC 9000, section 20.1). */
enum {
	QUIC_TRANSPORT_ERROR_NONE			= 0x00,
	QUIC_TRANSPORT_ERROR_INTERNAL			= 0x01,
	QUIC_TRANSPORT_ERROR_CONNECTION_REFUSED		= 0x02,
	QUIC_TRANSPORT_ERROR_FLOW_CONTROL		= 0x03,
	QUIC_TRANSPORT_ERROR_STREAM_LIMIT		= 0x04,
	QUIC_TRANSPORT_ERROR_STREAM_STATE		= 0x05,
	QUIC_TRANSPORT_ERROR_FINAL_SIZE			= 0x06,
	QUIC_TRANSPORT_ERROR_FRAME_ENCODING		= 0x07,
	QUIC_TRANSPORT_ERROR_TRANSPORT_PARAM		= 0x08,
	QUIC_TRANSPORT_ERROR_CONNECTION_ID_LIMIT	= 0x09,
	QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION		= 0x0a,
	QUIC_TRANSPORT_ERROR_INVALID_TOKEN		= 0x0b,
	QUIC_TRANSPORT_ERROR_APPLICATION		= 0x0c,
	QUIC_TRANSPORT_ERROR_CRYPTO_BUF_EXCEEDED	= 0x0d,
	QUIC_TRANSPORT_ERROR_KEY_UPDATE			= 0x0e,
	QUIC_TRANSPORT_ERROR_AEAD_LIMIT_REACHED		= 0x0f,
	QUIC_TRANSPORT_ERROR_NO_VIABLE_PATH		= 0x10,
	QUIC_TRANSPORT_ERROR_VERSION_NEGOTIATION	= 0x11,
	/* 0x0100-0x01ff: TLS alert, RFC 9001 section 4.8 */
	QUIC_TRANSPORT_ERROR_CRYPTO			= 0x0100,
};

/* quic_diag: the sock_diag handler of IPPROTO_QUIC (net/quic/diag.c).
 * A request names the protocol with the INET_DIAG_REQ_PROTOCOL attribute
 * (IPPROTO_QUIC does not fit sdiag_protocol); each socket's message
 * carries the inet_diag attributes asked for, INET_DIAG_INFO holding a
 * &struct quic_info, and the attribute below.
 */

/* An attribute type above the inet_diag ones, which may grow. */
#define QUIC_DIAG_CIDS		0x100

/**
 * struct quic_diag_cids - QUIC_DIAG_CIDS, a connection's connection IDs
 * @scid_len: bytes of @scid; 0 before the socket connects
 * @dcid_len: bytes of @dcid
 * @scid: our first connection ID, the one the peer first sent to
 * @dcid: the connection ID of the peer's that we send to now
 */
struct quic_diag_cids {
	__u8	scid_len;
	__u8	dcid_len;
	__u8	scid[20];
	__u8	dcid[20];
};

#endif /* _UAPI_LINUX_QUIC_H */
