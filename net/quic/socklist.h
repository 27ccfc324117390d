/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: every QUIC socket of a network namespace, for /proc/net/quic/conns,
 * /proc/net/quic/eps and quic_diag (net/quic/socklist.c).
 */
#ifndef __NET_QUIC_SOCKLIST_H
#define __NET_QUIC_SOCKLIST_H

struct net;
struct quic_net;
struct sock;

void quic_socklist_net_init(struct quic_net *qn);
int quic_socklist_proc_init(struct net *net);
void quic_socklist_proc_exit(struct net *net);
void quic_socklist_add(struct sock *sk);
void quic_socklist_del(struct sock *sk);
unsigned int quic_socklist_hold(struct net *net, unsigned long skip,
				struct sock **socks, unsigned int max);

#endif /* __NET_QUIC_SOCKLIST_H */
