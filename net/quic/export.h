/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the symbols quic_test reaches into.
 *
 * quic_test (net/quic/test) checks the pure pieces of the transport
 * through their own functions. Built as a module of its own, it needs
 * them exported, in the QUIC_INTERNAL namespace; built into the kernel
 * together with QUIC (or not at all), nothing is exported. The same idea
 * as EXPORT_SYMBOL_IF_KUNIT() of later kernels, for our own namespace.
 */

#ifndef __NET_QUIC_EXPORT_H
#define __NET_QUIC_EXPORT_H

#include <linux/export.h>

#if IS_MODULE(CONFIG_IP_QUIC_TEST)
#define EXPORT_SYMBOL_IF_QUIC_TEST(sym) EXPORT_SYMBOL_NS_GPL(sym, QUIC_INTERNAL)
#else
#define EXPORT_SYMBOL_IF_QUIC_TEST(sym)
#endif

#endif /* __NET_QUIC_EXPORT_H */
