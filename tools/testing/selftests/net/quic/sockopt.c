// SPDX-License-Identifier: GPL-2.0
/*
 * The connection-independent SOL_QUIC options (quic-api.rst, sections
 * 2.7, 5.6, 5.8, 5.10, 6, 7.1): defaults, set-then-get round trips, length
 * rules, bad pointers, value ranges and state rules, for both address
 * families and both socket types.
 *
 * Only what an unconnected socket can reach is tested here; the cases that
 * need connect(), listen() or accept() skip with a reason until those
 * exist.
 */

#define _GNU_SOURCE

#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/quic.h>
#include <linux/tls.h>

#include "kselftest_harness.h"
#include "quic_common.h"

/* Larger than any SOL_QUIC option accepts. */
#define HUGE_LEN	4097

/* Level SOL_QUIC, which nearly every call here uses. */
static int set_err(int fd, int name, const void *val, socklen_t len)
{
	return setopt_err(fd, SOL_QUIC, name, val, len);
}

static int get_err(int fd, int name, void *val, socklen_t *len)
{
	return getopt_err(fd, SOL_QUIC, name, val, len);
}

static struct quic_transport_param tp_get(int fd, int remote, int *err)
{
	struct quic_transport_param p = { .remote = remote };
	socklen_t len = sizeof(p);

	*err = get_err(fd, QUIC_SOCKOPT_TRANSPORT_PARAM, &p, &len);
	if (!*err && len != sizeof(p))
		*err = -1;
	return p;
}

static struct quic_config cfg_get(int fd, int *err)
{
	struct quic_config c;
	socklen_t len = sizeof(c);

	memset(&c, 0xa5, sizeof(c));
	*err = get_err(fd, QUIC_SOCKOPT_CONFIG, &c, &len);
	if (!*err && len != sizeof(c))
		*err = -1;
	return c;
}

FIXTURE(sockopt) {
	int fd;
};

FIXTURE_VARIANT(sockopt) {
	int family;
	int type;
};

#define QUIC_FIXTURE		sockopt
#define QUIC_VARIANTS_SOCK_TYPE
#include "quic_variants.h"

FIXTURE_SETUP(sockopt)
{
	self->fd = socket(variant->family, variant->type, IPPROTO_QUIC);
	ASSERT_GE(self->fd, 0) {
		TH_LOG("socket(IPPROTO_QUIC): %s", strerror(errno));
	}
}

FIXTURE_TEARDOWN(sockopt)
{
	if (self->fd >= 0)
		EXPECT_EQ(0, close(self->fd));
}

/* --- QUIC_SOCKOPT_EVENT --- */

TEST_F(sockopt, event_defaults_off)
{
	struct quic_event_option ev;
	socklen_t len;
	int t;

	for (t = QUIC_EVENT_STREAM_UPDATE; t < QUIC_EVENT_MAX; t++) {
		ev.type = t;
		ev.on = 0xff;
		len = sizeof(ev);
		ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_EVENT, &ev, &len));
		EXPECT_EQ(sizeof(ev), len);
		EXPECT_EQ(t, ev.type);
		EXPECT_EQ(0, ev.on) {
			TH_LOG("event %d on by default", t);
		}
	}
}

TEST_F(sockopt, event_round_trip)
{
	struct quic_event_option ev;
	socklen_t len;
	int t, u;

	/* Turn on each type alone and check that only it is on. */
	for (t = QUIC_EVENT_STREAM_UPDATE; t < QUIC_EVENT_MAX; t++) {
		ev.type = t;
		ev.on = 7;	/* any non-zero value means on */
		ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_EVENT, &ev,
				     sizeof(ev)));
		for (u = QUIC_EVENT_STREAM_UPDATE; u < QUIC_EVENT_MAX; u++) {
			ev.type = u;
			ev.on = 0xff;
			len = sizeof(ev);
			ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_EVENT, &ev,
					     &len));
			EXPECT_EQ(u == t, ev.on) {
				TH_LOG("set %d, read %d", t, u);
			}
		}
		ev.type = t;
		ev.on = 0;
		ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_EVENT, &ev,
				     sizeof(ev)));
		len = sizeof(ev);
		ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_EVENT, &ev, &len));
		EXPECT_EQ(0, ev.on);
	}
}

TEST_F(sockopt, event_bad_type)
{
	static const int types[] = { QUIC_EVENT_NONE, QUIC_EVENT_MAX, 11, 255 };
	struct quic_event_option ev;
	socklen_t len;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		ev.type = types[i];
		ev.on = 1;
		EXPECT_EQ(EINVAL, set_err(self->fd, QUIC_SOCKOPT_EVENT, &ev,
					  sizeof(ev))) {
			TH_LOG("set type %d", types[i]);
		}
		len = sizeof(ev);
		EXPECT_EQ(EINVAL, get_err(self->fd, QUIC_SOCKOPT_EVENT, &ev,
					  &len)) {
			TH_LOG("get type %d", types[i]);
		}
	}
}

TEST_F(sockopt, event_lengths)
{
	struct quic_event_option ev = { .type = QUIC_EVENT_KEY_UPDATE, .on = 1 };
	char big[HUGE_LEN] = {};
	socklen_t len;

	/* Zero bytes: the type reads as QUIC_EVENT_NONE. */
	EXPECT_EQ(EINVAL, set_err(self->fd, QUIC_SOCKOPT_EVENT, &ev, 0));
	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_EVENT, &ev, sizeof(ev)));
	/* One byte short: "on" reads as zero and turns the event off. */
	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_EVENT, &ev, 1));
	ev.on = 0xff;
	len = sizeof(ev);
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_EVENT, &ev, &len));
	EXPECT_EQ(0, ev.on);
	/* Longer than the struct: the excess is ignored. */
	big[0] = QUIC_EVENT_KEY_UPDATE;
	big[1] = 1;
	EXPECT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_EVENT, big, 64));
	EXPECT_EQ(EINVAL, set_err(self->fd, QUIC_SOCKOPT_EVENT, big,
				  sizeof(big)));
	EXPECT_EQ(EFAULT, set_err(self->fd, QUIC_SOCKOPT_EVENT, NULL,
				  sizeof(ev)));

	/* get: the result is truncated to the buffer; no buffer, no type. */
	len = 0;
	EXPECT_EQ(EINVAL, get_err(self->fd, QUIC_SOCKOPT_EVENT, &ev, &len));
	ev.type = QUIC_EVENT_KEY_UPDATE;
	ev.on = 0x5a;
	len = 1;
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_EVENT, &ev, &len));
	EXPECT_EQ(1, len);
	EXPECT_EQ(0x5a, ev.on);
	len = 64;
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_EVENT, big, &len));
	EXPECT_EQ(sizeof(ev), len);
	EXPECT_EQ(1, big[1]);
	len = sizeof(ev);
	EXPECT_EQ(EFAULT, get_err(self->fd, QUIC_SOCKOPT_EVENT, NULL, &len));
}

/* --- QUIC_SOCKOPT_CONFIG --- */

TEST_F(sockopt, config_defaults)
{
	struct quic_config want = { .initial_smoothed_rtt = 333000 };
	struct quic_config c;
	int err;

	c = cfg_get(self->fd, &err);
	ASSERT_EQ(0, err);
	EXPECT_EQ(0, memcmp(&want, &c, sizeof(c))) {
		TH_LOG("version %u plpmtud %u rtt %u cipher %u cong %u",
		       c.version, c.plpmtud_probe_interval,
		       c.initial_smoothed_rtt, c.payload_cipher_type,
		       c.congestion_control_algo);
	}
}

TEST_F(sockopt, config_round_trip)
{
	struct quic_config set = {
		.version = 0x0a0a0a0a,	/* not validated (quic-api.rst, 6) */
		.plpmtud_probe_interval = 5000000,
		.initial_smoothed_rtt = 1000,
		.payload_cipher_type = TLS_CIPHER_CHACHA20_POLY1305,
		.congestion_control_algo = QUIC_CONG_ALG_CUBIC,
		.validate_peer_address = 1,
		.stream_data_nodelay = 1,
		.receive_session_ticket = 5,
		.certificate_request = 2,
		.reserved = { 1, 2, 3 },
		.keepalive_probe_interval = 1500000,
	};
	struct quic_config c, zero = {};
	int err;

	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_CONFIG, &set, sizeof(set)));
	c = cfg_get(self->fd, &err);
	ASSERT_EQ(0, err);
	memset(set.reserved, 0, sizeof(set.reserved));	/* zero on output */
	EXPECT_EQ(0, memcmp(&set, &c, sizeof(c)));

	/* Zero fields leave the values unchanged; Reno can't come back. */
	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_CONFIG, &zero,
			     sizeof(zero)));
	c = cfg_get(self->fd, &err);
	ASSERT_EQ(0, err);
	EXPECT_EQ(0, memcmp(&set, &c, sizeof(c)));

	/* Upper bounds are accepted. */
	set.plpmtud_probe_interval = 0xffffffffu / 30;
	set.initial_smoothed_rtt = 6000000;
	set.payload_cipher_type = TLS_CIPHER_AES_GCM_128;
	set.keepalive_probe_interval = 0xffffffffu;
	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_CONFIG, &set, sizeof(set)));
	c = cfg_get(self->fd, &err);
	ASSERT_EQ(0, err);
	EXPECT_EQ(0, memcmp(&set, &c, sizeof(c)));
}

TEST_F(sockopt, config_bad_values)
{
	static const struct {
		const char *what;
		struct quic_config c;
	} bad[] = {
		{ "cipher 50", { .payload_cipher_type = 50 } },
		{ "cipher 55", { .payload_cipher_type = 55 } },
		{ "rtt 999", { .initial_smoothed_rtt = 999 } },
		{ "rtt 6000001", { .initial_smoothed_rtt = 6000001 } },
		{ "cong 2", { .congestion_control_algo = QUIC_CONG_ALG_MAX } },
		{ "cong 255", { .congestion_control_algo = 255 } },
		{ "plpmtud 4999999", { .plpmtud_probe_interval = 4999999 } },
		{ "plpmtud max+1",
		  { .plpmtud_probe_interval = 0xffffffffu / 30 + 1 } },
		{ "keepalive 1499999", { .keepalive_probe_interval = 1499999 } },
		/* One bad field rejects the whole call. */
		{ "good and bad", { .version = 2, .initial_smoothed_rtt = 1 } },
	};
	struct quic_config def, c;
	size_t i;
	int err;

	def = cfg_get(self->fd, &err);
	ASSERT_EQ(0, err);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(EINVAL, set_err(self->fd, QUIC_SOCKOPT_CONFIG,
					  &bad[i].c, sizeof(bad[i].c))) {
			TH_LOG("%s", bad[i].what);
		}
	}
	c = cfg_get(self->fd, &err);
	ASSERT_EQ(0, err);
	EXPECT_EQ(0, memcmp(&def, &c, sizeof(c)));
}

TEST_F(sockopt, config_lengths)
{
	struct quic_config set = {
		.version = 2,
		.keepalive_probe_interval = 0x01ffffff,
	};
	struct quic_config def, c;
	char big[HUGE_LEN] = {};
	socklen_t len;
	int err;

	def = cfg_get(self->fd, &err);
	ASSERT_EQ(0, err);
	/* Zero bytes: everything reads as zero, nothing changes. */
	EXPECT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_CONFIG, &set, 0));
	c = cfg_get(self->fd, &err);
	EXPECT_EQ(0, memcmp(&def, &c, sizeof(c)));
	/* One byte short: the keep-alive's top byte reads as zero. */
	EXPECT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_CONFIG, &set,
			     sizeof(set) - 1));
	c = cfg_get(self->fd, &err);
	EXPECT_EQ(2, c.version);
	EXPECT_EQ(0x00ffffff, c.keepalive_probe_interval);
	EXPECT_EQ(EINVAL, set_err(self->fd, QUIC_SOCKOPT_CONFIG, big,
				  sizeof(big)));
	EXPECT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_CONFIG, big, 4096));
	EXPECT_EQ(EFAULT, set_err(self->fd, QUIC_SOCKOPT_CONFIG, NULL,
				  sizeof(set)));

	/* get: truncated to the buffer. */
	len = 4;
	memset(&c, 0, sizeof(c));
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_CONFIG, &c, &len));
	EXPECT_EQ(4, len);
	EXPECT_EQ(2, c.version);
	EXPECT_EQ(0, c.initial_smoothed_rtt);
	len = 0;
	EXPECT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_CONFIG, &c, &len));
	EXPECT_EQ(0, len);
	len = 100;
	EXPECT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_CONFIG, big, &len));
	EXPECT_EQ(sizeof(c), len);
	len = sizeof(c);
	EXPECT_EQ(EFAULT, get_err(self->fd, QUIC_SOCKOPT_CONFIG, NULL, &len));
	EXPECT_EQ(EFAULT, get_err(self->fd, QUIC_SOCKOPT_CONFIG, &c, NULL));
	len = -1;
	EXPECT_EQ(EINVAL, get_err(self->fd, QUIC_SOCKOPT_CONFIG, &c, &len));
}

/* --- QUIC_SOCKOPT_TRANSPORT_PARAM --- */

TEST_F(sockopt, tparam_defaults)
{
	struct quic_transport_param want = {
		.active_connection_id_limit = 7,
		.ack_delay_exponent = 3,
		.max_udp_payload_size = 65527,
		.max_idle_timeout = 30000000,
		.max_ack_delay = 25000,
		.max_streams_bidi = 100,
		.max_streams_uni = 100,
		.max_data = 65535 * 32,
		.max_stream_data_bidi_local = 65535 * 16,
		.max_stream_data_bidi_remote = 65535 * 16,
		.max_stream_data_uni = 65535 * 16,
	};
	struct quic_transport_param p, zero = { .remote = 1 };
	int err;

	p = tp_get(self->fd, 0, &err);
	ASSERT_EQ(0, err);
	EXPECT_EQ(0, memcmp(&want, &p, sizeof(p))) {
		TH_LOG("cid limit %u ade %u udp %u idle %u ack %u streams %u/%u",
		       p.active_connection_id_limit, p.ack_delay_exponent,
		       p.max_udp_payload_size, p.max_idle_timeout,
		       p.max_ack_delay, p.max_streams_bidi, p.max_streams_uni);
	}
	/* The peer's read as zero until known; the selector is echoed. */
	p = tp_get(self->fd, 1, &err);
	ASSERT_EQ(0, err);
	EXPECT_EQ(0, memcmp(&zero, &p, sizeof(p)));
}

TEST_F(sockopt, tparam_round_trip)
{
	struct quic_transport_param set = {
		.disable_active_migration = 1,
		.grease_quic_bit = 1,
		.disable_1rtt_encryption = 1,
		.disable_compatible_version = 1,
		.active_connection_id_limit = 8,
		.ack_delay_exponent = 20,
		.max_datagram_frame_size = 1200,
		.max_udp_payload_size = 1200,
		.max_idle_timeout = 1000000,
		.max_ack_delay = 16383999,
		.max_streams_bidi = 4096,
		.max_streams_uni = 1,
		.max_data = 536870911,
		.max_stream_data_bidi_local = 268435455,
		.max_stream_data_bidi_remote = 1200,
		.max_stream_data_uni = 1200,
	};
	struct quic_transport_param p, zero = {};
	int err;

	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_TRANSPORT_PARAM, &set,
			     sizeof(set)));
	p = tp_get(self->fd, 0, &err);
	ASSERT_EQ(0, err);
	EXPECT_EQ(0, memcmp(&set, &p, sizeof(p)));

	/* Zero fields leave values unchanged; flags stay on. */
	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_TRANSPORT_PARAM, &zero,
			     sizeof(zero)));
	p = tp_get(self->fd, 0, &err);
	ASSERT_EQ(0, err);
	EXPECT_EQ(0, memcmp(&set, &p, sizeof(p)));
	/* The peer's are untouched by a local set. */
	p = tp_get(self->fd, 1, &err);
	ASSERT_EQ(0, err);
	EXPECT_EQ(0, p.max_data);
}

TEST_F(sockopt, tparam_bad_values)
{
	static const struct {
		const char *what;
		struct quic_transport_param p;
	} bad[] = {
		{ "udp 1199", { .max_udp_payload_size = 1199 } },
		{ "udp 65528", { .max_udp_payload_size = 65528 } },
		{ "ade 21", { .ack_delay_exponent = 21 } },
		{ "ack delay 16384000", { .max_ack_delay = 16384000 } },
		{ "cid limit 1", { .active_connection_id_limit = 1 } },
		{ "cid limit 9", { .active_connection_id_limit = 9 } },
		{ "idle 999999", { .max_idle_timeout = 999999 } },
		{ "datagram 1199", { .max_datagram_frame_size = 1199 } },
		{ "max_data 1199", { .max_data = 1199 } },
		{ "max_data 536870912", { .max_data = 536870912 } },
		{ "bidi_local 1199", { .max_stream_data_bidi_local = 1199 } },
		{ "bidi_local 268435456",
		  { .max_stream_data_bidi_local = 268435456 } },
		{ "bidi_remote 268435456",
		  { .max_stream_data_bidi_remote = 268435456 } },
		{ "uni 1199", { .max_stream_data_uni = 1199 } },
		{ "streams_bidi 4097", { .max_streams_bidi = 4097 } },
		{ "streams_uni 4097", { .max_streams_uni = 4097 } },
		{ "good and bad", { .max_data = 4096, .max_streams_uni = 5000 } },
	};
	struct quic_transport_param def, p;
	size_t i;
	int err;

	def = tp_get(self->fd, 0, &err);
	ASSERT_EQ(0, err);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(EINVAL, set_err(self->fd,
					  QUIC_SOCKOPT_TRANSPORT_PARAM,
					  &bad[i].p, sizeof(bad[i].p))) {
			TH_LOG("%s", bad[i].what);
		}
	}
	p = tp_get(self->fd, 0, &err);
	ASSERT_EQ(0, err);
	EXPECT_EQ(0, memcmp(&def, &p, sizeof(p)));
}

/* remote = 1 is for 0-RTT: only while ESTABLISHING (after connect()). */
TEST_F(sockopt, tparam_remote_needs_establishing)
{
	struct quic_transport_param p = { .remote = 1, .max_data = 4096 };
	int err;

	EXPECT_EQ(EINVAL, set_err(self->fd, QUIC_SOCKOPT_TRANSPORT_PARAM, &p,
				  sizeof(p)));
	p = tp_get(self->fd, 1, &err);
	ASSERT_EQ(0, err);
	EXPECT_EQ(0, p.max_data);
}

TEST_F(sockopt, tparam_lengths)
{
	struct quic_transport_param p = { .max_stream_data_uni = 0x100000 };
	char big[HUGE_LEN] = {};
	socklen_t len;
	int err;

	EXPECT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_TRANSPORT_PARAM, &p, 0));
	/* One byte short: the top byte of the last field reads as zero. */
	p.max_stream_data_uni = 0x0100000000100000ull;
	EXPECT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_TRANSPORT_PARAM, &p,
			     sizeof(p) - 1));
	p = tp_get(self->fd, 0, &err);
	ASSERT_EQ(0, err);
	EXPECT_EQ(0x100000, p.max_stream_data_uni);
	EXPECT_EQ(EINVAL, set_err(self->fd, QUIC_SOCKOPT_TRANSPORT_PARAM, big,
				  sizeof(big)));
	EXPECT_EQ(EFAULT, set_err(self->fd, QUIC_SOCKOPT_TRANSPORT_PARAM, NULL,
				  sizeof(p)));

	/* get: truncated to the buffer, which also carries the selector. */
	len = 0;
	EXPECT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_TRANSPORT_PARAM, &p, &len));
	EXPECT_EQ(0, len);
	memset(&p, 0, sizeof(p));
	len = 8;
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_TRANSPORT_PARAM, &p, &len));
	EXPECT_EQ(8, len);
	EXPECT_EQ(7, p.active_connection_id_limit);
	EXPECT_EQ(0, p.max_udp_payload_size);
	len = 200;
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_TRANSPORT_PARAM, big,
			     &len));
	EXPECT_EQ(sizeof(p), len);
	len = sizeof(p);
	EXPECT_EQ(EFAULT, get_err(self->fd, QUIC_SOCKOPT_TRANSPORT_PARAM, NULL,
				  &len));
}

/* --- QUIC_SOCKOPT_TRANSPORT_PARAM_EXT --- */

TEST_F(sockopt, tparam_ext_needs_establishing)
{
	char buf[256];
	socklen_t len = sizeof(buf);

	/* Allowed only in ESTABLISHING (quic-api.rst, 4.3 a). */
	EXPECT_EQ(EINVAL, get_err(self->fd, QUIC_SOCKOPT_TRANSPORT_PARAM_EXT,
				  buf, &len));
	/* Nor can the peer's be applied outside a handshake. */
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(EINVAL, set_err(self->fd, QUIC_SOCKOPT_TRANSPORT_PARAM_EXT,
				  buf, 16));
}

/* --- QUIC_SOCKOPT_ALPN --- */

static int alpn_get(int fd, char *buf, socklen_t room, socklen_t *len)
{
	*len = room;
	memset(buf, 0, room);
	return get_err(fd, QUIC_SOCKOPT_ALPN, buf, len);
}

TEST_F(sockopt, alpn_default_empty)
{
	char buf[8];
	socklen_t len;

	ASSERT_EQ(0, alpn_get(self->fd, buf, sizeof(buf), &len));
	EXPECT_EQ(0, len);
	ASSERT_EQ(0, alpn_get(self->fd, buf, 0, &len));
	EXPECT_EQ(0, len);
}

TEST_F(sockopt, alpn_round_trip)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "h3", "h3" },
		{ "h3,smb", "h3,smb" },
		{ "h3, smb,  x", "h3,smb,x" },
		{ " a", "a" },
	};
	char buf[256], max[129];
	socklen_t len;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_ALPN, cases[i].in,
				     strlen(cases[i].in)));
		ASSERT_EQ(0, alpn_get(self->fd, buf, sizeof(buf), &len));
		EXPECT_EQ(strlen(cases[i].out), len);
		EXPECT_EQ(0, memcmp(buf, cases[i].out, len)) {
			TH_LOG("%s read back as %.*s", cases[i].in, (int)len,
			       buf);
		}
	}

	/* The buffer must hold the wire form: one byte more than the text. */
	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_ALPN, "h3,smb", 6));
	EXPECT_EQ(EINVAL, alpn_get(self->fd, buf, 6, &len));
	ASSERT_EQ(0, alpn_get(self->fd, buf, 7, &len));
	EXPECT_EQ(6, len);
	EXPECT_EQ(0, memcmp(buf, "h3,smb", 6));

	/* A NUL ends the string. */
	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_ALPN, "h2", 3));
	ASSERT_EQ(0, alpn_get(self->fd, buf, sizeof(buf), &len));
	EXPECT_EQ(2, len);

	/* 128 bytes is the limit. */
	memset(max, 'x', sizeof(max));
	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_ALPN, max, 128));
	ASSERT_EQ(0, alpn_get(self->fd, buf, 129, &len));
	EXPECT_EQ(128, len);
	EXPECT_EQ(EINVAL, alpn_get(self->fd, buf, 128, &len));
	EXPECT_EQ(EINVAL, set_err(self->fd, QUIC_SOCKOPT_ALPN, max, 129));
}

TEST_F(sockopt, alpn_bad)
{
	static const char *const bad[] = { "", ",", "a,", ",a", "a,,b", "  ",
					   "a, ", "\0a" };
	char big[HUGE_LEN], buf[16];
	socklen_t len;
	size_t i;

	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_ALPN, "ok", 2));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(EINVAL, set_err(self->fd, QUIC_SOCKOPT_ALPN, bad[i],
					  strlen(bad[i]) ?: 1)) {
			TH_LOG("\"%s\"", bad[i]);
		}
	}
	EXPECT_EQ(EINVAL, set_err(self->fd, QUIC_SOCKOPT_ALPN, "a", 0));
	memset(big, 'a', sizeof(big));
	EXPECT_EQ(EINVAL, set_err(self->fd, QUIC_SOCKOPT_ALPN, big,
				  sizeof(big)));
	EXPECT_EQ(EFAULT, set_err(self->fd, QUIC_SOCKOPT_ALPN, NULL, 2));
	/* Nothing of that was applied. */
	ASSERT_EQ(0, alpn_get(self->fd, buf, sizeof(buf), &len));
	EXPECT_EQ(2, len);
	EXPECT_EQ(0, memcmp(buf, "ok", 2));
	len = sizeof(buf);
	EXPECT_EQ(EFAULT, get_err(self->fd, QUIC_SOCKOPT_ALPN, NULL, &len));
}

TEST_F(sockopt, alpn_after_listen)
{
	if (listen(self->fd, 8)) {
		ASSERT_EQ(EOPNOTSUPP, errno);
		SKIP(return, "listen() is not implemented yet");
	}
	EXPECT_EQ(EINVAL, set_err(self->fd, QUIC_SOCKOPT_ALPN, "h3", 2));
}

/* --- QUIC_SOCKOPT_CONNECTION_CLOSE --- */

TEST_F(sockopt, close_default)
{
	struct quic_connection_close c, zero = {};
	socklen_t len = sizeof(c);

	memset(&c, 0xa5, sizeof(c));
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_CONNECTION_CLOSE, &c,
			     &len));
	EXPECT_EQ(sizeof(c), len);
	EXPECT_EQ(0, memcmp(&zero, &c, sizeof(c)));
}

TEST_F(sockopt, close_round_trip)
{
	struct quic_connection_close set = {
		.errcode = 0x1234,
		.frame = 0x1c,
		.reserved = { 1, 2, 3 },
	};
	struct quic_connection_close c;
	socklen_t len;

	/* A full, unterminated phrase: 63 characters and a NUL are kept. */
	memset(set.phrase, 'p', sizeof(set.phrase));
	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_CONNECTION_CLOSE, &set,
			     sizeof(set)));
	memset(&c, 0xa5, sizeof(c));
	len = sizeof(c);
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_CONNECTION_CLOSE, &c,
			     &len));
	EXPECT_EQ(0x1234, c.errcode);
	EXPECT_EQ(0, c.frame);	/* ignored and reset to 0 */
	EXPECT_EQ(0, c.reserved[0] | c.reserved[1] | c.reserved[2]);
	EXPECT_EQ(63, strnlen((char *)c.phrase, sizeof(c.phrase)));

	/* A shorter phrase replaces it entirely. */
	memset(&set, 0, sizeof(set));
	set.errcode = 7;
	strcpy((char *)set.phrase, "bye");
	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_CONNECTION_CLOSE, &set,
			     sizeof(set)));
	len = sizeof(c);
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_CONNECTION_CLOSE, &c,
			     &len));
	EXPECT_EQ(7, c.errcode);
	EXPECT_STREQ("bye", (char *)c.phrase);
	EXPECT_EQ(0, c.phrase[63]);
}

TEST_F(sockopt, close_lengths)
{
	struct quic_connection_close set = { .errcode = 9 };
	struct quic_connection_close c;
	char big[HUGE_LEN] = {};
	socklen_t len;

	memset(set.phrase, 'q', sizeof(set.phrase));
	/* One byte short: the missing last phrase byte reads as NUL. */
	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_CONNECTION_CLOSE, &set,
			     sizeof(set) - 1));
	len = sizeof(c);
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_CONNECTION_CLOSE, &c,
			     &len));
	EXPECT_EQ(9, c.errcode);
	EXPECT_EQ(63, strnlen((char *)c.phrase, sizeof(c.phrase)));
	/* Zero bytes: the stored information is cleared. */
	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_CONNECTION_CLOSE, &set, 0));
	len = sizeof(c);
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_CONNECTION_CLOSE, &c,
			     &len));
	EXPECT_EQ(0, c.errcode);
	EXPECT_EQ(0, c.phrase[0]);
	EXPECT_EQ(EINVAL, set_err(self->fd, QUIC_SOCKOPT_CONNECTION_CLOSE, big,
				  sizeof(big)));
	EXPECT_EQ(EFAULT, set_err(self->fd, QUIC_SOCKOPT_CONNECTION_CLOSE,
				  NULL, sizeof(set)));

	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_CONNECTION_CLOSE, &set,
			     sizeof(set)));
	len = 4;
	memset(&c, 0, sizeof(c));
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_CONNECTION_CLOSE, &c,
			     &len));
	EXPECT_EQ(4, len);
	EXPECT_EQ(9, c.errcode);
	EXPECT_EQ(0, c.phrase[0]);
	len = 100;
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_CONNECTION_CLOSE, big,
			     &len));
	EXPECT_EQ(sizeof(c), len);
	len = sizeof(c);
	EXPECT_EQ(EFAULT, get_err(self->fd, QUIC_SOCKOPT_CONNECTION_CLOSE,
				  NULL, &len));
}

/* --- QUIC_SOCKOPT_TOKEN (client side) --- */

/* libquic's role probe: a 128-byte get succeeds on a client socket. */
TEST_F(sockopt, token_client_role_probe)
{
	char buf[128];
	socklen_t len = sizeof(buf);

	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_TOKEN, buf, &len));
	EXPECT_EQ(0, len);
	len = 0;
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_TOKEN, buf, &len));
	EXPECT_EQ(0, len);
}

TEST_F(sockopt, token_round_trip)
{
	char tok[121], buf[128];
	socklen_t len;
	int i;

	for (i = 0; i < (int)sizeof(tok); i++)
		tok[i] = i * 7 + 1;
	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_TOKEN, tok, 1));
	len = sizeof(buf);
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_TOKEN, buf, &len));
	EXPECT_EQ(1, len);
	EXPECT_EQ(tok[0], buf[0]);

	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_TOKEN, tok, 120));
	len = 120;
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_TOKEN, buf, &len));
	EXPECT_EQ(120, len);
	EXPECT_EQ(0, memcmp(tok, buf, 120));
	/* A buffer smaller than the token. */
	len = 119;
	EXPECT_EQ(EINVAL, get_err(self->fd, QUIC_SOCKOPT_TOKEN, buf, &len));
	len = sizeof(buf);
	EXPECT_EQ(EFAULT, get_err(self->fd, QUIC_SOCKOPT_TOKEN, NULL, &len));
}

TEST_F(sockopt, token_bad_lengths)
{
	char tok[HUGE_LEN] = { 1 }, buf[128];
	socklen_t len;

	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_TOKEN, "ab", 2));
	EXPECT_EQ(EINVAL, set_err(self->fd, QUIC_SOCKOPT_TOKEN, tok, 0));
	EXPECT_EQ(EINVAL, set_err(self->fd, QUIC_SOCKOPT_TOKEN, tok, 121));
	EXPECT_EQ(EINVAL, set_err(self->fd, QUIC_SOCKOPT_TOKEN, tok,
				  sizeof(tok)));
	EXPECT_EQ(EFAULT, set_err(self->fd, QUIC_SOCKOPT_TOKEN, NULL, 8));
	len = sizeof(buf);
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_TOKEN, buf, &len));
	EXPECT_EQ(2, len);
	EXPECT_EQ(0, memcmp(buf, "ab", 2));
}

/* --- QUIC_SOCKOPT_SESSION_TICKET (client side) --- */

TEST_F(sockopt, ticket_client)
{
	char t[HUGE_LEN], buf[HUGE_LEN];
	socklen_t len;
	int i;

	for (i = 0; i < (int)sizeof(t); i++)
		t[i] = i ^ 0x5a;
	len = sizeof(buf);
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_SESSION_TICKET, buf, &len));
	EXPECT_EQ(0, len);

	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_SESSION_TICKET, t, 64));
	len = sizeof(buf);
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_SESSION_TICKET, buf, &len));
	EXPECT_EQ(64, len);
	EXPECT_EQ(0, memcmp(t, buf, 64));
	len = 63;
	EXPECT_EQ(EINVAL, get_err(self->fd, QUIC_SOCKOPT_SESSION_TICKET, buf,
				  &len));

	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_SESSION_TICKET, t, 4096));
	len = 4096;
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_SESSION_TICKET, buf, &len));
	EXPECT_EQ(4096, len);
	EXPECT_EQ(0, memcmp(t, buf, 4096));

	EXPECT_EQ(EINVAL, set_err(self->fd, QUIC_SOCKOPT_SESSION_TICKET, t, 0));
	EXPECT_EQ(EINVAL, set_err(self->fd, QUIC_SOCKOPT_SESSION_TICKET, t,
				  63));
	EXPECT_EQ(EINVAL, set_err(self->fd, QUIC_SOCKOPT_SESSION_TICKET, t,
				  sizeof(t)));
	EXPECT_EQ(EFAULT, set_err(self->fd, QUIC_SOCKOPT_SESSION_TICKET, NULL,
				  64));
	len = sizeof(buf);
	EXPECT_EQ(EFAULT, get_err(self->fd, QUIC_SOCKOPT_SESSION_TICKET, NULL,
				  &len));
	/* The failed sets left the stored ticket alone. */
	len = sizeof(buf);
	ASSERT_EQ(0, get_err(self->fd, QUIC_SOCKOPT_SESSION_TICKET, buf, &len));
	EXPECT_EQ(4096, len);
}

/* --- what needs a connection --- */

TEST_F(sockopt, server_role_needs_accept)
{
	char buf[128];
	socklen_t len = sizeof(buf);

	/* Server-role TOKEN/SESSION_TICKET rules need listen()/accept(). */
	if (listen(self->fd, 8)) {
		ASSERT_EQ(EOPNOTSUPP, errno);
		SKIP(return, "listen() is not implemented yet");
	}
	/* A listener is a server: the role probe fails (section 7.1). */
	EXPECT_EQ(EINVAL, get_err(self->fd, QUIC_SOCKOPT_TOKEN, buf, &len));
	len = sizeof(buf);
	EXPECT_EQ(EPIPE, get_err(self->fd, QUIC_SOCKOPT_SESSION_TICKET, buf,
				 &len));
}

TEST_F(sockopt, options_are_per_socket)
{
	struct quic_event_option ev = { .type = QUIC_EVENT_NEW_TOKEN, .on = 1 };
	char buf[16];
	socklen_t len;
	int fd;

	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_EVENT, &ev, sizeof(ev)));
	ASSERT_EQ(0, set_err(self->fd, QUIC_SOCKOPT_ALPN, "h3", 2));
	fd = socket(variant->family, variant->type, IPPROTO_QUIC);
	ASSERT_GE(fd, 0);
	ev.on = 1;
	len = sizeof(ev);
	ASSERT_EQ(0, get_err(fd, QUIC_SOCKOPT_EVENT, &ev, &len));
	EXPECT_EQ(0, ev.on);
	len = sizeof(buf);
	ASSERT_EQ(0, get_err(fd, QUIC_SOCKOPT_ALPN, buf, &len));
	EXPECT_EQ(0, len);
	EXPECT_EQ(0, close(fd));
}

TEST_HARNESS_MAIN
