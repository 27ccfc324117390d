// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: quic_diag, the sock_diag handler of IPPROTO_QUIC, as tcp_diag and
 * udp_diag are TCP's and UDP's: a dump of every QUIC socket of the
 * requester's namespace (quic.ko's list, socklist.c), filtered by family,
 * state and the inet_diag bytecode, and one socket by its cookie.
 *
 * IPPROTO_QUIC does not fit the request's u8 sdiag_protocol: a request
 * names it with the INET_DIAG_REQ_PROTOCOL attribute, as MPTCP's do, and
 * inet_diag asks for this module as "net-pf-16-proto-4-type-2-261".
 *
 * Each message is an inet_diag_msg: for a connection, its addresses are
 * the path's (the peer's address is not in the inet fields of a QUIC
 * socket); INET_DIAG_INFO carries &struct quic_info and QUIC_DIAG_CIDS
 * &struct quic_diag_cids. The bytecode filter sees the inet fields: the
 * local port, which is a connection's listener's, and no peer port.
 */

#include <linux/inet_diag.h>
#include <linux/module.h>
#include <linux/quic.h>
#include <linux/sock_diag.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "info.h"
#include "socket.h"
#include "socklist.h"

/* Sockets referenced per walk of the list: filled outside its lock. */
#define QUIC_DIAG_BATCH		16

/* An address of a path into the inet_diag_msg's 16 bytes. */
static void quic_diag_addr(const union quic_addr *a, int family, __be32 *dst)
{
	memset(dst, 0, sizeof(struct in6_addr));
	if (a->sa.sa_family == AF_INET6)
		memcpy(dst, &a->v6.sin6_addr, sizeof(struct in6_addr));
	else if (family == AF_INET6)
		ipv6_addr_set_v4mapped(a->v4.sin_addr.s_addr,
				       (struct in6_addr *)dst);
	else
		dst[0] = a->v4.sin_addr.s_addr;
}

static bool quic_diag_path_addr(const union quic_addr *a)
{
	return a->sa.sa_family == AF_INET || a->sa.sa_family == AF_INET6;
}

/* A connection's addresses and ports, from its path; locked. */
static void quic_diag_conn_fill(struct sock *sk, struct inet_diag_msg *r)
{
	const struct quic_paths *p = &quic_sk(sk)->conn.paths;

	if (!quic_diag_path_addr(&p->peer))
		return;
	if (quic_diag_path_addr(&p->local))
		quic_diag_addr(&p->local, sk->sk_family, r->id.idiag_src);
	quic_diag_addr(&p->peer, sk->sk_family, r->id.idiag_dst);
	r->id.idiag_dport = p->peer.v4.sin_port;	/* sin6_port alike */
}

static void quic_diag_get_info(struct sock *sk, struct inet_diag_msg *r,
			       void *info)
{
	r->idiag_rqueue = sk_rmem_alloc_get(sk);
	r->idiag_wqueue = sk_wmem_alloc_get(sk);
	if (info)
		quic_info_get(sk, info);
}

static int quic_diag_put_cids(struct sock *sk, struct sk_buff *skb)
{
	const struct quic_ids *ids = &quic_sk(sk)->conn.ids;
	struct quic_diag_cids cids = {};

	if (!ids->scid.len)
		return 0;
	BUILD_BUG_ON(sizeof(cids.scid) != QUIC_CID_MAX_LEN);
	cids.scid_len = ids->scid.len;
	memcpy(cids.scid, ids->scid.data, ids->scid.len);
	cids.dcid_len = ids->dcid.len;
	memcpy(cids.dcid, ids->dcid.data, ids->dcid.len);
	return nla_put(skb, QUIC_DIAG_CIDS, sizeof(cids), &cids);
}

/* One socket's message, with the attributes @req asks for. */
static int quic_diag_fill(struct sock *sk, struct sk_buff *skb,
			  struct netlink_callback *cb,
			  const struct inet_diag_req_v2 *req, u16 flags,
			  bool net_admin)
{
	struct user_namespace *user_ns = sk_user_ns(NETLINK_CB(cb->skb).sk);
	int ext = req->idiag_ext, err = -EMSGSIZE;
	struct inet_diag_msg *r;
	struct nlmsghdr *nlh;
	struct nlattr *attr;

	nlh = nlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			cb->nlh->nlmsg_type, sizeof(*r), flags);
	if (!nlh)
		return -EMSGSIZE;
	r = nlmsg_data(nlh);

	lock_sock(sk);
	inet_diag_msg_common_fill(r, sk);
	quic_diag_conn_fill(sk, r);
	r->idiag_state = sk->sk_state;
	r->idiag_timer = 0;
	r->idiag_retrans = 0;
	r->idiag_expires = 0;
	if (inet_diag_msg_attrs_fill(sk, skb, r, ext, user_ns, net_admin))
		goto out;
	if (ext & (1 << (INET_DIAG_MEMINFO - 1))) {
		struct inet_diag_meminfo m = {
			.idiag_rmem = sk_rmem_alloc_get(sk),
			.idiag_wmem = READ_ONCE(sk->sk_wmem_queued),
			.idiag_fmem = sk_forward_alloc_get(sk),
			.idiag_tmem = sk_wmem_alloc_get(sk),
		};

		if (nla_put(skb, INET_DIAG_MEMINFO, sizeof(m), &m))
			goto out;
	}
	if ((ext & (1 << (INET_DIAG_SKMEMINFO - 1))) &&
	    sock_diag_put_meminfo(sk, skb, INET_DIAG_SKMEMINFO))
		goto out;
	attr = NULL;
	if (ext & (1 << (INET_DIAG_INFO - 1))) {
		attr = nla_reserve_64bit(skb, INET_DIAG_INFO,
					 sizeof(struct quic_info), INET_DIAG_PAD);
		if (!attr)
			goto out;
	}
	quic_diag_get_info(sk, r, attr ? nla_data(attr) : NULL);
	if (quic_diag_put_cids(sk, skb))
		goto out;
	err = 0;
out:
	release_sock(sk);
	if (err) {
		nlmsg_cancel(skb, nlh);
		return err;
	}
	nlmsg_end(skb, nlh);
	return 0;
}

static bool quic_diag_match(struct sock *sk, const struct inet_diag_req_v2 *r,
			    const struct nlattr *bc)
{
	if (r->sdiag_family != AF_UNSPEC && sk->sk_family != r->sdiag_family)
		return false;
	if (!(r->idiag_states & (1 << READ_ONCE(sk->sk_state))))
		return false;
	return inet_diag_bc_sk(bc, sk);
}

/* A dump resumes at cb->args[0], the sockets of the list passed. */
static void quic_diag_dump(struct sk_buff *skb, struct netlink_callback *cb,
			   const struct inet_diag_req_v2 *r)
{
	bool net_admin = netlink_net_capable(cb->skb, CAP_NET_ADMIN);
	struct inet_diag_dump_data *data = cb->data;
	struct nlattr *bc = data->inet_diag_nla_bc;
	struct sock *socks[QUIC_DIAG_BATCH];
	struct net *net = sock_net(skb->sk);
	unsigned long pos = cb->args[0];
	unsigned int n, i;
	int err = 0;

	do {
		n = quic_socklist_hold(net, pos, socks, QUIC_DIAG_BATCH);
		for (i = 0; i < n; i++) {
			if (!err && quic_diag_match(socks[i], r, bc))
				err = quic_diag_fill(socks[i], skb, cb, r,
						     NLM_F_MULTI, net_admin);
			if (!err)
				pos++;
			sock_put(socks[i]);
		}
	} while (!err && n == QUIC_DIAG_BATCH);
	cb->args[0] = pos;
}

/* The socket of @req's cookie and family, referenced, or NULL. */
static struct sock *quic_diag_find(struct net *net,
				   const struct inet_diag_req_v2 *req)
{
	struct sock *socks[QUIC_DIAG_BATCH], *found = NULL;
	unsigned long pos = 0;
	unsigned int n, i;

	do {
		n = quic_socklist_hold(net, pos, socks, QUIC_DIAG_BATCH);
		for (i = 0; i < n; i++) {
			if (!found && socks[i]->sk_family == req->sdiag_family &&
			    !sock_diag_check_cookie(socks[i],
						    req->id.idiag_cookie)) {
				found = socks[i];
				continue;
			}
			sock_put(socks[i]);
		}
		pos += n;
	} while (!found && n == QUIC_DIAG_BATCH);
	return found;
}

static int quic_diag_dump_one(struct netlink_callback *cb,
			      const struct inet_diag_req_v2 *req)
{
	bool net_admin = netlink_net_capable(cb->skb, CAP_NET_ADMIN);
	struct net *net = sock_net(cb->skb->sk);
	struct sk_buff *rep;
	struct sock *sk;
	int err;

	/* Only a cookie names a QUIC socket: connections share the
	 * listener's port, and a path's addresses change.
	 */
	if (req->id.idiag_cookie[0] == INET_DIAG_NOCOOKIE &&
	    req->id.idiag_cookie[1] == INET_DIAG_NOCOOKIE)
		return -EINVAL;
	sk = quic_diag_find(net, req);
	if (!sk)
		return -ENOENT;
	err = -ENOMEM;
	rep = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!rep)
		goto out;
	err = quic_diag_fill(sk, rep, cb, req, 0, net_admin);
	if (err) {
		nlmsg_free(rep);
		goto out;
	}
	err = nlmsg_unicast(net->diag_nlsk, rep, NETLINK_CB(cb->skb).portid);
out:
	sock_put(sk);
	return err;
}

static const struct inet_diag_handler quic_diag_handler = {
#ifdef QUIC_HAVE_INET_DIAG_OWNER	/* since 6.9 */
	.owner		 = THIS_MODULE,
#endif
	.dump		 = quic_diag_dump,
	.dump_one	 = quic_diag_dump_one,
	.idiag_get_info	 = quic_diag_get_info,
	.idiag_type	 = IPPROTO_QUIC,
	.idiag_info_size = sizeof(struct quic_info),
};

static int __init quic_diag_init(void)
{
	return inet_diag_register(&quic_diag_handler);
}

static void __exit quic_diag_exit(void)
{
	inet_diag_unregister(&quic_diag_handler);
}

module_init(quic_diag_init);
module_exit(quic_diag_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("QUIC socket monitoring via SOCK_DIAG");
/* What inet_diag asks for: PF_NETLINK, NETLINK_SOCK_DIAG, AF_INET and
 * IPPROTO_QUIC (sock_load_diag_module()).
 */
MODULE_ALIAS("net-pf-16-proto-4-type-2-261");
