/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: what differs between the kernels the module builds against,
 * Debian's 6.1 and 6.12, in one place. Every other file uses the API of
 * the kernel it is built for through these helpers; in a kernel tree
 * only one branch of each is ever used.
 */

#ifndef __NET_QUIC_COMPAT_H
#define __NET_QUIC_COMPAT_H

#include <linux/ipv6.h>
#include <linux/net.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <net/inet_sock.h>
#include <net/sock.h>

/* 6.12 moved the unaligned access helpers to linux/. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * QUIC_DEFINE_PROTO_IOCTL(name, fn): struct proto's .ioctl @name, from
 * fn(sk, cmd, int *value), which returns 0 or an error. Since 6.5 the
 * socket core copies the value to user space itself.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#define QUIC_DEFINE_PROTO_IOCTL(name, fn)				\
static int name(struct sock *sk, int cmd, int *karg)			\
{									\
	return fn(sk, cmd, karg);					\
}
#else
#define QUIC_DEFINE_PROTO_IOCTL(name, fn)				\
static int name(struct sock *sk, int cmd, unsigned long arg)		\
{									\
	int karg, err = fn(sk, cmd, &karg);				\
									\
	return err ?: put_user(karg, (int __user *)arg);		\
}
#endif

/*
 * QUIC_DEFINE_ACCEPT(name, fn): struct proto_ops' .accept @name, from
 * fn(sock, newsock, flags, kern). Since 6.10 the arguments come in a
 * struct proto_accept_arg.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define QUIC_DEFINE_ACCEPT(name, fn)					\
static int name(struct socket *sock, struct socket *newsock,		\
		struct proto_accept_arg *arg)				\
{									\
	return fn(sock, newsock, arg->flags, arg->kern);		\
}
#else
#define QUIC_DEFINE_ACCEPT(name, fn)					\
static int name(struct socket *sock, struct socket *newsock, int flags,	\
		bool kern)						\
{									\
	return fn(sock, newsock, flags, kern);				\
}
#endif

/* The multicast defaults of a new socket: bits of inet_flags since 6.6
 * (IPv4) and 6.7 (IPv6), fields before.
 */
static inline void quic_compat_mc_defaults(struct sock *sk)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
	inet_set_bit(MC_LOOP, sk);
	inet_set_bit(MC_ALL, sk);
#else
	inet_sk(sk)->mc_loop = 1;
	inet_sk(sk)->mc_all = 1;
#endif
}

static inline void quic_compat_mc6_defaults(struct sock *sk)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	inet6_set_bit(MC6_LOOP, sk);
	inet6_set_bit(MC6_ALL, sk);
#else
	inet6_sk(sk)->mc_loop = 1;
	inet6_sk(sk)->mc_all = 1;
#endif
}

#endif /* __NET_QUIC_COMPAT_H */
