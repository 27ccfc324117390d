// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: the ALPN list of a client's ClientHello (see alpn.h).
 *
 * The ClientHello (RFC 8446 4.1.2) is read as far as its ALPN extension
 * (RFC 7301, type 16) and no further. A length that points past the end
 * its enclosing length allows makes the message malformed; running out of
 * bytes inside lengths that are still consistent only means that the
 * message goes on in a later packet. QUIC forbids the TLS middlebox
 * compatibility mode (RFC 9001 8.4), so the legacy session ID is empty.
 */

#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include "alpn.h"
#include "export.h"
#include "frame.h"
#include "varint.h"

#define QUIC_ALPN_CLIENT_HELLO		1	/* HandshakeType client_hello */
#define QUIC_ALPN_EXT_ALPN		16	/* ExtensionType */
#define QUIC_ALPN_HS_HDR_LEN		4	/* type, uint24 length */
#define QUIC_ALPN_RANDOM_LEN		32

/* A cursor over a message that its lengths say has @body bytes left, of
 * which @left have arrived.
 */
struct quic_alpn_rd {
	const u8 *p;
	u32 left;
	u32 body;
};

/* Step over @n bytes: -EBADMSG if the lengths do not allow them, -EAGAIN
 * if they have not arrived.
 */
static int quic_alpn_skip(struct quic_alpn_rd *r, u32 n, const u8 **at)
{
	if (n > r->body)
		return -EBADMSG;
	if (n > r->left)
		return -EAGAIN;
	if (at)
		*at = r->p;
	r->p += n;
	r->left -= n;
	r->body -= n;
	return 0;
}

static int quic_alpn_uint(struct quic_alpn_rd *r, u32 size, u32 *v)
{
	const u8 *b;
	int err;

	err = quic_alpn_skip(r, size, &b);
	if (err)
		return err;
	*v = 0;
	while (size--)
		*v = (*v << 8) | *b++;
	return 0;
}

/* Step over a vector with a @size-byte length of at least @min bytes. */
static int quic_alpn_vector(struct quic_alpn_rd *r, u32 size, u32 min)
{
	u32 n;
	int err;

	err = quic_alpn_uint(r, size, &n);
	if (err)
		return err;
	if (n < min)
		return -EBADMSG;
	return quic_alpn_skip(r, n, NULL);
}

/* ProtocolNameList: a 2-byte length, then names of 1 to 255 bytes. */
static int quic_alpn_ext(const u8 *d, u32 len, const u8 **list,
			 u32 *list_len)
{
	u32 n, i;

	if (len < 2)
		return -EBADMSG;
	n = (d[0] << 8) | d[1];
	if (n + 2 != len || n < 2 || n > QUIC_ALPN_HELLO_MAX_LIST)
		return -EBADMSG;
	d += 2;
	for (i = 0; i < n; i += 1 + d[i])
		if (!d[i] || i + 1 + d[i] > n)
			return -EBADMSG;
	*list = d;
	*list_len = n;
	return QUIC_ALPN_HELLO_LIST;
}

static int quic_alpn_body(struct quic_alpn_rd *r, const u8 **list,
			  u32 *list_len)
{
	u32 sid_len, exts_len, type, len, count = 0;
	const u8 *d;
	int err;

	/* legacy_version, random */
	err = quic_alpn_skip(r, 2 + QUIC_ALPN_RANDOM_LEN, NULL);
	if (!err)
		err = quic_alpn_uint(r, 1, &sid_len);
	if (!err && sid_len)
		return -EBADMSG;
	/* cipher_suites<2..2^16-2>, legacy_compression_methods<1..2^8-1> */
	if (!err)
		err = quic_alpn_vector(r, 2, 2);
	if (!err)
		err = quic_alpn_vector(r, 1, 1);
	if (!err)
		err = quic_alpn_uint(r, 2, &exts_len);
	if (err)
		return err;
	if (exts_len != r->body)
		return -EBADMSG;
	while (r->body) {
		if (++count > QUIC_ALPN_HELLO_MAX_EXTS)
			return -EBADMSG;
		err = quic_alpn_uint(r, 2, &type);
		if (!err)
			err = quic_alpn_uint(r, 2, &len);
		if (!err)
			err = quic_alpn_skip(r, len, &d);
		if (err)
			return err;
		if (type == QUIC_ALPN_EXT_ALPN)
			return quic_alpn_ext(d, len, list, list_len);
	}
	return QUIC_ALPN_HELLO_NONE;
}

/**
 * quic_alpn_client_hello() - find the ALPN list of a ClientHello
 * @msg: the handshake message, from its type byte; it may stop short
 * @len: bytes at @msg
 * @list: set to the ProtocolNameList (inside @msg) when one is found
 * @list_len: set to its length, 2 to QUIC_ALPN_HELLO_MAX_LIST
 *
 * Return: an enum quic_alpn_hello, or -EBADMSG for a malformed message:
 * not a ClientHello, a legacy session ID, a length inconsistent with
 * another, more than QUIC_ALPN_HELLO_MAX_EXTS extensions, or an ALPN
 * extension that is not a valid list of at most
 * QUIC_ALPN_HELLO_MAX_LIST bytes.
 */
int quic_alpn_client_hello(const u8 *msg, u32 len, const u8 **list,
			   u32 *list_len)
{
	struct quic_alpn_rd r;
	int err;

	if (len < QUIC_ALPN_HS_HDR_LEN)
		return QUIC_ALPN_HELLO_UNKNOWN;
	if (msg[0] != QUIC_ALPN_CLIENT_HELLO)
		return -EBADMSG;
	r.body = (msg[1] << 16) | (msg[2] << 8) | msg[3];
	r.p = msg + QUIC_ALPN_HS_HDR_LEN;
	r.left = min(len - QUIC_ALPN_HS_HDR_LEN, r.body);
	err = quic_alpn_body(&r, list, list_len);
	return err == -EAGAIN ? QUIC_ALPN_HELLO_UNKNOWN : err;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_alpn_client_hello);

/**
 * quic_alpn_initial_frames() - find the ALPN list in a client's Initial
 * @frames: the decrypted payload of the Initial
 * @len: its length
 * @list: as for quic_alpn_client_hello()
 * @list_len: as for quic_alpn_client_hello()
 *
 * Walks PADDING, PING and CRYPTO frames to the CRYPTO frame at offset 0
 * (a client may send the pieces of its ClientHello in any order) and
 * reads the ClientHello it starts. Another frame type ends the walk.
 *
 * Return: as quic_alpn_client_hello(); QUIC_ALPN_HELLO_ABSENT when the
 * walk ends, at the end of the payload or at a CONNECTION_CLOSE, without
 * a CRYPTO frame (a client closing an attempt it gave up on); otherwise
 * QUIC_ALPN_HELLO_UNKNOWN when no CRYPTO frame at offset 0 is found;
 * -EBADMSG also for a CRYPTO frame that does not fit the payload.
 */
int quic_alpn_initial_frames(const u8 *frames, u32 len, const u8 **list,
			     u32 *list_len)
{
	bool crypto = false;
	u64 offset, n;
	u8 type;

	while (len) {
		type = *frames++;
		len--;
		if (type == QUIC_FRAME_PADDING || type == QUIC_FRAME_PING)
			continue;
		if (type == QUIC_FRAME_CONNECTION_CLOSE && !crypto)
			return QUIC_ALPN_HELLO_ABSENT;
		if (type != QUIC_FRAME_CRYPTO)
			return QUIC_ALPN_HELLO_UNKNOWN;
		if (!quic_varint_get(&frames, &len, &offset) ||
		    !quic_varint_get(&frames, &len, &n) || n > len)
			return -EBADMSG;
		if (!offset)
			return quic_alpn_client_hello(frames, n, list, list_len);
		crypto = true;
		frames += n;
		len -= n;
	}
	return crypto ? QUIC_ALPN_HELLO_UNKNOWN : QUIC_ALPN_HELLO_ABSENT;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_alpn_initial_frames);

/**
 * quic_alpn_list_has() - whether an ALPN list names a protocol
 * @list: length-prefixed names (TLS wire form); an element that runs past
 *	@list_len ends the walk, so a list read while it changes is safe
 * @list_len: bytes at @list
 * @name: the protocol name
 * @name_len: its length
 *
 * Return: true if @list holds @name.
 */
bool quic_alpn_list_has(const u8 *list, u32 list_len, const u8 *name,
			u32 name_len)
{
	u32 i, n;

	for (i = 0; i < list_len; i += 1 + n) {
		n = list[i];
		if (i + 1 + n > list_len)
			break;
		if (n == name_len && !memcmp(list + i + 1, name, n))
			return true;
	}
	return false;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_alpn_list_has);

/* How many names of the list @a the list @b holds, and how many @a has. */
static void quic_alpn_list_count(const u8 *a, u32 alen, const u8 *b,
				 u32 blen, u32 *common, u32 *total)
{
	u32 i, n;

	*common = 0;
	*total = 0;
	for (i = 0; i < alen; i += 1 + n) {
		n = a[i];
		if (i + 1 + n > alen)
			break;
		(*total)++;
		if (quic_alpn_list_has(b, blen, a + i + 1, n))
			(*common)++;
	}
}

/**
 * quic_alpn_list_cmp() - compare the ALPN sets of two listeners
 * @a: length-prefixed names (TLS wire form) of one
 * @alen: bytes at @a, 0 for no ALPN
 * @b: those of the other
 * @blen: bytes at @b
 *
 * quic-api.rst 5.1: listeners on one address and port may share it when
 * their ALPN sets are the same (a SO_REUSEPORT group) or disjoint (told
 * apart by the ClientHello's ALPN); no ALPN at all is a set of its own.
 *
 * Return: QUIC_ALPN_SAME, QUIC_ALPN_DISJOINT or QUIC_ALPN_OVERLAP.
 */
int quic_alpn_list_cmp(const u8 *a, u32 alen, const u8 *b, u32 blen)
{
	u32 ab, na, ba, nb;

	if (!alen || !blen)
		return alen == blen ? QUIC_ALPN_SAME : QUIC_ALPN_DISJOINT;
	quic_alpn_list_count(a, alen, b, blen, &ab, &na);
	quic_alpn_list_count(b, blen, a, alen, &ba, &nb);
	if (!ab)
		return QUIC_ALPN_DISJOINT;
	return ab == na && ba == nb ? QUIC_ALPN_SAME : QUIC_ALPN_OVERLAP;
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_alpn_list_cmp);
