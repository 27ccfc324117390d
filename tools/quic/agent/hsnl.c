// SPDX-License-Identifier: GPL-2.0
/*
 * hsnl: the agent's side of the "handshake" generic netlink family.
 *
 * hsnl_open() resolves the family and its "tlshd" multicast group with
 * nlctrl, hsnl_join() joins the group on a second socket, where the
 * kernel's READY notifications arrive (hsnl_wait_ready()). hsnl_accept()
 * takes one pending request: the kernel installs the socket's file in
 * this process and answers with its descriptor and the handshake's
 * parameters. hsnl_done() reports the outcome for a descriptor.
 *
 * Every answer is read with its length checked, attribute by attribute:
 * a malformed one is an error, never a crash.
 */

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "hsnl.h"

#define HSNL_RECV_BUF		32768
#define HSNL_TIMEOUT_S		5

struct hsnl_req {
	struct nlmsghdr		nlh;
	struct genlmsghdr	genl;
	char			attrs[256];
};

struct hsnl_attrs {
	const char	*pos;
	size_t		rem;
};

typedef int (*hsnl_reply_fn)(struct hsnl *nl, const struct nlmsghdr *nlh,
			     void *arg);

/* The next message of a datagram, or NULL at its end or at a bad one. */
static const struct nlmsghdr *hsnl_msg_next(const char **pos, size_t *rem)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)*pos;
	size_t step;

	if (*rem < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN ||
	    nlh->nlmsg_len > *rem)
		return NULL;
	step = NLMSG_ALIGN(nlh->nlmsg_len);
	if (step > *rem)
		step = *rem;
	*pos += step;
	*rem -= step;
	return nlh;
}

/* The attributes of a generic netlink message, or 0 if it is too short. */
static bool hsnl_genl_attrs(const struct nlmsghdr *nlh,
			    const struct genlmsghdr **genl,
			    struct hsnl_attrs *it)
{
	if (nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return false;
	*genl = NLMSG_DATA(nlh);
	it->pos = (const char *)*genl + GENL_HDRLEN;
	it->rem = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	return true;
}

/* The next attribute, or NULL at the end or at one that does not fit. */
static const struct nlattr *hsnl_attr_next(struct hsnl_attrs *it)
{
	const struct nlattr *a = (const struct nlattr *)it->pos;
	size_t step;

	if (it->rem < NLA_HDRLEN || a->nla_len < NLA_HDRLEN ||
	    a->nla_len > it->rem)
		return NULL;
	step = NLA_ALIGN(a->nla_len);
	if (step > it->rem)
		step = it->rem;
	it->pos += step;
	it->rem -= step;
	return a;
}

static int hsnl_attr_type(const struct nlattr *a)
{
	return a->nla_type & NLA_TYPE_MASK;
}

static const void *hsnl_attr_data(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

static size_t hsnl_attr_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

static void hsnl_attr_nested(const struct nlattr *a, struct hsnl_attrs *it)
{
	it->pos = hsnl_attr_data(a);
	it->rem = hsnl_attr_len(a);
}

static int hsnl_attr_u32(const struct nlattr *a, uint32_t *v)
{
	if (hsnl_attr_len(a) != sizeof(*v))
		return -EBADMSG;
	memcpy(v, hsnl_attr_data(a), sizeof(*v));
	return 0;
}

static int hsnl_attr_s32(const struct nlattr *a, int32_t *v)
{
	return hsnl_attr_u32(a, (uint32_t *)v);
}

/* A NUL-terminated string that fits in @size bytes. */
static int hsnl_attr_str(const struct nlattr *a, char *buf, size_t size)
{
	size_t len = hsnl_attr_len(a);
	const char *s = hsnl_attr_data(a);

	if (!len || !memchr(s, '\0', len) || strlen(s) >= size)
		return -EBADMSG;
	strcpy(buf, s);
	return 0;
}

static void hsnl_req_init(struct hsnl *nl, struct hsnl_req *r,
			  uint16_t family, uint8_t cmd)
{
	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nlh.nlmsg_type = family;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	r->nlh.nlmsg_seq = ++nl->seq;
	r->genl.cmd = cmd;
	r->genl.version = 1;
}

static int hsnl_put(struct hsnl_req *r, uint16_t type, const void *data,
		    size_t len)
{
	size_t off = NLMSG_ALIGN(r->nlh.nlmsg_len);
	struct nlattr *a = (struct nlattr *)((char *)r + off);

	if (off + NLA_HDRLEN + NLA_ALIGN(len) > sizeof(*r))
		return -EMSGSIZE;
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->nlh.nlmsg_len = off + NLA_ALIGN(a->nla_len);
	return 0;
}

static int hsnl_put_u32(struct hsnl_req *r, uint16_t type, uint32_t v)
{
	return hsnl_put(r, type, &v, sizeof(v));
}

/*
 * Send @r and read until the kernel's acknowledgment, handing each
 * answer of the same sequence number to @fn. Return: the kernel's error
 * (0, or a negative errno), else the first error of @fn, or -errno of
 * the socket (-ETIMEDOUT when the kernel does not answer).
 */
static int hsnl_talk(struct hsnl *nl, struct hsnl_req *r, hsnl_reply_fn fn,
		     void *arg)
{
	static uint32_t buf[HSNL_RECV_BUF / sizeof(uint32_t)];
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	const struct nlmsgerr *e;
	const struct nlmsghdr *nlh;
	const char *pos;
	int ret = 0, err;
	ssize_t len;
	size_t rem;

	if (sendto(nl->fd, r, r->nlh.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		return -errno;
	for (;;) {
		len = recv(nl->fd, buf, sizeof(buf), MSG_TRUNC);
		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (len > (ssize_t)sizeof(buf))
			return -EMSGSIZE;
		pos = (const char *)buf;
		rem = len;
		while ((nlh = hsnl_msg_next(&pos, &rem))) {
			if (nlh->nlmsg_seq != r->nlh.nlmsg_seq)
				continue;	/* a late answer to another */
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				if (nlh->nlmsg_len <
				    NLMSG_LENGTH(sizeof(*e)))
					return -EBADMSG;
				e = NLMSG_DATA(nlh);
				if (e->error > 0)
					return -EBADMSG;
				return e->error ? e->error : ret;
			}
			if (nlh->nlmsg_type == NLMSG_DONE)
				return ret;
			if (!fn)
				continue;
			err = fn(nl, nlh, arg);
			if (!ret)
				ret = err;
		}
	}
}

static int hsnl_family_reply(struct hsnl *nl, const struct nlmsghdr *nlh,
			     void *arg)
{
	const struct genlmsghdr *genl;
	struct hsnl_attrs it, grps, grp;
	const struct nlattr *a, *g, *ga;
	char name[GENL_NAMSIZ];
	uint32_t id;
	uint16_t fam;

	(void)arg;
	if (nlh->nlmsg_type != GENL_ID_CTRL ||
	    !hsnl_genl_attrs(nlh, &genl, &it))
		return -EBADMSG;
	while ((a = hsnl_attr_next(&it))) {
		if (hsnl_attr_type(a) == CTRL_ATTR_FAMILY_ID) {
			if (hsnl_attr_len(a) != sizeof(fam))
				return -EBADMSG;
			memcpy(&fam, hsnl_attr_data(a), sizeof(fam));
			nl->family = fam;
		}
		if (hsnl_attr_type(a) != CTRL_ATTR_MCAST_GROUPS)
			continue;
		hsnl_attr_nested(a, &grps);
		while ((g = hsnl_attr_next(&grps))) {
			name[0] = '\0';
			id = 0;
			hsnl_attr_nested(g, &grp);
			while ((ga = hsnl_attr_next(&grp))) {
				if (hsnl_attr_type(ga) ==
				    CTRL_ATTR_MCAST_GRP_NAME &&
				    hsnl_attr_str(ga, name, sizeof(name)))
					return -EBADMSG;
				if (hsnl_attr_type(ga) ==
				    CTRL_ATTR_MCAST_GRP_ID &&
				    hsnl_attr_u32(ga, &id))
					return -EBADMSG;
			}
			if (!strcmp(name, HANDSHAKE_MCGRP_TLSHD))
				nl->group = id;
		}
	}
	return nl->family ? 0 : -EBADMSG;
}

/**
 * hsnl_open() - open a netlink socket and resolve the handshake family
 * @nl: filled in
 *
 * Return: 0, -ENOENT when the kernel has no "handshake" family, or
 * another negative errno.
 */
int hsnl_open(struct hsnl *nl)
{
	struct timeval tv = { .tv_sec = HSNL_TIMEOUT_S };
	struct hsnl_req r;
	int err;

	memset(nl, 0, sizeof(*nl));
	nl->mcfd = -1;
	nl->seq = time(NULL);
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0)
		return -errno;
	if (setsockopt(nl->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		goto err_errno;

	hsnl_req_init(nl, &r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY);
	err = hsnl_put(&r, CTRL_ATTR_FAMILY_NAME, HANDSHAKE_FAMILY_NAME,
		       sizeof(HANDSHAKE_FAMILY_NAME));
	if (!err)
		err = hsnl_talk(nl, &r, hsnl_family_reply, NULL);
	if (!err && !nl->family)
		err = -EBADMSG;
	if (err)
		goto err;
	return 0;

err_errno:
	err = -errno;
err:
	hsnl_close(nl);
	return err;
}

/**
 * hsnl_join() - join the "tlshd" group, where READY notifications go
 * @nl: opened by hsnl_open()
 *
 * Return: 0, -ENOENT when the family has no such group, or -errno.
 */
int hsnl_join(struct hsnl *nl)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd;

	if (!nl->group)
		return -ENOENT;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	/* Bound: the kernel's multicasts skip a socket without a port. */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &nl->group,
		       sizeof(nl->group))) {
		close(fd);
		return -errno;
	}
	nl->mcfd = fd;
	return 0;
}

void hsnl_close(struct hsnl *nl)
{
	if (nl->fd >= 0)
		close(nl->fd);
	if (nl->mcfd >= 0)
		close(nl->mcfd);
	nl->fd = -1;
	nl->mcfd = -1;
}

/**
 * hsnl_wait_ready() - wait for READY notifications, read all queued
 * @nl: joined with hsnl_join()
 * @timeout_ms: how long to wait for the first; 0 only drains the queue
 *
 * Return: 1 when a READY came (or some were lost to an overrun: the
 * caller should look for requests), 0 when none, or -errno.
 */
int hsnl_wait_ready(struct hsnl *nl, int timeout_ms)
{
	uint32_t buf[8192 / sizeof(uint32_t)];
	struct pollfd pfd = { .fd = nl->mcfd, .events = POLLIN };
	const struct genlmsghdr *genl;
	const struct nlmsghdr *nlh;
	struct hsnl_attrs it;
	const char *pos;
	int ready = 0;
	ssize_t len;
	size_t rem;

	if (nl->mcfd < 0)
		return -EBADF;
	if (timeout_ms && poll(&pfd, 1, timeout_ms) < 0)
		return errno == EINTR ? 0 : -errno;
	for (;;) {
		len = recv(nl->mcfd, buf, sizeof(buf), MSG_DONTWAIT);
		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0 && errno == ENOBUFS) {
			ready = 1;
			continue;
		}
		if (len < 0)
			return errno == EAGAIN ? ready : -errno;
		pos = (const char *)buf;
		rem = len;
		while ((nlh = hsnl_msg_next(&pos, &rem))) {
			if (nlh->nlmsg_type == nl->family &&
			    hsnl_genl_attrs(nlh, &genl, &it) &&
			    genl->cmd == HANDSHAKE_CMD_READY)
				ready = 1;
		}
	}
}

static int hsnl_accept_cert(const struct nlattr *nest, struct hsnl_accept *req)
{
	struct hsnl_attrs it;
	const struct nlattr *a;
	int err = 0;

	hsnl_attr_nested(nest, &it);
	while (!err && (a = hsnl_attr_next(&it))) {
		if (hsnl_attr_type(a) == HANDSHAKE_A_X509_CERT)
			err = hsnl_attr_s32(a, &req->cert);
		else if (hsnl_attr_type(a) == HANDSHAKE_A_X509_PRIVKEY)
			err = hsnl_attr_s32(a, &req->privkey);
	}
	return err;
}

static int hsnl_accept_reply(struct hsnl *nl, const struct nlmsghdr *nlh,
			     void *arg)
{
	struct hsnl_accept *req = arg;
	const struct genlmsghdr *genl;
	struct hsnl_attrs it;
	const struct nlattr *a;
	int32_t id, fd;
	int err = 0, e;

	if (nlh->nlmsg_type != nl->family ||
	    !hsnl_genl_attrs(nlh, &genl, &it) ||
	    genl->cmd != HANDSHAKE_CMD_ACCEPT)
		return -EBADMSG;
	/* Every attribute is read, even past a bad one: the socket's fd is
	 * ours once the kernel sent it, and must be answered and closed.
	 */
	while ((a = hsnl_attr_next(&it))) {
		e = 0;
		switch (hsnl_attr_type(a)) {
		case HANDSHAKE_A_ACCEPT_SOCKFD:
			e = hsnl_attr_s32(a, &fd);
			if (!e && req->sockfd < 0)
				req->sockfd = fd;
			break;
		case HANDSHAKE_A_ACCEPT_MESSAGE_TYPE:
			e = hsnl_attr_u32(a, &req->type);
			break;
		case HANDSHAKE_A_ACCEPT_TIMEOUT:
			e = hsnl_attr_u32(a, &req->timeout_ms);
			break;
		case HANDSHAKE_A_ACCEPT_AUTH_MODE:
			e = hsnl_attr_u32(a, &req->auth);
			break;
		case HANDSHAKE_A_ACCEPT_PEER_IDENTITY:
			e = hsnl_attr_s32(a, &id);
			if (!e && req->npeerids < HSNL_PEERIDS_MAX)
				req->peerids[req->npeerids++] = id;
			break;
		case HANDSHAKE_A_ACCEPT_CERTIFICATE:
			e = hsnl_accept_cert(a, req);
			break;
		case HANDSHAKE_A_ACCEPT_PEERNAME:
			e = hsnl_attr_str(a, req->peername, sizeof(req->peername));
			break;
		}
		if (!err)
			err = e;
	}
	if (!err && it.rem)
		err = -EBADMSG;		/* a truncated attribute */
	return err;
}

/**
 * hsnl_accept() - take one pending request of the TLSHD class
 * @nl: opened by hsnl_open()
 * @req: filled in from the answer
 *
 * Return: 0; -EAGAIN when no request is pending; -EBADMSG for a
 * malformed answer, with @req->sockfd set (not -1) when the kernel
 * installed a descriptor all the same: the caller answers it with
 * hsnl_done() and closes it; or another negative errno.
 */
int hsnl_accept(struct hsnl *nl, struct hsnl_accept *req)
{
	struct hsnl_req r;
	int err;

	memset(req, 0, sizeof(*req));
	req->sockfd = -1;
	hsnl_req_init(nl, &r, nl->family, HANDSHAKE_CMD_ACCEPT);
	err = hsnl_put_u32(&r, HANDSHAKE_A_ACCEPT_HANDLER_CLASS,
			   HANDSHAKE_HANDLER_CLASS_TLSHD);
	if (err)
		return err;
	err = hsnl_talk(nl, &r, hsnl_accept_reply, req);
	if (!err && req->sockfd < 0)
		err = -EBADMSG;
	return err;
}

/**
 * hsnl_done() - report the outcome of a handshake
 * @nl: opened by hsnl_open()
 * @sockfd: the descriptor of the request (as installed in this process)
 * @status: 0 for success, else a positive errno
 * @remote_auth: the key serial of the peer's identity, 0 for none
 *
 * Return: the kernel's answer: 0, -EBUSY when no request is accepted on
 * that socket, -EBADF when @sockfd is not a socket; or -errno.
 */
int hsnl_done(struct hsnl *nl, int sockfd, unsigned int status,
	      int32_t remote_auth)
{
	struct hsnl_req r;
	int err;

	hsnl_req_init(nl, &r, nl->family, HANDSHAKE_CMD_DONE);
	err = hsnl_put_u32(&r, HANDSHAKE_A_DONE_SOCKFD, sockfd);
	if (!err)
		err = hsnl_put_u32(&r, HANDSHAKE_A_DONE_STATUS, status);
	if (!err && remote_auth)
		err = hsnl_put_u32(&r, HANDSHAKE_A_DONE_REMOTE_AUTH,
				   remote_auth);
	return err ? err : hsnl_talk(nl, &r, NULL, NULL);
}
