/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: what kernel users call (net/quic/kernel.c).
 *
 * A kernel user makes a QUIC socket with sock_create_kern(), in the
 * network namespace it works in, and uses it as an application uses
 * its own: kernel_bind(), kernel_connect(), kernel_listen(),
 * kernel_accept(), kernel_sendmsg() and kernel_recvmsg() with the
 * control messages of <uapi/linux/quic.h>, and the SOL_QUIC options
 * through the two functions below, with buffers in kernel memory.
 */
#ifndef _LINUX_QUIC_H
#define _LINUX_QUIC_H

#include <uapi/linux/quic.h>

struct sock;

int quic_kernel_setsockopt(struct sock *sk, int optname, void *optval,
			   unsigned int optlen);
int quic_kernel_getsockopt(struct sock *sk, int optname, void *optval,
			   unsigned int *optlen);

#endif /* _LINUX_QUIC_H */
