// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: the list of every QUIC socket of a network namespace, whatever
 * its state (unbound, listening, connecting, established or closed), and
 * what reads it: /proc/net/quic/conns, /proc/net/quic/eps and quic_diag.
 *
 * A socket joins the list when it is created (quic_init_sock()) and
 * leaves it when it is destroyed (quic_destroy_sock()), before its last
 * reference goes: a reader that holds the list lock sees live sockets
 * only. The list is linked through sk->sk_node, which QUIC does not hash
 * otherwise. The proc files read a socket's addresses and connection IDs
 * under the list lock without the socket lock: a line may mix values of
 * two moments of a connection, never freed memory.
 */

#include <linux/export.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <net/sock.h>

#include "protocol.h"
#include "socket.h"
#include "socklist.h"

/**
 * quic_socklist_net_init() - an empty socket list for a new namespace
 * @qn: the namespace's QUIC state
 */
void quic_socklist_net_init(struct quic_net *qn)
{
	spin_lock_init(&qn->socks_lock);
	INIT_HLIST_HEAD(&qn->socks);
}

/**
 * quic_socklist_add() - list a socket in its namespace
 * @sk: a socket being initialised
 */
void quic_socklist_add(struct sock *sk)
{
	struct quic_net *qn = quic_net(sock_net(sk));

	spin_lock(&qn->socks_lock);
	hlist_add_head(&sk->sk_node, &qn->socks);
	spin_unlock(&qn->socks_lock);
}

/**
 * quic_socklist_del() - take a socket off its namespace's list
 * @sk: a socket being destroyed; it may never have been listed
 */
void quic_socklist_del(struct sock *sk)
{
	struct quic_net *qn = quic_net(sock_net(sk));

	spin_lock(&qn->socks_lock);
	if (!hlist_unhashed(&sk->sk_node))
		hlist_del_init(&sk->sk_node);
	spin_unlock(&qn->socks_lock);
}

/**
 * quic_socklist_hold() - a batch of a namespace's sockets, referenced
 * @net: the namespace
 * @skip: how many sockets of the list to pass over first
 * @socks: where to store the sockets
 * @max: room at @socks
 *
 * Takes a reference on each socket stored; the caller drops them with
 * sock_put(). A walk in batches (quic_diag's dump) resumes at @skip plus
 * what it has seen: a socket added or removed meanwhile may shift the
 * list, so that one is seen twice or not at all, as with any dump of a
 * table that changes.
 *
 * Return: the number of sockets stored at @socks.
 */
unsigned int quic_socklist_hold(struct net *net, unsigned long skip,
				struct sock **socks, unsigned int max)
{
	struct quic_net *qn = quic_net(net);
	unsigned int n = 0;
	struct sock *sk;

	spin_lock(&qn->socks_lock);
	sk_for_each(sk, &qn->socks) {
		if (n == max)
			break;
		if (skip) {
			skip--;
			continue;
		}
		/* Listed sockets are not destroyed yet: never zero. */
		if (!refcount_inc_not_zero(&sk->sk_refcnt))
			continue;
		socks[n++] = sk;
	}
	spin_unlock(&qn->socks_lock);
	return n;
}
EXPORT_SYMBOL_GPL(quic_socklist_hold);

#ifdef CONFIG_PROC_FS

static const char *const quic_socklist_states[] = {
	[TCP_ESTABLISHED]	= "ESTABLISHED",
	[TCP_SYN_SENT]		= "SYN_SENT",
	[TCP_SYN_RECV]		= "SYN_RECV",
	[TCP_CLOSE]		= "CLOSE",
	[TCP_LISTEN]		= "LISTEN",
};

static const char *quic_socklist_state(int state)
{
	if (state < ARRAY_SIZE(quic_socklist_states) &&
	    quic_socklist_states[state])
		return quic_socklist_states[state];
	return "UNKNOWN";
}

/* The address a socket is bound to, from its inet fields. */
static void quic_socklist_bound(const struct sock *sk, union quic_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (sk->sk_family == AF_INET6) {
		a->v6.sin6_family = AF_INET6;
		a->v6.sin6_port = htons(sk->sk_num);
		a->v6.sin6_addr = sk->sk_v6_rcv_saddr;
	} else {
		a->v4.sin_family = AF_INET;
		a->v4.sin_port = htons(sk->sk_num);
		a->v4.sin_addr.s_addr = sk->sk_rcv_saddr;
	}
}

/* A connection ID read without the socket lock: its length bounded. */
static void quic_socklist_cid(struct seq_file *seq, const struct quic_cid *cid)
{
	u8 len = min_t(u8, READ_ONCE(cid->len), QUIC_CID_MAX_LEN);

	if (len)
		seq_printf(seq, " %*phN", len, cid->data);
	else
		seq_puts(seq, " -");
}

static void *quic_socklist_seq_start(struct seq_file *seq, loff_t *pos)
	__acquires(&qn->socks_lock)
{
	struct quic_net *qn = quic_net(seq_file_net(seq));

	spin_lock(&qn->socks_lock);
	return seq_hlist_start_head(&qn->socks, *pos);
}

static void *quic_socklist_seq_next(struct seq_file *seq, void *v, loff_t *pos)
{
	struct quic_net *qn = quic_net(seq_file_net(seq));

	return seq_hlist_next(v, &qn->socks, pos);
}

static void quic_socklist_seq_stop(struct seq_file *seq, void *v)
	__releases(&qn->socks_lock)
{
	struct quic_net *qn = quic_net(seq_file_net(seq));

	spin_unlock(&qn->socks_lock);
}

/* uid and inode, the last columns of both files. */
static void quic_socklist_owner(struct seq_file *seq, struct sock *sk)
{
	seq_printf(seq, " %u %lu",
		   from_kuid_munged(seq_user_ns(seq), sock_i_uid(sk)),
		   sock_i_ino(sk));
}

/* /proc/net/quic/conns: connections, being set up, established or
 * closed; sockets that never connected are left out.
 */
static int quic_socklist_conns_show(struct seq_file *seq, void *v)
{
	union quic_addr local, peer;
	struct quic_conn *c;
	struct sock *sk;
	int state;

	if (v == SEQ_START_TOKEN) {
		seq_puts(seq, "local_address peer_address state scid dcid uid inode\n");
		return 0;
	}
	sk = hlist_entry(v, struct sock, sk_node);
	state = READ_ONCE(sk->sk_state);
	c = &quic_sk(sk)->conn;
	if (state == TCP_LISTEN || !READ_ONCE(c->ids.scid.len))
		return 0;
	local = c->paths.local;
	peer = c->paths.peer;
	if (local.sa.sa_family != AF_INET && local.sa.sa_family != AF_INET6)
		quic_socklist_bound(sk, &local);
	if (peer.sa.sa_family != AF_INET && peer.sa.sa_family != AF_INET6)
		return 0;
	seq_printf(seq, "%pISpc %pISpc %s", &local.sa, &peer.sa,
		   quic_socklist_state(state));
	quic_socklist_cid(seq, &c->ids.scid);
	quic_socklist_cid(seq, &c->ids.dcid);
	quic_socklist_owner(seq, sk);
	seq_putc(seq, '\n');
	return 0;
}

/* The ALPN list of a listener, "h3,hq-interop", or "-". */
static void quic_socklist_alpn(struct seq_file *seq, struct sock *sk)
{
	const struct quic_sock_opts *o = &quic_sk(sk)->opts;
	u8 len = min_t(u8, READ_ONCE(o->alpn_len), sizeof(o->alpn));
	u8 i = 0, n;

	if (!len) {
		seq_puts(seq, " -");
		return;
	}
	seq_putc(seq, ' ');
	while (i < len) {
		n = min_t(u8, o->alpn[i], len - i - 1);
		if (i)
			seq_putc(seq, ',');
		seq_printf(seq, "%.*s", n, &o->alpn[i + 1]);
		i += n + 1;
	}
}

/* /proc/net/quic/eps: listeners. */
static int quic_socklist_eps_show(struct seq_file *seq, void *v)
{
	union quic_addr local;
	struct sock *sk;

	if (v == SEQ_START_TOKEN) {
		seq_puts(seq, "local_address uid inode alpn\n");
		return 0;
	}
	sk = hlist_entry(v, struct sock, sk_node);
	if (READ_ONCE(sk->sk_state) != TCP_LISTEN)
		return 0;
	quic_socklist_bound(sk, &local);
	seq_printf(seq, "%pISpc", &local.sa);
	quic_socklist_owner(seq, sk);
	quic_socklist_alpn(seq, sk);
	seq_putc(seq, '\n');
	return 0;
}

static const struct seq_operations quic_socklist_conns_ops = {
	.start	= quic_socklist_seq_start,
	.next	= quic_socklist_seq_next,
	.stop	= quic_socklist_seq_stop,
	.show	= quic_socklist_conns_show,
};

static const struct seq_operations quic_socklist_eps_ops = {
	.start	= quic_socklist_seq_start,
	.next	= quic_socklist_seq_next,
	.stop	= quic_socklist_seq_stop,
	.show	= quic_socklist_eps_show,
};

/**
 * quic_socklist_proc_init() - create /proc/net/quic/conns and eps
 * @net: the namespace, its /proc/net/quic made (quic_mib_net_init())
 *
 * Return: 0, or -ENOMEM.
 */
int quic_socklist_proc_init(struct net *net)
{
	struct proc_dir_entry *dir = quic_net(net)->proc_dir;

	if (!proc_create_net("conns", 0444, dir, &quic_socklist_conns_ops,
			     sizeof(struct seq_net_private)))
		return -ENOMEM;
	if (!proc_create_net("eps", 0444, dir, &quic_socklist_eps_ops,
			     sizeof(struct seq_net_private))) {
		remove_proc_entry("conns", dir);
		return -ENOMEM;
	}
	return 0;
}

/**
 * quic_socklist_proc_exit() - remove /proc/net/quic/conns and eps
 * @net: the namespace
 */
void quic_socklist_proc_exit(struct net *net)
{
	struct proc_dir_entry *dir = quic_net(net)->proc_dir;

	remove_proc_entry("eps", dir);
	remove_proc_entry("conns", dir);
}

#else

int quic_socklist_proc_init(struct net *net)
{
	return 0;
}

void quic_socklist_proc_exit(struct net *net)
{
}

#endif /* CONFIG_PROC_FS */
