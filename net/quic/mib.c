// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: per network namespace MIB counters and /proc/net/quic/snmp.
 *
 * The counters are per-CPU and summed when read; /proc/net/quic/snmp shows
 * one "Name value" line per counter, in the style of /proc/net/snmp6.
 */

#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/ip.h>

#include "mib.h"
#include "protocol.h"

static const struct snmp_mib quic_snmp_list[] = {
	SNMP_MIB_ITEM("QuicInPackets", QUIC_MIB_PKT_IN),
	SNMP_MIB_ITEM("QuicOutPackets", QUIC_MIB_PKT_OUT),
	SNMP_MIB_ITEM("QuicInDropMalformed", QUIC_MIB_DROP_MALFORMED),
	SNMP_MIB_ITEM("QuicInDropNoConnection", QUIC_MIB_DROP_NOCONN),
	SNMP_MIB_ITEM("QuicInDropDecrypt", QUIC_MIB_DROP_DECRYPT),
	SNMP_MIB_ITEM("QuicConnOpened", QUIC_MIB_CONN_OPENED),
	SNMP_MIB_ITEM("QuicConnClosed", QUIC_MIB_CONN_CLOSED),
	SNMP_MIB_ITEM("QuicLostPackets", QUIC_MIB_PKT_LOST),
	SNMP_MIB_ITEM("QuicPtoExpired", QUIC_MIB_PTO),
	SNMP_MIB_ITEM("QuicInDropBacklog", QUIC_MIB_DROP_BACKLOG),
	SNMP_MIB_ITEM("QuicListenOverflows", QUIC_MIB_LISTEN_OVERFLOW),
	SNMP_MIB_ITEM("QuicCongestionEvents", QUIC_MIB_CONG_EVENT),
	SNMP_MIB_ITEM("QuicPersistentCongestion", QUIC_MIB_CONG_PERSISTENT),
	SNMP_MIB_ITEM("QuicSpuriousLosses", QUIC_MIB_SPURIOUS_LOSS),
	SNMP_MIB_ITEM("QuicCongestionUndo", QUIC_MIB_CONG_UNDO),
	SNMP_MIB_ITEM("QuicOutRetry", QUIC_MIB_RETRY_SENT),
	SNMP_MIB_ITEM("QuicInTokenInvalid", QUIC_MIB_TOKEN_INVALID),
	SNMP_MIB_ITEM("QuicAmplificationBlocked", QUIC_MIB_AMPLIFICATION_BLOCKED),
	SNMP_MIB_ITEM("QuicOutStatelessReset", QUIC_MIB_RESET_SENT),
	SNMP_MIB_ITEM("QuicInStatelessReset", QUIC_MIB_RESET_RCVD),
	SNMP_MIB_ITEM("QuicInDatagramDrop", QUIC_MIB_DGRAM_RCV_DROP),
	SNMP_MIB_ITEM("QuicIn0RttPackets", QUIC_MIB_0RTT_IN),
	SNMP_MIB_ITEM("QuicOut0RttPackets", QUIC_MIB_0RTT_OUT),
	SNMP_MIB_ITEM("QuicIn0RttDrop", QUIC_MIB_0RTT_DROP),
	SNMP_MIB_ITEM("QuicInAlpnNoMatch", QUIC_MIB_ALPN_NOMATCH),
	SNMP_MIB_ITEM("QuicPathMigrations", QUIC_MIB_PATH_MIGRATED),
	SNMP_MIB_ITEM("QuicPathValidationFailed", QUIC_MIB_PATH_FAILED),
	SNMP_MIB_ITEM("QuicInEcnCe", QUIC_MIB_ECN_CE),
	SNMP_MIB_ITEM("QuicEcnCongestionEvents", QUIC_MIB_ECN_CONG),
	SNMP_MIB_ITEM("QuicEcnValidationFailed", QUIC_MIB_ECN_FAILED),
	SNMP_MIB_ITEM("QuicInVersionNegotiation", QUIC_MIB_VN_RCVD),
	SNMP_MIB_ITEM("QuicVersionChanged", QUIC_MIB_VERSION_CHANGED),
	SNMP_MIB_ITEM("QuicInDropUnknownAddress", QUIC_MIB_DROP_PEER_ADDR),
	SNMP_MIB_ITEM("QuicOutDatagramDrop", QUIC_MIB_DGRAM_SND_DROP),
};

static_assert(ARRAY_SIZE(quic_snmp_list) == QUIC_MIB_MAX);

/**
 * quic_mib_name() - the name /proc/net/quic/snmp shows for a counter
 * @field: an &enum quic_mib_field value
 *
 * Return: the name, "" for no counter.
 */
const char *quic_mib_name(int field)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(quic_snmp_list); i++)
		if (quic_snmp_list[i].entry == field)
			return quic_snmp_list[i].name;
	return "";
}

static int quic_snmp_seq_show(struct seq_file *seq, void *v)
{
	struct quic_net *qn = quic_net(seq->private);
	int i;

	for (i = 0; i < ARRAY_SIZE(quic_snmp_list); i++)
		seq_printf(seq, "%-32s\t%lu\n", quic_snmp_list[i].name,
			   snmp_fold_field(qn->mib, quic_snmp_list[i].entry));
	return 0;
}

/**
 * quic_mib_net_init() - allocate a namespace's counters and proc files
 * @net: the namespace
 *
 * Return: 0, or -ENOMEM.
 */
int quic_mib_net_init(struct net *net)
{
	struct quic_net *qn = quic_net(net);

	qn->mib = alloc_percpu(struct quic_mib);
	if (!qn->mib)
		return -ENOMEM;
#ifdef CONFIG_PROC_FS
	qn->proc_dir = proc_net_mkdir(net, "quic", net->proc_net);
	if (!qn->proc_dir)
		goto err;
	if (!proc_create_net_single("snmp", 0444, qn->proc_dir,
				    quic_snmp_seq_show, NULL)) {
		remove_proc_subtree("quic", net->proc_net);
		goto err;
	}
#endif
	return 0;
#ifdef CONFIG_PROC_FS
err:
	free_percpu(qn->mib);
	qn->mib = NULL;
	return -ENOMEM;
#endif
}

/**
 * quic_mib_net_exit() - free a namespace's counters and proc files
 * @net: the namespace
 */
void quic_mib_net_exit(struct net *net)
{
	struct quic_net *qn = quic_net(net);

#ifdef CONFIG_PROC_FS
	remove_proc_subtree("quic", net->proc_net);
#endif
	free_percpu(qn->mib);
	qn->mib = NULL;
}
