// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: the SOL_QUIC options of a kernel user's socket.
 *
 * Sockets made with sock_create_kern() take the same options as an
 * application's, with the value in kernel memory: setsockopt(2) and
 * getsockopt(2) of the socket layer take user pointers only (for
 * getsockopt), and the kernel has no kernel_setsockopt() any more.
 * Both functions take the socket lock, and may sleep: they are called
 * from process context, never under a spinlock or from softirq. See
 * Documentation/networking/quic.rst, "Kernel users".
 */

#include <linux/errno.h>
#include <linux/quic.h>
#include <linux/sockptr.h>
#include <net/sock.h>

#include "socket.h"
#include "sockopt.h"

/**
 * quic_kernel_setsockopt() - set a SOL_QUIC option of a kernel socket
 * @sk: a QUIC socket (sock_create_kern(), IPPROTO_QUIC)
 * @optname: the option, QUIC_SOCKOPT_*
 * @optval: its value, in kernel memory
 * @optlen: the value's length in bytes
 *
 * The option as setsockopt(fd, SOL_QUIC, @optname, ...) sets it for an
 * application (Documentation/networking/quic-api.rst).
 *
 * Context: process context; takes the socket lock.
 * Return: 0, or a negative errno as setsockopt(2) gives it; -EINVAL if
 * @sk is not a QUIC socket.
 */
int quic_kernel_setsockopt(struct sock *sk, int optname, void *optval,
			   unsigned int optlen)
{
	if (!quic_sk_is_quic(sk))
		return -EINVAL;
	return quic_sockopt_set(sk, optname, KERNEL_SOCKPTR(optval), optlen);
}
EXPORT_SYMBOL_GPL(quic_kernel_setsockopt);

/**
 * quic_kernel_getsockopt() - get a SOL_QUIC option of a kernel socket
 * @sk: a QUIC socket (sock_create_kern(), IPPROTO_QUIC)
 * @optname: the option, QUIC_SOCKOPT_*
 * @optval: a buffer in kernel memory; for the options that take an
 *	argument (QUIC_SOCKOPT_STREAM_OPEN, QUIC_SOCKOPT_CONNECTION_ID,
 *	QUIC_SOCKOPT_EVENT), holding it
 * @optlen: the buffer's length in bytes; set to the bytes returned
 *
 * The option as getsockopt(fd, SOL_QUIC, @optname, ...) returns it to an
 * application. QUIC_SOCKOPT_STREAM_OPEN may sleep waiting for the peer
 * to allow another stream, as it does for a blocking socket.
 *
 * Context: process context; takes the socket lock.
 * Return: 0, or a negative errno as getsockopt(2) gives it; -EINVAL if
 * @sk is not a QUIC socket or *@optlen is above INT_MAX.
 */
int quic_kernel_getsockopt(struct sock *sk, int optname, void *optval,
			   unsigned int *optlen)
{
	if (!quic_sk_is_quic(sk) || *optlen > INT_MAX)
		return -EINVAL;
	return quic_sockopt_get(sk, optname, KERNEL_SOCKPTR(optval),
				KERNEL_SOCKPTR(optlen));
}
EXPORT_SYMBOL_GPL(quic_kernel_getsockopt);
