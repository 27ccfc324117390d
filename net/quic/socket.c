// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: socket operations.
 *
 * The proto and proto_ops of IPPROTO_QUIC: create, bind (to a port of a
 * shared kernel UDP socket, see udp.c), connect, listen and accept, the
 * handshake, stream and datagram sendmsg/recvmsg of quic-api.rst, poll,
 * shutdown, close, the queue ioctls, and the SOL_QUIC options that need a
 * connection; sockopt.c handles the others, conn.c the connection.
 * CONNECTION_MIGRATION on an established server gives EOPNOTSUPP: only
 * clients migrate (RFC 9000 9).
 */

#include <linux/errno.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/netdevice.h>
#include <linux/poll.h>
#include <linux/quic.h>
#include <linux/sockios.h>
#include <net/addrconf.h>
#include <net/inet_common.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/transp_v6.h>
#include <asm/ioctls.h>

#include "close.h"
#include "conn.h"
#include "ctrl.h"
#include "crypto.h"
#include "datagram.h"
#include "event.h"
#include "export.h"
#include "input.h"
#include "keyupdate.h"
#include "lookup.h"
#include "output.h"
#include "path.h"
#include "sendq.h"
#include "socket.h"
#include "socklist.h"
#include "udp.h"

/* inet6_sk_generic() finds the IPv6 state at the end of the object. */
static_assert(offsetof(struct quic6_sock, inet6) + sizeof(struct ipv6_pinfo) ==
	      sizeof(struct quic6_sock));

static int quic_addr_from_user(const struct sock *sk,
			       const struct sockaddr *uaddr, int len,
			       union quic_addr *a)
{
	const struct sockaddr_in6 *sin6;
	const struct sockaddr_in *sin;

	memset(a, 0, sizeof(*a));
	if (len < (int)offsetofend(struct sockaddr, sa_family))
		return -EINVAL;

	switch (uaddr->sa_family) {
	case AF_INET:
		if (len < (int)sizeof(*sin))
			return -EINVAL;
		if (sk->sk_family == AF_INET6 && ipv6_only_sock(sk))
			return -EINVAL;
		sin = (const struct sockaddr_in *)uaddr;
		a->v4.sin_family = AF_INET;
		a->v4.sin_port = sin->sin_port;
		a->v4.sin_addr = sin->sin_addr;
		break;
	case AF_INET6:
		if (sk->sk_family != AF_INET6)
			return -EAFNOSUPPORT;
		if (len < (int)sizeof(*sin6))
			return -EINVAL;
		sin6 = (const struct sockaddr_in6 *)uaddr;
		if (ipv6_addr_v4mapped(&sin6->sin6_addr)) {
			if (ipv6_only_sock(sk))
				return -EINVAL;
			a->v4.sin_family = AF_INET;
			a->v4.sin_port = sin6->sin6_port;
			a->v4.sin_addr.s_addr = sin6->sin6_addr.s6_addr32[3];
			break;
		}
		a->v6.sin6_family = AF_INET6;
		a->v6.sin6_port = sin6->sin6_port;
		a->v6.sin6_addr = sin6->sin6_addr;
		a->v6.sin6_scope_id = sin6->sin6_scope_id;
		break;
	default:
		return -EAFNOSUPPORT;
	}

	if (a->sa.sa_family == AF_INET) {
		if (ipv4_is_multicast(a->v4.sin_addr.s_addr))
			return -EINVAL;
	} else if (ipv6_addr_is_multicast(&a->v6.sin6_addr)) {
		return -EINVAL;
	}
	return 0;
}

static int quic_bind_v4(struct sock *sk, const struct sockaddr_in *sin)
{
	__be32 addr = sin->sin_addr.s_addr;
	struct inet_sock *inet = inet_sk(sk);
	struct net *net = sock_net(sk);
	struct net_device *dev = NULL;
	int err = 0;

	if (addr != htonl(INADDR_ANY) && !inet_can_nonlocal_bind(net, inet)) {
		rcu_read_lock();
		if (sk->sk_bound_dev_if) {
			dev = dev_get_by_index_rcu(net, sk->sk_bound_dev_if);
			if (!dev)
				err = -ENODEV;
		}
		if (!err && inet_addr_type_dev_table(net, dev, addr) != RTN_LOCAL)
			err = -EADDRNOTAVAIL;
		rcu_read_unlock();
		if (err)
			return err;
	}

	inet->inet_rcv_saddr = addr;
	inet->inet_saddr = addr;
	if (sk->sk_family == AF_INET6) {
		ipv6_addr_set_v4mapped(addr, &sk->sk_v6_rcv_saddr);
		inet6_sk(sk)->saddr = sk->sk_v6_rcv_saddr;
	}
	return 0;
}

static int quic_bind_v6(struct sock *sk, const struct sockaddr_in6 *sin6)
{
	const struct in6_addr *addr = &sin6->sin6_addr;
	int type = ipv6_addr_type(addr), err = 0;
	int ifindex = sk->sk_bound_dev_if;
	struct inet_sock *inet = inet_sk(sk);
	struct net *net = sock_net(sk);
	bool scoped, any;
	__be32 v4addr;

	any = type == IPV6_ADDR_ANY;
	scoped = __ipv6_addr_needs_scope_id(type);
	if (scoped) {
		if (sin6->sin6_scope_id)
			ifindex = sin6->sin6_scope_id;
		if (!ifindex)
			return -EINVAL;
	}

	if (!any) {
		struct net_device *dev = NULL;

		rcu_read_lock();
		if (ifindex) {
			dev = dev_get_by_index_rcu(net, ifindex);
			/* A scope ID naming no interface is a bad address. */
			if (!dev)
				err = scoped && sin6->sin6_scope_id ? -EINVAL : -ENODEV;
		}
		if (!err && !ipv6_can_nonlocal_bind(net, inet) &&
		    !ipv6_chk_addr(net, addr, dev, 0))
			err = -EADDRNOTAVAIL;
		rcu_read_unlock();
		if (err)
			return err;
	}

	/* As in inet6_bind(): no IPv4 address matches a specific IPv6 one. */
	v4addr = any ? 0 : LOOPBACK4_IPV6;
	inet->inet_rcv_saddr = v4addr;
	inet->inet_saddr = v4addr;
	sk->sk_v6_rcv_saddr = *addr;
	inet6_sk(sk)->saddr = *addr;
	if (scoped)
		WRITE_ONCE(sk->sk_bound_dev_if, ifindex);
	return 0;
}

/* Bind @sk to @a, under the socket lock. The port belongs to the shared
 * UDP socket of the address, which also picks one for port 0; sockets
 * that bind the same address and port share it.
 */
static int __quic_bind(struct sock *sk, const union quic_addr *a)
{
	int ifindex = sk->sk_bound_dev_if;
	struct inet_sock *inet = inet_sk(sk);
	struct quic_udp_key key;
	struct quic_udp_sock *us;
	__be16 port;
	bool any;
	int err;

	if (quic_sk(sk)->bound || sk->sk_state != TCP_CLOSE)
		return -EINVAL;

	if (a->sa.sa_family == AF_INET) {
		err = quic_bind_v4(sk, &a->v4);
		if (err)
			return err;
		port = a->v4.sin_port;
		any = a->v4.sin_addr.s_addr == htonl(INADDR_ANY);
		quic_udp_key_init(&key, AF_INET, &a->v4.sin_addr, port, false,
				  sk->sk_bound_dev_if);
	} else {
		err = quic_bind_v6(sk, &a->v6);
		if (err)
			return err;
		port = a->v6.sin6_port;
		any = ipv6_addr_any(&a->v6.sin6_addr);
		quic_udp_key_init(&key, AF_INET6, &a->v6.sin6_addr, port,
				  ipv6_only_sock(sk), sk->sk_bound_dev_if);
	}

	us = quic_udp_sock_get(sock_net(sk), &key);
	if (IS_ERR(us)) {
		/* Back to unbound. */
		inet->inet_rcv_saddr = 0;
		inet->inet_saddr = 0;
		if (sk->sk_family == AF_INET6) {
			sk->sk_v6_rcv_saddr = in6addr_any;
			inet6_sk(sk)->saddr = in6addr_any;
		}
		WRITE_ONCE(sk->sk_bound_dev_if, ifindex);
		return PTR_ERR(us);
	}

	quic_sk(sk)->udp = us;
	inet->inet_sport = us->key.port;
	inet->inet_num = ntohs(us->key.port);
	inet->inet_daddr = 0;
	inet->inet_dport = 0;
	if (!any)
		sk->sk_userlocks |= SOCK_BINDADDR_LOCK;
	if (port)
		sk->sk_userlocks |= SOCK_BINDPORT_LOCK;
	sk_dst_reset(sk);
	WRITE_ONCE(quic_sk(sk)->bound, 1);
	return 0;
}

/**
 * quic_sock_set_local() - the connection's local address moved
 * @sk: the socket, locked
 * @a: the new address (path.c)
 *
 * getsockname() returns it from now on (quic-api.rst 5.6).
 */
void quic_sock_set_local(struct sock *sk, const union quic_addr *a)
{
	struct inet_sock *inet = inet_sk(sk);

	if (a->sa.sa_family == AF_INET) {
		inet->inet_rcv_saddr = a->v4.sin_addr.s_addr;
		inet->inet_saddr = a->v4.sin_addr.s_addr;
		inet->inet_sport = a->v4.sin_port;
		if (sk->sk_family == AF_INET6) {
			ipv6_addr_set_v4mapped(a->v4.sin_addr.s_addr,
					       &sk->sk_v6_rcv_saddr);
			inet6_sk(sk)->saddr = sk->sk_v6_rcv_saddr;
		}
	} else {
		inet->inet_rcv_saddr = LOOPBACK4_IPV6;
		inet->inet_saddr = LOOPBACK4_IPV6;
		inet->inet_sport = a->v6.sin6_port;
		sk->sk_v6_rcv_saddr = a->v6.sin6_addr;
		inet6_sk(sk)->saddr = a->v6.sin6_addr;
	}
	inet->inet_num = ntohs(inet->inet_sport);
}

/**
 * quic_sock_migrate() - setsockopt(QUIC_SOCKOPT_CONNECTION_MIGRATION)
 * @sk: the socket, locked
 * @optval: a sockaddr_in or sockaddr_in6
 * @optlen: its length (may be longer than the address)
 *
 * quic-api.rst 5.9, on an established client: the new local address is
 * bound (its shared UDP socket taken) and the path to the peer probed
 * from there (path.c); the call returns once the probe is queued. On a
 * server before the handshake, the address (of either family on an
 * AF_INET6 socket) is bound at once and offered as its preferred address.
 * An established server does not move: RFC 9000 9 leaves migration to
 * clients, which drop what comes from a server address they do not know.
 *
 * Return: 0, -EINVAL for a bad address (a wildcard, multicast or
 * broadcast one, the peer's own, or any on a client before the
 * handshake), -EPIPE on a socket that is not a connection, -EOPNOTSUPP on
 * an established server, -EAGAIN while a move is under way, or a bind
 * error.
 */
int quic_sock_migrate(struct sock *sk, sockptr_t optval, unsigned int optlen)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct sockaddr_storage ss = {};
	struct quic_udp_sock *us;
	struct quic_udp_key key;
	union quic_addr a;
	int err;

	if (copy_from_sockptr(&ss, optval, min_t(unsigned int, optlen,
						 sizeof(ss))))
		return -EFAULT;
	if (quic_addr_from_user(sk, (struct sockaddr *)&ss,
				min_t(unsigned int, optlen, sizeof(ss)), &a))
		return -EINVAL;
	if (a.sa.sa_family == AF_INET ?
	    (!a.v4.sin_port || a.v4.sin_addr.s_addr == htonl(INADDR_ANY) ||
	     ipv4_is_lbcast(a.v4.sin_addr.s_addr) ||
	     inet_addr_type_dev_table(sock_net(sk), NULL,
				      a.v4.sin_addr.s_addr) == RTN_BROADCAST) :
	    (!a.v6.sin6_port || ipv6_addr_any(&a.v6.sin6_addr)))
		return -EINVAL;
	if (!quic_is_conn(sk))
		return -EPIPE;
	if (!memcmp(&a, &c->paths.local, sizeof(a)) || quic_addr_equal(&a, &c->paths.peer) ||
	    (sk->sk_state == TCP_ESTABLISHED ?
	     a.sa.sa_family != c->paths.local.sa.sa_family : !c->is_server))
		return -EINVAL;
	if (sk->sk_state == TCP_ESTABLISHED && c->is_server)
		return -EOPNOTSUPP;
	if (a.sa.sa_family == AF_INET)
		quic_udp_key_init(&key, AF_INET, &a.v4.sin_addr,
				  a.v4.sin_port, false, sk->sk_bound_dev_if);
	else
		quic_udp_key_init(&key, AF_INET6, &a.v6.sin6_addr,
				  a.v6.sin6_port, ipv6_only_sock(sk),
				  sk->sk_bound_dev_if);
	us = quic_udp_sock_get(sock_net(sk), &key);
	if (IS_ERR(us))
		return PTR_ERR(us);
	if (sk->sk_state != TCP_ESTABLISHED) {
		err = quic_path_prefer(sk, &a, us);
		if (err)
			quic_udp_sock_put(us);
		return err;
	}
	err = quic_path_migrate(sk, &a, us);
	if (err) {
		quic_udp_sock_put(us);
		return err;
	}
	quic_conn_path_changed(sk, QUIC_PATH_NEW_DCID);
	quic_output_flush(sk, GFP_KERNEL);
	return 0;
}

static int quic_bind(struct socket *sock, struct sockaddr *uaddr, int addr_len)
{
	struct sock *sk = sock->sk;
	struct net *net = sock_net(sk);
	union quic_addr a;
	__be16 port;
	int err;

	err = quic_addr_from_user(sk, uaddr, addr_len, &a);
	if (err)
		return err;

	port = a.sa.sa_family == AF_INET ? a.v4.sin_port : a.v6.sin6_port;
	if (port && inet_port_requires_bind_service(net, ntohs(port)) &&
	    !ns_capable(net->user_ns, CAP_NET_BIND_SERVICE))
		return -EACCES;

	lock_sock(sk);
	err = __quic_bind(sk, &a);
	release_sock(sk);
	return err;
}

/**
 * quic_sock_autobind() - bind a socket that is not bound yet
 * @sk: the socket, locked by the caller
 * @family: the family of the path: %AF_INET, or %AF_INET6 on an AF_INET6
 *	socket
 *
 * For connect() and listen(): binds to the wildcard address of @family and
 * a port the kernel picks. A bound socket is left alone.
 *
 * Return: 0, or the error bind() would give.
 */
int quic_sock_autobind(struct sock *sk, int family)
{
	union quic_addr a;

	if (quic_sk(sk)->bound)
		return 0;
	if (family != AF_INET && (family != AF_INET6 ||
				  sk->sk_family != AF_INET6))
		return -EAFNOSUPPORT;
	if (family == AF_INET && ipv6_only_sock(sk))
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.sa.sa_family = family;
	return __quic_bind(sk, &a);
}
EXPORT_SYMBOL_IF_QUIC_TEST(quic_sock_autobind);

static int quic_addr_to_user(const struct sock *sk, const union quic_addr *a,
			     struct sockaddr *uaddr)
{
	DECLARE_SOCKADDR(struct sockaddr_in6 *, sin6, uaddr);
	DECLARE_SOCKADDR(struct sockaddr_in *, sin, uaddr);

	if (a->sa.sa_family == AF_INET6) {
		*sin6 = a->v6;
		return sizeof(*sin6);
	}
	*sin = a->v4;
	return sizeof(*sin);
}

/* An AF_INET6 socket on an IPv4 path reports a plain sockaddr_in, as
 * applications of the QUIC socket API expect.
 */
static int quic_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct sock *sk = sock->sk;
	struct inet_sock *inet = inet_sk(sk);
	DECLARE_SOCKADDR(struct sockaddr_in6 *, sin6, uaddr);
	DECLARE_SOCKADDR(struct sockaddr_in *, sin, uaddr);
	int len;

	lock_sock(sk);
	if (peer) {
		len = -ENOTCONN;
		if (quic_is_conn(sk))
			len = quic_addr_to_user(sk, &quic_sk(sk)->conn.paths.peer,
						uaddr);
	} else if (sk->sk_family == AF_INET6 &&
		   !ipv6_addr_v4mapped(&sk->sk_v6_rcv_saddr)) {
		memset(sin6, 0, sizeof(*sin6));
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = inet->inet_sport;
		sin6->sin6_addr = sk->sk_v6_rcv_saddr;
		sin6->sin6_scope_id = ipv6_iface_scope_id(&sin6->sin6_addr,
							  sk->sk_bound_dev_if);
		len = sizeof(*sin6);
	} else {
		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_port = inet->inet_sport;
		sin->sin_addr.s_addr = inet->inet_rcv_saddr;
		len = sizeof(*sin);
	}
	release_sock(sk);
	return len;
}

/* POLLOUT (quic-api.rst 5.12): send buffer space and, once streams are
 * up, connection-level credit. Lockless reads: a hint, as for TCP.
 */
static bool quic_sock_writable(const struct sock *sk)
{
	const struct quic_conn *c = &quic_sk(sk)->conn;

	if (READ_ONCE(sk->sk_wmem_queued) >= READ_ONCE(sk->sk_sndbuf))
		return false;
	if (!READ_ONCE(c->streams_ready))
		return true;
	return READ_ONCE(c->streams.send.used) < READ_ONCE(c->streams.send.max);
}

static __poll_t quic_poll(struct file *file, struct socket *sock,
			  poll_table *wait)
{
	struct sock *sk = sock->sk;
	struct quic_conn *c = &quic_sk(sk)->conn;
	__poll_t mask = 0;

	sock_poll_wait(file, sock, wait);
	if (READ_ONCE(sk->sk_err) ||
	    !skb_queue_empty_lockless(&sk->sk_error_queue))
		mask |= EPOLLERR;
	switch (READ_ONCE(sk->sk_state)) {
	case TCP_LISTEN:
		if (READ_ONCE(sk->sk_ack_backlog))
			mask |= EPOLLIN | EPOLLRDNORM;
		break;
	case TCP_SYN_RECV:
	case TCP_ESTABLISHED:
		if (!skb_queue_empty_lockless(&sk->sk_receive_queue) ||
		    READ_ONCE(c->stream_rx) || quic_event_pending(sk) ||
		    quic_dgram_pending(sk))
			mask |= EPOLLIN | EPOLLRDNORM;
		if (quic_sock_writable(sk))
			mask |= EPOLLOUT | EPOLLWRNORM;
		break;
	default:
		/* A connection that was: closed now. */
		if (READ_ONCE(c->ids.scid.len))
			mask |= EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR |
				EPOLLOUT;
		/* A listener that was, as tcp_poll() reports one. */
		else if (c->is_server)
			mask |= EPOLLHUP;
		if (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN)
			mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
		break;
	}
	return mask;
}

static int quic_connect(struct socket *sock, struct sockaddr *uaddr,
			int addr_len, int flags)
{
	struct sock *sk = sock->sk;
	struct quic_conn *c = &quic_sk(sk)->conn;
	union quic_addr a, local;
	int err;

	err = quic_addr_from_user(sk, uaddr, addr_len, &a);
	if (err)
		return err == -EAFNOSUPPORT ? err : -EINVAL;
	if (a.sa.sa_family == AF_INET ?
	    (!a.v4.sin_port || a.v4.sin_addr.s_addr == htonl(INADDR_ANY)) :
	    (!a.v6.sin6_port || ipv6_addr_any(&a.v6.sin6_addr)))
		return -EINVAL;

	lock_sock(sk);
	err = -EINVAL;
	if (sk->sk_state != TCP_CLOSE || c->ids.scid.len)
		goto out;	/* connected, listening, or used before */
	err = quic_sock_autobind(sk, a.sa.sa_family);
	if (err)
		goto out;
	memset(&local, 0, sizeof(local));
	local.sa.sa_family = a.sa.sa_family;
	if (a.sa.sa_family == AF_INET) {
		local.v4.sin_addr.s_addr = inet_sk(sk)->inet_rcv_saddr;
		local.v4.sin_port = inet_sk(sk)->inet_sport;
	} else {
		local.v6.sin6_addr = sk->sk_v6_rcv_saddr;
		local.v6.sin6_port = inet_sk(sk)->inet_sport;
	}
	quic_path_pick_source(sk, &a, &local);
	quic_paths_set_local(&c->paths, &local);
	err = quic_conn_client_start(sk, &a);
	if (err) {
		quic_conn_forget_scid(c);
		goto out;
	}
	quic_sock_set_local(sk, &c->paths.local);
	quic_set_state(sk, TCP_SYN_RECV);
	sock->state = SS_CONNECTED;
out:
	release_sock(sk);
	return err;
}

static int quic_listen(struct socket *sock, int backlog)
{
	struct sock *sk = sock->sk;
	struct quic_conn *c = &quic_sk(sk)->conn;
	int err = 0;

	lock_sock(sk);
	if (sk->sk_state == TCP_LISTEN) {
		if (backlog > 0)
			WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
		else
			quic_conn_listen_stop(sk);
		goto out;
	}
	err = -EINVAL;
	if (backlog <= 0 || sk->sk_state != TCP_CLOSE || c->ids.scid.len)
		goto out;
	err = quic_crypto_retry_init();	/* Retry is sent from softirq */
	if (err)
		goto out;
	err = quic_sock_autobind(sk, sk->sk_family);
	if (err)
		goto out;
	quic_conn_set_server(c, true);
	WRITE_ONCE(sk->sk_shutdown, 0);	/* after a shutdown() of a listener */
	WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
	quic_set_state(sk, TCP_LISTEN);
	err = quic_lookup_listen_add(sk);
	if (err) {
		quic_set_state(sk, TCP_CLOSE);
		quic_conn_set_server(c, false);
	}
out:
	release_sock(sk);
	return err;
}

/* The multicast defaults of a new socket, IPv6's too (its ipv6_pinfo
 * set), as inet_create() and inet6_create() give them.
 */
static void quic_sock_mc_defaults(struct sock *sk)
{
#ifdef QUIC_HAVE_INET_FLAGS_MC	/* bits of inet_flags since 6.6 */
	inet_set_bit(MC_LOOP, sk);
	inet_set_bit(MC_ALL, sk);
#else
	inet_sk(sk)->mc_loop = 1;
	inet_sk(sk)->mc_all = 1;
#endif
	if (sk->sk_family != AF_INET6)
		return;
#ifdef QUIC_HAVE_INET_FLAGS_MC6	/* since 6.7 */
	inet6_set_bit(MC6_LOOP, sk);
	inet6_set_bit(MC6_ALL, sk);
#else
	inet6_sk(sk)->mc_loop = 1;
	inet6_sk(sk)->mc_all = 1;
#endif
}

/* A new socket for accept(), set up like the listener. */
static struct sock *quic_accept_sk(struct sock *sk, bool kern)
{
	struct inet_sock *inet, *linet = inet_sk(sk);
	struct ipv6_pinfo *np;
	struct sock *nsk;

	nsk = sk_alloc(sock_net(sk), sk->sk_family, GFP_KERNEL, sk->sk_prot,
		       kern);
	if (!nsk)
		return NULL;
	sock_init_data(NULL, nsk);
	nsk->sk_type = sk->sk_type;
	nsk->sk_protocol = sk->sk_protocol;
	nsk->sk_backlog_rcv = sk->sk_prot->backlog_rcv;
	nsk->sk_sndbuf = READ_ONCE(sk->sk_sndbuf);
	nsk->sk_rcvbuf = READ_ONCE(sk->sk_rcvbuf);
	nsk->sk_rcvtimeo = READ_ONCE(sk->sk_rcvtimeo);
	nsk->sk_sndtimeo = READ_ONCE(sk->sk_sndtimeo);
	nsk->sk_bound_dev_if = READ_ONCE(sk->sk_bound_dev_if);
	nsk->sk_mark = READ_ONCE(sk->sk_mark);
	inet = inet_sk(nsk);
	inet->uc_ttl = -1;
	inet->mc_ttl = 1;
	inet->mc_index = 0;
	inet->mc_list = NULL;
	inet->rcv_tos = 0;
	inet->pmtudisc = linet->pmtudisc;
	inet->inet_sport = linet->inet_sport;
	inet->inet_num = linet->inet_num;
	inet->inet_rcv_saddr = linet->inet_rcv_saddr;
	inet->inet_saddr = linet->inet_saddr;
	if (sk->sk_family == AF_INET6) {
		nsk->sk_destruct = inet6_sock_destruct;
		np = &((struct quic6_sock *)nsk)->inet6;
		inet->pinet6 = np;
		np->hop_limit = -1;
		np->mcast_hops = IPV6_DEFAULT_MCASTHOPS;
		np->pmtudisc = IPV6_PMTUDISC_WANT;
		nsk->sk_ipv6only = sk->sk_ipv6only;
		nsk->sk_v6_rcv_saddr = sk->sk_v6_rcv_saddr;
		np->saddr = inet6_sk(sk)->saddr;
	} else {
		nsk->sk_destruct = inet_sock_destruct;
	}
	quic_sock_mc_defaults(nsk);
	if (nsk->sk_prot->init(nsk)) {
		sk_free(nsk);
		return NULL;
	}
	refcount_inc(&quic_sk(sk)->udp->refcnt);
	quic_sk(nsk)->udp = quic_sk(sk)->udp;
	quic_sk(nsk)->bound = 1;
	/* Settings made on the listener carry over (quic-api.rst 4.2). */
	quic_sock_opts_copy(&quic_sk(nsk)->opts, &quic_sk(sk)->opts);
	quic_conn_inherit(nsk, sk);
	quic_sk(nsk)->opts.server = 1;
	return nsk;
}

static int quic_wait_for_request(struct sock *sk, long timeo)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	int err = 0;

	add_wait_queue(sk_sleep(sk), &wait);
	while (list_empty(&c->requests)) {
		err = -EAGAIN;
		if (!timeo)
			break;
		err = sock_intr_errno(timeo);
		if (signal_pending(current))
			break;
		err = -EINVAL;
		if (sk->sk_state != TCP_LISTEN)
			break;
		sk_wait_event(sk, &timeo, !list_empty(&c->requests) ||
			      sk->sk_state != TCP_LISTEN, &wait);
		err = 0;
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	return list_empty(&c->requests) ? (err ? err : -EAGAIN) : 0;
}

/* A request made a connection: an Initial packet decrypted, was
 * processed, and began the client's TLS handshake (CRYPTO data from
 * offset 0). The listener queued only requests whose first Initial
 * did so (quic_in_listen_hello()), and poll() reported them: the check
 * fails only when this socket could not do what the listener did (no
 * memory for the keys). A connection that a later datagram closed (the
 * client gave up while it waited) is handed out closed, as TCP hands out
 * a connection reset in its accept queue: dropping it here would leave a
 * blocking accept() that poll() woke waiting for another client.
 */
static bool quic_accept_valid(struct sock *nsk)
{
	struct quic_conn *c = &quic_sk(nsk)->conn;
	struct quic_pnspace *s = c->space.at[QUIC_CRYPTO_INITIAL];
	u64 largest;

	return quic_ackrange_largest(&s->recv, &largest) &&
	       quic_reasm_offset(&s->crypto_in);
}

/* Tear down a socket accept() made and does not hand out; locked. */
static void quic_accept_sk_drop(struct sock *nsk)
{
	quic_conn_free(nsk);
	release_sock(nsk);
	sk_common_release(nsk);
}

static int quic_accept_common(struct socket *sock, struct socket *newsock,
			      int flags, bool kern)
{
	struct sock *sk = sock->sk, *nsk;
	struct quic_request *req;
	struct sk_buff *skb;
	int err;

	lock_sock(sk);
again:
	err = -EINVAL;
	if (sk->sk_state != TCP_LISTEN)
		goto out;
	err = quic_wait_for_request(sk, sock_rcvtimeo(sk, flags & O_NONBLOCK));
	if (err)
		goto out;
	req = list_first_entry(&quic_sk(sk)->conn.requests,
			       struct quic_request, list);
	list_del(&req->list);
	sk_acceptq_removed(sk);

	err = -ENOMEM;
	nsk = quic_accept_sk(sk, kern);
	if (!nsk) {
		quic_conn_request_free(req);
		goto out;
	}
	lock_sock_nested(nsk, SINGLE_DEPTH_NESTING);
	err = quic_conn_server_start(nsk, req);
	if (err) {
		quic_accept_sk_drop(nsk);
		quic_conn_request_free(req);
		goto out;
	}
	quic_set_state(nsk, TCP_SYN_RECV);
	while ((skb = skb_dequeue(&req->skbs))) {
		skb_orphan(skb);	/* uncharge the listener */
		quic_input_accept_skb(nsk, skb);
	}
	quic_conn_request_free(req);
	/* What this socket could not open is dropped, and accept() takes
	 * the next request or waits (EAGAIN when non-blocking).
	 */
	if (!quic_accept_valid(nsk)) {
		quic_accept_sk_drop(nsk);
		goto again;
	}
	sock_graft(nsk, newsock);
#ifdef QUIC_HAVE_CUSTOM_SOCKOPT
	set_bit(SOCK_CUSTOM_SOCKOPT, &newsock->flags);
#endif
	newsock->state = SS_CONNECTED;
	release_sock(nsk);
	err = 0;
out:
	release_sock(sk);
	return err;
}

#ifdef QUIC_HAVE_PROTO_ACCEPT_ARG	/* since 6.10 */
static int quic_accept(struct socket *sock, struct socket *newsock,
		       struct proto_accept_arg *arg)
{
	return quic_accept_common(sock, newsock, arg->flags, arg->kern);
}
#else
static int quic_accept(struct socket *sock, struct socket *newsock, int flags,
		       bool kern)
{
	return quic_accept_common(sock, newsock, flags, kern);
}
#endif

static int quic_shutdown(struct socket *sock, int how)
{
	return quic_close_shutdown(sock->sk, how);
}

/* Room to queue on @st: flow-control credit and send buffer space (the
 * chunks' own overhead may take the send buffer a little beyond it).
 */
static u64 quic_sock_stream_room(struct sock *sk, struct quic_stream *st)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	int space = READ_ONCE(sk->sk_sndbuf) - sk->sk_wmem_queued;

	if (space <= 0)
		return 0;
	return min_t(u64, space, quic_stream_send_credit(&c->streams, st));
}

/* Sleep until woken or @timeo runs out. The caller checks what it waits
 * for under the socket lock before and after: streams are not looked up
 * while the lock is released, as they may be freed meanwhile.
 */
static void quic_sock_wait(struct sock *sk, long *timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);

	add_wait_queue(sk_sleep(sk), &wait);
	quic_input_user_wait(sk, true);
	release_sock(sk);
	*timeo = wait_woken(&wait, TASK_INTERRUPTIBLE, *timeo);
	lock_sock(sk);
	quic_input_user_wait(sk, false);
	remove_wait_queue(sk_sleep(sk), &wait);
}

/* Wait for room to send, after a flush: 0 to try again, or the error to
 * return (@again when non-blocking, EPIPE once the connection is gone).
 */
static int quic_sock_send_wait(struct sock *sk, long *timeo, int again)
{
	if (!*timeo)
		return again;
	if (signal_pending(current))
		return sock_intr_errno(*timeo);
	quic_output_flush(sk, GFP_KERNEL);
	quic_sock_wait(sk, timeo);
	return quic_is_conn(sk) ? 0 : -EPIPE;
}

/* Room to queue on stream @id, looked up again: it may have been reset
 * and freed while the socket was released. *@st is NULL once the stream
 * cannot send.
 */
static u64 quic_sock_stream_room_id(struct sock *sk, s64 id, struct quic_stream **st)
{
	struct quic_conn *c = &quic_sk(sk)->conn;

	*st = quic_stream_find(&c->streams, id);
	if (*st && (*st)->send_state != QUIC_STREAM_SEND_STATE_READY &&
	    (*st)->send_state != QUIC_STREAM_SEND_STATE_SEND)
		*st = NULL;
	return *st ? quic_sock_stream_room(sk, *st) : 0;
}

/* MSG_ZEROCOPY on a socket with SO_ZEROCOPY, of user memory: the
 * completion the chunks of this call will hold, or NULL to copy (as
 * TCP, which ignores the flag without SO_ZEROCOPY). ERR_PTR(-ENOBUFS)
 * past the pinned-memory limits.
 */
static struct ubuf_info *quic_sock_zc_start(struct sock *sk,
					    struct msghdr *msg, size_t len)
{
	struct ubuf_info *uarg;

	if (!(msg->msg_flags & MSG_ZEROCOPY) || !len ||
	    !sock_flag(sk, SOCK_ZEROCOPY) || !user_backed_iter(&msg->msg_iter))
		return NULL;
	uarg = msg_zerocopy_realloc(sk, len, NULL);
	return uarg ?: ERR_PTR(-ENOBUFS);
}

/* Stream data (quic-api.rst 5.2). A sender short of flow-control credit
 * sends DATA_BLOCKED / STREAM_DATA_BLOCKED, one short of streams
 * STREAMS_BLOCKED. MSG_MORE corking is not done yet.
 *
 * @paged: the bytes are pages to reference (sendfile(), splice()), not
 * to copy; so are those of a MSG_ZEROCOPY send, whose completion is
 * queued on the error queue once the peer acknowledged them all.
 */
static int quic_sock_stream_sendmsg(struct sock *sk, struct msghdr *msg,
				    size_t len, struct quic_stream_info *info,
				    bool has_info, bool paged)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct quic_conn *c = &quic_sk(sk)->conn;
	u32 sflags = info->stream_flags;
	bool fin = sflags & MSG_QUIC_STREAM_FIN;
	struct ubuf_info *uarg = NULL;
	size_t done = 0;
	bool uni, created;
	struct quic_stream *st;
	s64 id = info->stream_id;
	long timeo, stimeo;
	int err;
	u64 n;

	if (!len && !fin)
		return -EMSGSIZE;
	lock_sock(sk);
	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	/* quic-api.rst 5.2 rule 6: the wait for stream credit ignores
	 * MSG_DONTWAIT and O_NONBLOCK; MSG_QUIC_STREAM_DONTWAIT ends it.
	 */
	stimeo = sock_sndtimeo(sk, false);
	err = -EPIPE;
	if (!quic_is_conn(sk))
		goto out;
	err = -EINVAL;
	if (!quic_streams_up(sk))
		goto out;
	/* quic-api.rst 5.2: -1 is the active stream whatever the flags, so
	 * that a second MSG_QUIC_STREAM_NEW before the FIN fails.
	 */
	if (id == -1 && c->active_sid != -1)
		id = c->active_sid;
	for (;;) {
		created = (sflags & MSG_QUIC_STREAM_NEW) &&
			  (id == -1 || !quic_stream_find(&c->streams, id));
		st = quic_stream_send_get(&c->streams, id,
					  sflags & MSG_QUIC_STREAM_UNI,
					  sflags & MSG_QUIC_STREAM_NEW);
		if (!IS_ERR(st))
			break;
		err = PTR_ERR(st);
		if (err == -EAGAIN)
			err = quic_streams_limit_err(sk);
		if (err == -EAGAIN) {
			quic_stream_open_blocked(&c->streams,
						 sflags & MSG_QUIC_STREAM_UNI);
			quic_output_flush(sk, GFP_KERNEL);
		}
		if (err != -EAGAIN || (sflags & MSG_QUIC_STREAM_DONTWAIT) ||
		    !stimeo)
			goto out;
		err = sock_intr_errno(stimeo);
		if (signal_pending(current))
			goto out;
		uni = sflags & MSG_QUIC_STREAM_UNI;
		add_wait_queue(sk_sleep(sk), &wait);
		sk_wait_event(sk, &stimeo, sk->sk_state != TCP_ESTABLISHED ||
			      quic_stream_open_allowed(&c->streams, id, uni),
			      &wait);
		remove_wait_queue(sk_sleep(sk), &wait);
		err = -EPIPE;
		if (sk->sk_state != TCP_ESTABLISHED)
			goto out;
	}
	id = st->id;
	/* quic-api.rst 5.2: a stream this call created becomes the active
	 * stream; it stops being so only once its FIN is queued, so that a
	 * partial write carries on with stream ID -1.
	 */
	if (created)
		c->active_sid = id;
	if (!paged) {
		uarg = quic_sock_zc_start(sk, msg, len);
		if (IS_ERR(uarg)) {
			err = PTR_ERR(uarg);
			uarg = NULL;
			goto out;
		}
		paged = !!uarg;
	}
	do {
		n = min_t(u64, len - done, quic_sock_stream_room_id(sk, id, &st));
		if (!st) {
			err = -EINVAL;	/* reset meanwhile */
			goto partial;
		}
		if (!n && len != done) {
			bool fc = !quic_stream_send_credit(&c->streams, st);

			if (fc) {
				quic_stream_blocked(&c->streams, st);
				quic_output_flush(sk, GFP_KERNEL);
			}
			err = quic_sock_send_wait(sk, &timeo, has_info && fc ?
						  -ENOSPC : -EAGAIN);
			if (err)
				goto partial;
			continue;
		}
		if (paged && n)
			err = quic_sendq_stream_pages(sk, st, &msg->msg_iter,
						      n, fin && done + n == len,
						      quic_output_frame_room(sk),
						      uarg);
		else
			err = quic_sendq_stream(sk, st, &msg->msg_iter, n,
						fin && done + n == len,
						quic_output_frame_room(sk));
		if (err)
			goto partial;
		done += n;
		quic_output_flush(sk, GFP_KERNEL);
	} while (done < len);
	if (fin && c->active_sid == id)
		c->active_sid = -1;
	err = done;
	goto out;
partial:
	if (done)
		err = done;
out:
	/* The chunks hold the completion now; none if nothing was queued. */
	if (uarg && done)
		net_zcopy_put(uarg);
	else if (uarg)
		net_zcopy_put_abort(uarg, true);
	release_sock(sk);
	if (err == -EPIPE && !(msg->msg_flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current, 0);
	return err;
}

/* A datagram (quic-api.rst 5.5): queued whole or not at all, no
 * SIGPIPE.
 */
static int quic_sock_dgram_sendmsg(struct sock *sk, struct msghdr *msg,
				   size_t len)
{
	long timeo;
	int err, max;

	lock_sock(sk);
	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	err = -EPIPE;
	if (!quic_is_conn(sk))
		goto out;
	err = -EINVAL;
	if (sk->sk_state != TCP_ESTABLISHED)
		goto out;
	max = quic_dgram_max_payload(sk);
	if (max < 0)
		goto out;
	err = -EMSGSIZE;
	if (!len || len > READ_ONCE(sk->sk_sndbuf) || len > max)
		goto out;
	while (sk->sk_wmem_queued + len > READ_ONCE(sk->sk_sndbuf)) {
		err = quic_sock_send_wait(sk, &timeo, -EAGAIN);
		if (err)
			goto out;
	}
	err = quic_dgram_queue(sk, msg, len);
	if (err)
		goto out;
	if (!(msg->msg_flags & MSG_MORE))
		quic_output_flush(sk, GFP_KERNEL);
	err = len;
out:
	release_sock(sk);
	return err;
}

/* Flags of a send besides quic-api.rst's: MSG_ZEROCOPY (stream data
 * only; ignored elsewhere, and without SO_ZEROCOPY, as on TCP), and the
 * pages of a splice() since kernels pass them to sendmsg().
 */
#ifdef QUIC_HAVE_SPLICE_TO_SOCKET	/* since 6.5 */
#define QUIC_SEND_PAGE_FLAGS	(MSG_ZEROCOPY | MSG_SPLICE_PAGES)

static bool quic_sock_splice(const struct msghdr *msg)
{
	return msg->msg_flags & MSG_SPLICE_PAGES;
}
#else
#define QUIC_SEND_PAGE_FLAGS	MSG_ZEROCOPY

static bool quic_sock_splice(const struct msghdr *msg)
{
	return false;
}
#endif

static int quic_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct sock *sk = sock->sk;
	struct quic_handshake_info info;
	struct quic_stream_info sinfo = { .stream_id = -1 };
	bool hs = false, has_sinfo = false;
	struct quic_pnspace *s;
	struct cmsghdr *cmsg;
	long timeo;
	int err;

	if (msg->msg_flags & ~(QUIC_SEND_FLAGS | QUIC_SEND_PAGE_FLAGS))
		return -EINVAL;
	for_each_cmsghdr(cmsg, msg) {
		if (!CMSG_OK(msg, cmsg))
			return -EINVAL;
		if (cmsg->cmsg_level != SOL_QUIC)
			continue;
		if (cmsg->cmsg_type == QUIC_STREAM_INFO) {
			memset(&sinfo, 0, sizeof(sinfo));
			memcpy(&sinfo, CMSG_DATA(cmsg),
			       min_t(size_t, sizeof(sinfo),
				     cmsg->cmsg_len - CMSG_LEN(0)));
			if (sinfo.stream_flags & ~QUIC_STREAM_FLAGS)
				return -EINVAL;
			has_sinfo = true;
			continue;
		}
		if (cmsg->cmsg_type != QUIC_HANDSHAKE_INFO)
			return -EINVAL;
		if (cmsg->cmsg_len < CMSG_LEN(sizeof(info)))
			return -EINVAL;
		memcpy(&info, CMSG_DATA(cmsg), sizeof(info));
		hs = true;
	}
	if (!hs) {
		if (msg->msg_flags & MSG_QUIC_DATAGRAM)
			return quic_sock_dgram_sendmsg(sk, msg, len);
		if (!has_sinfo)
			sinfo.stream_flags = msg->msg_flags & QUIC_STREAM_FLAGS;
		if (len > INT_MAX)
			return -EMSGSIZE;
		return quic_sock_stream_sendmsg(sk, msg, len, &sinfo, has_sinfo,
						quic_sock_splice(msg));
	}

	lock_sock(sk);
	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	for (;;) {
		err = -EPIPE;
		if (!quic_is_conn(sk))
			goto out;
		err = -EINVAL;
		if (info.crypto_level != QUIC_CRYPTO_INITIAL &&
		    info.crypto_level != QUIC_CRYPTO_HANDSHAKE &&
		    info.crypto_level != QUIC_CRYPTO_APP)
			goto out;
		s = quic_sk(sk)->conn.space.at[info.crypto_level];
		if (s->discarded || !quic_crypto_ready(&s->tx))
			goto out;
		err = -EMSGSIZE;
		if (!len || len > INT_MAX)
			goto out;
		err = quic_sendq_crypto_room(sk, info.crypto_level, len);
		if (err != -EAGAIN)
			break;
		/* quic-api.rst 4.3 (b): a blocking call queues it all. */
		err = quic_sock_send_wait(sk, &timeo, -EAGAIN);
		if (err)
			goto out;
	}
	if (err)
		goto out;
	err = quic_sendq_crypto(sk, info.crypto_level, &msg->msg_iter, len);
	if (err)
		goto out;
	if (!(msg->msg_flags & MSG_MORE))
		quic_output_flush(sk, GFP_KERNEL);
	err = len;
out:
	release_sock(sk);
	return err;
}

#ifndef QUIC_HAVE_SPLICE_TO_SOCKET
/* sendfile() and splice() of a page (until 6.5): stream data, on the
 * stream a sendmsg() without a QUIC_STREAM_INFO cmsg and without stream
 * flags would choose (quic-api.rst 5.2). The chunks reference the page;
 * one sendpage_ok() refuses (slab memory) is copied.
 */
static ssize_t quic_sendpage(struct socket *sock, struct page *page,
			     int offset, size_t size, int flags)
{
	struct quic_stream_info sinfo = { .stream_id = -1 };
	struct msghdr msg = {
		.msg_flags = flags & (MSG_DONTWAIT | MSG_NOSIGNAL | MSG_MORE),
	};
	struct bio_vec bv;

	if (!size)
		return 0;
	if (size > INT_MAX)
		return -EMSGSIZE;
	bvec_set_page(&bv, page, size, offset);
	iov_iter_bvec(&msg.msg_iter, WRITE, &bv, 1, size);
	return quic_sock_stream_sendmsg(sock->sk, &msg, size, &sinfo, false,
					sendpage_ok(page));
}
#endif

/* The error queue (MSG_ERRQUEUE): MSG_ZEROCOPY completions. Read only
 * on a socket with SO_ZEROCOPY or something queued there: elsewhere
 * the flag is one of those recvmsg() ignores (quic-api.rst 5.4).
 */
static bool quic_sock_errqueue(struct sock *sk, int flags)
{
	return (flags & MSG_ERRQUEUE) &&
	       (sock_flag(sk, SOCK_ZEROCOPY) ||
		!skb_queue_empty_lockless(&sk->sk_error_queue));
}

/* A stream with something to read, or NULL; clears stream_rx if none. */
static struct quic_stream *quic_sock_next_readable(struct sock *sk)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_stream *st;

	if (!c->streams_ready)
		return NULL;
	st = quic_stream_first_readable(&c->streams);
	if (!st)
		WRITE_ONCE(c->stream_rx, false);
	return st;
}

/* Read one stream's in-order bytes (quic-api.rst 5.3), then send the
 * window updates reading made due; MSG_PEEK copies them and changes
 * nothing.
 */
static int quic_sock_stream_recvmsg(struct sock *sk, struct msghdr *msg,
				    struct quic_stream *st, int flags)
{
	struct quic_conn *c = &quic_sk(sk)->conn;
	struct quic_stream_info info = {};
	u64 now = ktime_to_us(ktime_get());
	ssize_t n;
	bool fin;

	info.stream_id = st->id;
	if (flags & MSG_PEEK)
		n = quic_stream_peek(&c->streams, st, &msg->msg_iter, &fin);
	else
		n = quic_stream_read(&c->streams, st, &msg->msg_iter, &fin);
	if (n < 0)
		return n;
	if (fin)
		info.stream_flags |= MSG_QUIC_STREAM_FIN;
	put_cmsg(msg, SOL_QUIC, QUIC_STREAM_INFO, sizeof(info), &info);
	if (msg->msg_flags & MSG_CTRUNC)
		msg->msg_flags |= info.stream_flags;
	if (flags & MSG_PEEK)
		return n;
	if (quic_fc_recv_update(&c->streams.recv, now, c->loss.rec.rtt.smoothed_rtt))
		quic_ctrl_want_max_data(&c->ctrl);
	if (quic_stream_window_update(st, now, c->loss.rec.rtt.smoothed_rtt))
		quic_ctrl_msd(sk, st->id);
	if (fin)
		quic_stream_release(&c->streams, st);
	quic_sock_next_readable(sk);
	if (c->ctrl.max_data_pending || c->ctrl.nr_msd || c->ctrl.msd_all)
		quic_output_flush(sk, GFP_KERNEL);
	return n;
}

static int quic_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
			int flags)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct quic_stream *st = NULL;
	struct sock *sk = sock->sk;
	struct quic_handshake_info info = {};
	struct quic_crypto_cb *cb;
	struct sk_buff *skb;
	long timeo;
	int err;
	u32 n;

	if (quic_sock_errqueue(sk, flags)) {
		if (sk->sk_family == AF_INET6)
			return sock_recv_errqueue(sk, msg, len, SOL_IPV6,
						  IPV6_RECVERR);
		return sock_recv_errqueue(sk, msg, len, SOL_IP, IP_RECVERR);
	}
	/* quic-api.rst 5.4: flags other than MSG_DONTWAIT and MSG_PEEK are
	 * accepted and ignored (libquic passes whatever its caller's word
	 * holds).
	 */
	lock_sock(sk);
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	for (;;) {
		skb = skb_peek(&sk->sk_receive_queue);
		if (skb)
			break;
		err = quic_event_recvmsg(sk, msg, len, flags);
		if (err != -EAGAIN)
			goto out;
		/* Datagrams go ahead of stream data (the draft has
		 * them in arrival order; both wait in queues of their own).
		 */
		err = quic_dgram_recvmsg(sk, msg, len, flags);
		if (err != -EAGAIN)
			goto out;
		st = quic_sock_next_readable(sk);
		if (st) {
			err = quic_sock_stream_recvmsg(sk, msg, st, flags);
			goto out;
		}
		err = -ENOTCONN;
		if (!quic_is_conn(sk))
			goto out;
		err = -EAGAIN;
		if (!timeo)
			goto out;
		err = sock_intr_errno(timeo);
		if (signal_pending(current))
			goto out;
		add_wait_queue(sk_sleep(sk), &wait);
		quic_input_user_wait(sk, true);
		sk_wait_event(sk, &timeo,
			      !skb_queue_empty(&sk->sk_receive_queue) ||
			      READ_ONCE(quic_sk(sk)->conn.stream_rx) ||
			      quic_event_pending(sk) ||
			      quic_dgram_pending(sk) ||
			      !quic_is_conn(sk), &wait);
		quic_input_user_wait(sk, false);
		remove_wait_queue(sk_sleep(sk), &wait);
	}
	cb = QUIC_CRYPTO_CB(skb);
	n = min_t(u32, len, skb->len - cb->consumed);
	err = skb_copy_datagram_msg(skb, cb->consumed, msg, n);
	if (err)
		goto out;
	info.crypto_level = cb->level;
	put_cmsg(msg, SOL_QUIC, QUIC_HANDSHAKE_INFO, sizeof(info), &info);
	if (!(flags & MSG_PEEK)) {
		cb->consumed += n;
		if (cb->consumed == skb->len) {
			msg->msg_flags |= MSG_EOR;
			skb_unlink(skb, &sk->sk_receive_queue);
			kfree_skb(skb);
		}
	}
	err = n;
out:
	release_sock(sk);
	return err;
}

/* Stream bytes queued and never sent yet, for SIOCOUTQNSD. */
static int quic_unsent_bytes(struct sock *sk)
{
	return min_t(u64, quic_sendq_unsent(sk), INT_MAX);
}

/* The queue ioctls, as for TCP: SIOCINQ and SIOCOUTQ give the receive
 * and send memory in use, SIOCOUTQNSD the stream bytes not sent once
 * yet. A listener has no queues: EINVAL.
 */
static int quic_ioctl_value(struct sock *sk, int cmd, int *karg)
{
	switch (cmd) {
	case SIOCINQ:
	case SIOCOUTQ:
	case SIOCOUTQNSD:
		break;
	default:
		return -ENOIOCTLCMD;
	}
	lock_sock(sk);
	if (sk->sk_state == TCP_LISTEN) {
		release_sock(sk);
		return -EINVAL;
	}
	if (cmd == SIOCINQ)
		*karg = sk_rmem_alloc_get(sk);
	else if (cmd == SIOCOUTQ)
		*karg = READ_ONCE(sk->sk_wmem_queued);
	else
		*karg = quic_unsent_bytes(sk);
	release_sock(sk);
	return 0;
}

#ifdef QUIC_HAVE_SK_IOCTL	/* since 6.5 the core copies the value out */
static int quic_ioctl(struct sock *sk, int cmd, int *karg)
{
	return quic_ioctl_value(sk, cmd, karg);
}
#else
static int quic_ioctl(struct sock *sk, int cmd, unsigned long arg)
{
	int karg, err = quic_ioctl_value(sk, cmd, &karg);

	return err ?: put_user(karg, (int __user *)arg);
}
#endif

/* SOL_SOCKET options (the socket has SOCK_CUSTOM_SOCKOPT): SO_ZEROCOPY
 * here, which the core takes from TCP and UDP sockets only, the others
 * as the core sets them.
 */
static int quic_sock_sol_socket(struct sock *sk, int optname,
				sockptr_t optval, unsigned int optlen)
{
	int val;

	if (optname != SO_ZEROCOPY)
		return sock_setsockopt(sk->sk_socket, SOL_SOCKET, optname,
				       optval, optlen);
	if (optlen < sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(&val, optval, sizeof(val)))
		return -EFAULT;
	if (val < 0 || val > 1)
		return -EINVAL;
	lock_sock(sk);
	sock_valbool_flag(sk, SOCK_ZEROCOPY, val);
	release_sock(sk);
	return 0;
}

static int quic_setsockopt(struct sock *sk, int level, int optname,
			   sockptr_t optval, unsigned int optlen)
{
	if (level == SOL_QUIC)
		return quic_sockopt_set(sk, optname, optval, optlen);
	if (level == SOL_SOCKET)
		return quic_sock_sol_socket(sk, optname, optval, optlen);

	if (sk->sk_family == AF_INET6 && level == SOL_IPV6) {
		/* ipv6_setsockopt() refuses this once inet_num is set,
		 * as it is after bind(); be explicit about it.
		 */
		if (optname == IPV6_V6ONLY && READ_ONCE(quic_sk(sk)->bound))
			return -EINVAL;
		return ipv6_setsockopt(sk, level, optname, optval, optlen);
	}
	return ip_setsockopt(sk, level, optname, optval, optlen);
}

static int quic_getsockopt(struct sock *sk, int level, int optname,
			   char __user *optval, int __user *optlen)
{
	if (level == SOL_QUIC)
		return quic_sockopt_get(sk, optname, USER_SOCKPTR(optval),
					USER_SOCKPTR(optlen));

	if (sk->sk_family == AF_INET6 && level == SOL_IPV6)
		return ipv6_getsockopt(sk, level, optname, optval, optlen);
	return ip_getsockopt(sk, level, optname, optval, optlen);
}

/* QUIC sockets lock the kernel UDP socket under them (bind: udp.c creates
 * and binds it with the QUIC socket locked). Both are inet sockets, and a
 * QUIC socket made with sock_create_kern() would share its lockdep class
 * with the UDP socket ("possible recursive locking"): QUIC sockets have
 * classes of their own, one per family.
 */
static struct lock_class_key quic_sk_lock_key[2], quic_sk_slock_key[2];

static void quic_sock_lockdep_init(struct sock *sk)
{
	bool v6 = sk->sk_family == AF_INET6;

	sock_lock_init_class_and_name(sk,
				      v6 ? "slock-AF_INET6-QUIC" : "slock-AF_INET-QUIC",
				      &quic_sk_slock_key[v6],
				      v6 ? "sk_lock-AF_INET6-QUIC" : "sk_lock-AF_INET-QUIC",
				      &quic_sk_lock_key[v6]);
}

static int quic_init_sock(struct sock *sk)
{
	quic_sock_lockdep_init(sk);
	quic_sock_opts_init(&quic_sk(sk)->opts, false);
	/* The receive path finds sockets under RCU (conn.c). */
	sock_set_flag(sk, SOCK_RCU_FREE);
#ifdef QUIC_HAVE_CUSTOM_SOCKOPT	/* since 6.6 */
	/* SOL_SOCKET options go to quic_setsockopt() (SO_ZEROCOPY); an
	 * accepted socket gets its struct socket later. 6.1 gives them to
	 * the core, which refuses SO_ZEROCOPY: MSG_ZEROCOPY then copies.
	 */
	if (sk->sk_socket)
		set_bit(SOCK_CUSTOM_SOCKOPT, &sk->sk_socket->flags);
#endif
	quic_conn_init(sk);
	quic_socklist_add(sk);
	sock_prot_inuse_add(sock_net(sk), sk->sk_prot, 1);
	return 0;
}

static void quic_destroy_sock(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	quic_socklist_del(sk);
	if (qs->udp) {
		quic_udp_sock_put(qs->udp);
		qs->udp = NULL;
	}
	quic_sock_opts_free(&qs->opts);
	quic_conn_destroy(sk);
	sock_prot_inuse_add(sock_net(sk), sk->sk_prot, -1);
}

/* SO_LINGER: wait up to @timeo for the peer to acknowledge every byte
 * of stream data queued, retransmitting as needed, before the close.
 */
static void quic_close_linger(struct sock *sk, long timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);

	quic_output_flush(sk, GFP_KERNEL);
	add_wait_queue(sk_sleep(sk), &wait);
	while (timeo && !quic_sendq_done(sk) &&
	       sk->sk_state == TCP_ESTABLISHED && !signal_pending(current))
		sk_wait_event(sk, &timeo, quic_sendq_done(sk) ||
			      sk->sk_state != TCP_ESTABLISHED, &wait);
	remove_wait_queue(sk_sleep(sk), &wait);
}

static void quic_close(struct sock *sk, long timeout)
{
	lock_sock(sk);
	WRITE_ONCE(sk->sk_shutdown, SHUTDOWN_MASK);
	if (sk->sk_state == TCP_LISTEN) {
		quic_conn_listen_stop(sk);
	} else if (quic_is_conn(sk)) {
		if (sk->sk_state == TCP_ESTABLISHED &&
		    sock_flag(sk, SOCK_LINGER) && timeout)
			quic_close_linger(sk, timeout);
		/* quic-api.rst 5.8: no draining. */
		quic_close_local(sk, true);
	}
	quic_conn_free(sk);
	release_sock(sk);
	sk_common_release(sk);
}

/* Called by sk_common_release(); nothing is hashed yet. */
static void quic_unhash(struct sock *sk)
{
}

struct proto quic_prot = {
	.name		= "QUIC",
	.owner		= THIS_MODULE,
	.close		= quic_close,
	.init		= quic_init_sock,
	.destroy	= quic_destroy_sock,
	.ioctl		= quic_ioctl,
	.setsockopt	= quic_setsockopt,
	.getsockopt	= quic_getsockopt,
	.unhash		= quic_unhash,
	.backlog_rcv	= quic_input_backlog_rcv,
	.release_cb	= quic_input_release_cb,
	.obj_size	= sizeof(struct quic_sock),
};

struct proto quic_v6_prot = {
	.name		= "QUICv6",
	.owner		= THIS_MODULE,
	.close		= quic_close,
	.init		= quic_init_sock,
	.destroy	= quic_destroy_sock,
	.ioctl		= quic_ioctl,
	.setsockopt	= quic_setsockopt,
	.getsockopt	= quic_getsockopt,
	.unhash		= quic_unhash,
	.backlog_rcv	= quic_input_backlog_rcv,
	.release_cb	= quic_input_release_cb,
	.obj_size	= sizeof(struct quic6_sock),
};

const struct proto_ops quic_proto_ops = {
	.family		= PF_INET,
	.owner		= THIS_MODULE,
	.release	= inet_release,
	.bind		= quic_bind,
	.connect	= quic_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= quic_accept,
	.getname	= quic_getname,
	.poll		= quic_poll,
	.ioctl		= inet_ioctl,
	.gettstamp	= sock_gettstamp,
	.listen		= quic_listen,
	.shutdown	= quic_shutdown,
	.setsockopt	= sock_common_setsockopt,
	.getsockopt	= sock_common_getsockopt,
	.sendmsg	= quic_sendmsg,
	.recvmsg	= quic_recvmsg,
	.mmap		= sock_no_mmap,
#ifndef QUIC_HAVE_SPLICE_TO_SOCKET
	.sendpage	= quic_sendpage,
#endif
};

const struct proto_ops quic_v6_proto_ops = {
	.family		= PF_INET6,
	.owner		= THIS_MODULE,
	.release	= inet6_release,
	.bind		= quic_bind,
	.connect	= quic_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= quic_accept,
	.getname	= quic_getname,
	.poll		= quic_poll,
	.ioctl		= inet6_ioctl,
	.gettstamp	= sock_gettstamp,
	.listen		= quic_listen,
	.shutdown	= quic_shutdown,
	.setsockopt	= sock_common_setsockopt,
	.getsockopt	= sock_common_getsockopt,
	.sendmsg	= quic_sendmsg,
	.recvmsg	= quic_recvmsg,
	.mmap		= sock_no_mmap,
#ifndef QUIC_HAVE_SPLICE_TO_SOCKET
	.sendpage	= quic_sendpage,
#endif
};
