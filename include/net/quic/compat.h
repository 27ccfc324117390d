/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: what differs between the kernels the module builds against,
 * Debian's 6.1 and 6.12, in one place. Every other file uses the API of
 * the kernel it is built for through these helpers. The QUIC_HAVE_*
 * symbols say what the kernel provides: the out-of-tree Kbuild finds
 * them in its headers; in the tree the series applies to (6.1) none is
 * defined, and each helper is that kernel's own API.
 */

#ifndef __NET_QUIC_COMPAT_H
#define __NET_QUIC_COMPAT_H

#include <linux/ipv6.h>
#include <linux/net.h>
#include <linux/uaccess.h>
#include <net/inet_sock.h>
#include <net/net_namespace.h>
#include <net/sock.h>

/* 6.12 moved the unaligned access helpers to linux/. */
#ifdef QUIC_HAVE_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* A namespace's sysctl table, @n entries then an empty one: 6.1 looks for
 * the empty entry, since 6.6 the caller gives the size.
 */
static inline struct ctl_table_header *
quic_compat_register_sysctl(struct net *net, const char *path,
			    struct ctl_table *table, size_t n)
{
#ifdef QUIC_HAVE_NET_SYSCTL_SZ
	return register_net_sysctl_sz(net, path, table, n);
#else
	return register_net_sysctl(net, path, table);
#endif
}

/* The bodies of two entry points whose types differ (socket.c). */
int quic_ioctl_value(struct sock *sk, int cmd, int *karg);
int quic_accept_common(struct socket *sock, struct socket *newsock, int flags,
		       bool kern);

/* struct proto's .ioctl. Since 6.5 (sk_ioctl()) the socket core copies
 * the value to user space itself.
 */
#ifdef QUIC_HAVE_SK_IOCTL
static inline int quic_ioctl(struct sock *sk, int cmd, int *karg)
{
	return quic_ioctl_value(sk, cmd, karg);
}
#else
static inline int quic_ioctl(struct sock *sk, int cmd, unsigned long arg)
{
	int karg, err = quic_ioctl_value(sk, cmd, &karg);

	return err ?: put_user(karg, (int __user *)arg);
}
#endif

/* struct proto_ops' .accept. Since 6.10 the arguments come in a struct
 * proto_accept_arg.
 */
#ifdef QUIC_HAVE_PROTO_ACCEPT_ARG
static inline int quic_accept(struct socket *sock, struct socket *newsock,
			      struct proto_accept_arg *arg)
{
	return quic_accept_common(sock, newsock, arg->flags, arg->kern);
}
#else
static inline int quic_accept(struct socket *sock, struct socket *newsock,
			      int flags, bool kern)
{
	return quic_accept_common(sock, newsock, flags, kern);
}
#endif

/* Where an IPv6 socket keeps its struct ipv6_pinfo: since 6.7 struct
 * proto says (inet6_sk_generic()), before it was the end of the object.
 */
static inline void quic_compat_ipv6_pinfo(struct proto *prot,
					  unsigned int offset)
{
#ifdef QUIC_HAVE_IPV6_PINFO_OFFSET
	prot->ipv6_pinfo_offset = offset;
#endif
}

/* The multicast defaults of a new socket (IPv6's too, once its
 * ipv6_pinfo is set): bits of inet_flags since 6.6 (IPv4) and 6.7 (IPv6),
 * fields before.
 */
static inline void quic_compat_mc_defaults(struct sock *sk)
{
	bool v6 = sk->sk_family == AF_INET6;

#ifdef QUIC_HAVE_INET_FLAGS_MC
	inet_set_bit(MC_LOOP, sk);
	inet_set_bit(MC_ALL, sk);
#else
	inet_sk(sk)->mc_loop = 1;
	inet_sk(sk)->mc_all = 1;
#endif
#ifdef QUIC_HAVE_INET_FLAGS_MC6
	if (v6) {
		inet6_set_bit(MC6_LOOP, sk);
		inet6_set_bit(MC6_ALL, sk);
	}
#else
	if (v6) {
		inet6_sk(sk)->mc_loop = 1;
		inet6_sk(sk)->mc_all = 1;
	}
#endif
}

#endif /* __NET_QUIC_COMPAT_H */
