/* SPDX-License-Identifier: GPL-2.0 */
/*
 * test_socket is linked with -Wl,--wrap=sendmsg,... : these are the C
 * library's own functions and the stand-ins that replace them in libquic.
 */

#ifndef _LIBQUIC_TEST_WRAP_H
#define _LIBQUIC_TEST_WRAP_H

#include <sys/socket.h>
#include <sys/types.h>

ssize_t __real_sendmsg(int fd, const struct msghdr *msg, int flags);
ssize_t __real_recvmsg(int fd, struct msghdr *msg, int flags);
ssize_t __wrap_sendmsg(int fd, const struct msghdr *msg, int flags);
ssize_t __wrap_recvmsg(int fd, struct msghdr *msg, int flags);
int __wrap_setsockopt(int fd, int level, int name, const void *val,
		      socklen_t len);
int __wrap_getsockopt(int fd, int level, int name, void *val,
		      socklen_t *len);

#endif /* _LIBQUIC_TEST_WRAP_H */
