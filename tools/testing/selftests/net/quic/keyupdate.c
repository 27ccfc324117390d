// SPDX-License-Identifier: GPL-2.0
/*
 * Key updates (RFC 9001 section 6, quic-api.rst 5.9) between two kernel
 * QUIC sockets: QUIC_SOCKOPT_KEY_UPDATE flips the sender's key phase, the
 * peer follows and reports QUIC_EVENT_KEY_UPDATE with the new phase, data
 * keeps flowing both ways, and a second update before the first is
 * answered is refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <netinet/quic.h>

#include "kselftest_harness.h"
#include "quic_common.h"
#include "quic_conn_common.h"

#define PSK_FILE	"/tmp/quic_keyupdate_test.psk"
#define MSG_LEN		16384

static unsigned char pattern(size_t i, int round)
{
	return (unsigned char)(i * 11 + round);
}

/* What read_stream() saw besides the data. */
struct seen {
	int key_updates;	/* QUIC_EVENT_KEY_UPDATE events */
	int phase;		/* the phase of the last one */
	int64_t sid;		/* the stream the data came on */
};

/* Read one stream to its FIN, MSG_LEN bytes of round @round; events read
 * on the way are noted in @s. 0, or -1 on an error or a bad byte.
 */
static int read_stream(int fd, int round, struct seen *s)
{
	static unsigned char buf[MSG_LEN + 1];
	char cbuf[CMSG_SPACE(sizeof(struct quic_stream_info))];
	struct quic_stream_info *si;
	struct cmsghdr *cm;
	struct msghdr m;
	struct iovec iov;
	size_t got = 0, i;
	ssize_t n;

	for (;;) {
		iov.iov_base = buf;
		iov.iov_len = sizeof(buf);
		memset(&m, 0, sizeof(m));
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		n = recvmsg(fd, &m, 0);
		if (n < 0)
			return -1;
		if (m.msg_flags & MSG_QUIC_NOTIFICATION) {
			if (n == 2 && buf[0] == QUIC_EVENT_KEY_UPDATE) {
				s->key_updates++;
				s->phase = buf[1];
			}
			continue;
		}
		if (got + n > MSG_LEN)
			return -1;
		for (i = 0; i < (size_t)n; i++)
			if (buf[i] != pattern(got + i, round))
				return -1;
		got += n;
		cm = CMSG_FIRSTHDR(&m);
		if (!cm || cm->cmsg_level != SOL_QUIC ||
		    cm->cmsg_type != QUIC_STREAM_INFO)
			return -1;
		si = (struct quic_stream_info *)CMSG_DATA(cm);
		s->sid = si->stream_id;
		if (si->stream_flags & MSG_QUIC_STREAM_FIN)
			break;
	}
	return got == MSG_LEN ? 0 : -1;
}

static int send_stream(int fd, int64_t sid, uint32_t flags, int round)
{
	static unsigned char buf[MSG_LEN];
	size_t i;

	for (i = 0; i < MSG_LEN; i++)
		buf[i] = pattern(i, round);
	return quic_sendmsg(fd, buf, MSG_LEN, sid, flags) == MSG_LEN ? 0 : -1;
}

FIXTURE(ku) {
	int cfd;
	int sfd;
};

FIXTURE_VARIANT(ku) {
	int family;
};

#define QUIC_FIXTURE		ku
#define QUIC_VARIANTS_FAMILY
#include "quic_variants.h"

FIXTURE_SETUP(ku)
{
	ASSERT_EQ(0, quic_pair_write_psk(PSK_FILE));
	ASSERT_EQ(0, quic_pair_open(variant->family, PSK_FILE, NULL,
				    &self->cfd, &self->sfd));
	ASSERT_EQ(0, quic_pair_event(self->cfd, QUIC_EVENT_KEY_UPDATE, 1));
	ASSERT_EQ(0, quic_pair_event(self->sfd, QUIC_EVENT_KEY_UPDATE, 1));
}

FIXTURE_TEARDOWN(ku)
{
	close(self->cfd);
	close(self->sfd);
	unlink(PSK_FILE);
}

/* One exchange on a new client stream: MSG_LEN up, MSG_LEN back. */
static void exchange(struct __test_metadata *_metadata, int cfd, int sfd,
		     int round, struct seen *cs, struct seen *ss)
{
	ASSERT_EQ(0, send_stream(cfd, -1, MSG_QUIC_STREAM_NEW |
				 MSG_QUIC_STREAM_FIN, round));
	ASSERT_EQ(0, read_stream(sfd, round, ss));
	ASSERT_EQ(0, send_stream(sfd, ss->sid, MSG_QUIC_STREAM_FIN, round));
	ASSERT_EQ(0, read_stream(cfd, round, cs));
}

static int key_update(int fd)
{
	return setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_KEY_UPDATE, NULL, 0) ?
	       errno : 0;
}

/* Client-initiated, twice, then server-initiated: each time the peer
 * follows, reports the new phase once, and the data is intact.
 */
TEST_F(ku, both_ways)
{
	struct seen cs = {}, ss = {};

	exchange(_metadata, self->cfd, self->sfd, 0, &cs, &ss);
	EXPECT_EQ(0, ss.key_updates);

	EXPECT_EQ(0, key_update(self->cfd));
	/* Not answered yet: a second one waits. */
	EXPECT_EQ(EINVAL, key_update(self->cfd));
	exchange(_metadata, self->cfd, self->sfd, 1, &cs, &ss);
	EXPECT_EQ(1, ss.key_updates);
	EXPECT_EQ(1, ss.phase);
	EXPECT_EQ(0, cs.key_updates);	/* none for our own update */

	EXPECT_EQ(0, key_update(self->cfd));
	exchange(_metadata, self->cfd, self->sfd, 2, &cs, &ss);
	EXPECT_EQ(2, ss.key_updates);
	EXPECT_EQ(0, ss.phase);

	EXPECT_EQ(0, key_update(self->sfd));
	exchange(_metadata, self->cfd, self->sfd, 3, &cs, &ss);
	EXPECT_EQ(1, cs.key_updates);
	EXPECT_EQ(1, cs.phase);
	EXPECT_EQ(2, ss.key_updates);
}

/* Only a connection can update its keys (quic-api.rst 6). */
TEST_F(ku, needs_connection)
{
	int fd = socket(variant->family, SOCK_DGRAM, IPPROTO_QUIC);

	ASSERT_LE(0, fd);
	EXPECT_EQ(EPIPE, key_update(fd));
	EXPECT_EQ(0, close(fd));
	/* A closed connection neither. */
	EXPECT_EQ(0, shutdown(self->cfd, SHUT_RDWR));
	EXPECT_EQ(EPIPE, key_update(self->cfd));
}

TEST_HARNESS_MAIN
