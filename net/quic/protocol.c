// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: module initialisation and per network namespace state.
 *
 * Registers the QUIC protocols of both address families and their
 * socket types, so that socket(AF_INET or AF_INET6, SOCK_STREAM or
 * SOCK_DGRAM, IPPROTO_QUIC) creates a QUIC socket.
 */

#include <linux/init.h>
#include <linux/module.h>
#include <linux/quic.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <net/protocol.h>
#include <net/sock.h>

#include "crypto.h"
#include "input.h"
#include "lookup.h"
#include "output.h"
#include "protocol.h"
#include "socket.h"
#include "socklist.h"
#include "stateless.h"

unsigned int quic_net_id __read_mostly;

/* Half-open connections on a listener's port beyond which new clients
 * are sent a Retry, as TCP falls back to SYN cookies when its SYN queue
 * fills: 0 sends every client a Retry, a negative value never does.
 */
#define QUIC_RETRY_THRESHOLD_DEFAULT	256

static struct ctl_table quic_sysctl_table[] = {
	{
		.procname	= "retry_threshold",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec,
	},
	{ }
};

static int __net_init quic_sysctl_net_init(struct net *net)
{
	struct quic_net *qn = quic_net(net);
	struct ctl_table *t;

	qn->retry_threshold = QUIC_RETRY_THRESHOLD_DEFAULT;
	t = kmemdup(quic_sysctl_table, sizeof(quic_sysctl_table), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t[0].data = &qn->retry_threshold;
#ifdef QUIC_HAVE_NET_SYSCTL_SZ	/* since 6.6 the caller gives the size */
	qn->sysctl = register_net_sysctl_sz(net, "net/quic", t,
					    ARRAY_SIZE(quic_sysctl_table) - 1);
#else
	qn->sysctl = register_net_sysctl(net, "net/quic", t);
#endif
	if (!qn->sysctl) {
		kfree(t);
		return -ENOMEM;
	}
	return 0;
}

static void __net_exit quic_sysctl_net_exit(struct net *net)
{
	struct quic_net *qn = quic_net(net);
	const struct ctl_table *t = qn->sysctl->ctl_table_arg;

	unregister_net_sysctl_table(qn->sysctl);
	kfree(t);
}

static int __net_init quic_net_init(struct net *net)
{
	struct quic_net *qn = quic_net(net);
	int err;

	quic_hash_key_init(&qn->hash_key);
	quic_token_key_init(&qn->token_key, quic_token_now());
	ratelimit_state_init(&qn->stateless_rs, HZ, QUIC_STATELESS_PER_SEC);
	ratelimit_set_flags(&qn->stateless_rs, RATELIMIT_MSG_ON_RELEASE);
	quic_stateless_init(qn);
	quic_udp_net_init(net);
	quic_socklist_net_init(qn);
	err = quic_lookup_net_init(&qn->lookup);
	if (err)
		return err;
	err = quic_mib_net_init(net);
	if (err)
		goto err_lookup;
	err = quic_socklist_proc_init(net);
	if (err)
		goto err_mib;
	err = quic_sysctl_net_init(net);
	if (err)
		goto err_socklist;
	return 0;

err_socklist:
	quic_socklist_proc_exit(net);
err_mib:
	quic_mib_net_exit(net);
err_lookup:
	quic_lookup_net_exit(&qn->lookup);
	return err;
}

static void __net_exit quic_net_exit(struct net *net)
{
	struct quic_net *qn = quic_net(net);

	quic_sysctl_net_exit(net);
	quic_socklist_proc_exit(net);
	quic_stateless_exit(qn);
	quic_lookup_net_exit(&qn->lookup);
	quic_udp_net_exit(net);
	quic_mib_net_exit(net);
	quic_token_key_exit(&qn->token_key);
	memzero_explicit(&qn->hash_key, sizeof(qn->hash_key));
}

static struct pernet_operations quic_net_ops = {
	.init	= quic_net_init,
	.exit	= quic_net_exit,
	.id	= &quic_net_id,
	.size	= sizeof(struct quic_net),
};

/* Both socket types behave the same; SO_TYPE reports the one asked for. */
static struct inet_protosw quic_protosw[] = {
	{
		.type		= SOCK_STREAM,
		.protocol	= IPPROTO_QUIC,
		.prot		= &quic_prot,
		.ops		= &quic_proto_ops,
	},
	{
		.type		= SOCK_DGRAM,
		.protocol	= IPPROTO_QUIC,
		.prot		= &quic_prot,
		.ops		= &quic_proto_ops,
	},
};

static struct inet_protosw quic_v6_protosw[] = {
	{
		.type		= SOCK_STREAM,
		.protocol	= IPPROTO_QUIC,
		.prot		= &quic_v6_prot,
		.ops		= &quic_v6_proto_ops,
	},
	{
		.type		= SOCK_DGRAM,
		.protocol	= IPPROTO_QUIC,
		.prot		= &quic_v6_prot,
		.ops		= &quic_v6_proto_ops,
	},
};

static int __init quic_init(void)
{
	int err, i;

	err = quic_output_init();
	if (err)
		return err;
	err = quic_udp_init(quic_input_udp_rcv);
	if (err)
		goto err_output;
	quic_lookup_init();
	err = register_pernet_subsys(&quic_net_ops);
	if (err)
		goto err_udp;

	err = proto_register(&quic_prot, 1);
	if (err)
		goto err_pernet;
#ifdef QUIC_HAVE_IPV6_PINFO_OFFSET	/* since 6.7 struct proto says */
	quic_v6_prot.ipv6_pinfo_offset = offsetof(struct quic6_sock, inet6);
#endif
	err = proto_register(&quic_v6_prot, 1);
	if (err)
		goto err_proto;

	/* Sockets can be created as soon as a protosw is registered, so the
	 * steps that can fail come first and the IPv4 ones, which cannot,
	 * come last.
	 */
	for (i = 0; i < ARRAY_SIZE(quic_v6_protosw); i++) {
		err = inet6_register_protosw(&quic_v6_protosw[i]);
		if (err)
			goto err_protosw6;
	}
	for (i = 0; i < ARRAY_SIZE(quic_protosw); i++)
		inet_register_protosw(&quic_protosw[i]);
	return 0;

err_protosw6:
	while (--i >= 0)
		inet6_unregister_protosw(&quic_v6_protosw[i]);
	proto_unregister(&quic_v6_prot);
err_proto:
	proto_unregister(&quic_prot);
err_pernet:
	unregister_pernet_subsys(&quic_net_ops);
err_udp:
	quic_udp_exit();
err_output:
	quic_output_exit();
	return err;
}

static void __exit quic_exit(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(quic_protosw); i++)
		inet_unregister_protosw(&quic_protosw[i]);
	for (i = 0; i < ARRAY_SIZE(quic_v6_protosw); i++)
		inet6_unregister_protosw(&quic_v6_protosw[i]);
	proto_unregister(&quic_v6_prot);
	proto_unregister(&quic_prot);
	unregister_pernet_subsys(&quic_net_ops);
	quic_crypto_retry_exit();
	quic_udp_exit();
	quic_output_exit();
}

module_init(quic_init);
module_exit(quic_exit);

/* The aliases are strings made by the preprocessor, so they need the
 * numbers themselves: IPPROTO_QUIC and SOCK_* are enum constants.
 */
static_assert(IPPROTO_QUIC == 261 && SOCK_STREAM == 1 && SOCK_DGRAM == 2);
MODULE_ALIAS_NET_PF_PROTO(PF_INET, 261);
MODULE_ALIAS_NET_PF_PROTO(PF_INET6, 261);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET, 261, 1);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET, 261, 2);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET6, 261, 1);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET6, 261, 2);
MODULE_DESCRIPTION("QUIC transport protocol (RFC 9000) behind sockets");
MODULE_AUTHOR("The in-kernel QUIC patchset developers");
MODULE_LICENSE("GPL");
