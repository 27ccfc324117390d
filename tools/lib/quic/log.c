// SPDX-License-Identifier: LGPL-2.1
/*
 * libquic's diagnostics (quic-api.rst, section 8.6). Nothing is printed
 * unless the application raises the level; messages then go to its
 * callback, or to standard output with a "[ERROR] ", "[NOTICE] " or
 * "[DEBUG] " prefix. A message is at most QUIC_LOG_MSG_MAX bytes with its
 * terminating NUL; longer ones are cut.
 */

#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>

#include "netinet/quic.h"
#include "internal.h"

/*
 * Words written by the application and read by every handshake, with
 * relaxed atomics: a reader sees either the old or the new setting, both
 * are valid.
 */
static int quic_log_level = -1;
static quic_set_log_func_t quic_log_func;

/**
 * quic_set_log_level() - set the threshold of libquic's messages
 * @level: a <syslog.h> level; LOG_ERR, LOG_NOTICE and LOG_DEBUG messages
 *	are emitted when @level is at least theirs; -1 (the default) turns
 *	everything off
 *
 * Return: the previous level.
 */
int quic_set_log_level(int level)
{
	return __atomic_exchange_n(&quic_log_level, level, __ATOMIC_RELAXED);
}

/**
 * quic_set_log_func() - send libquic's messages to a callback
 * @func: called with the syslog level and the message (no newline), or
 *	NULL to print to standard output
 *
 * Return: the previous callback (NULL for standard output).
 */
quic_set_log_func_t quic_set_log_func(quic_set_log_func_t func)
{
	return __atomic_exchange_n(&quic_log_func, func, __ATOMIC_RELAXED);
}

bool quic_log_on(int level)
{
	return level <= __atomic_load_n(&quic_log_level, __ATOMIC_RELAXED);
}

void quic_log(int level, const char *fmt, ...)
{
	char msg[QUIC_LOG_MSG_MAX];
	quic_set_log_func_t func;
	const char *prefix;
	va_list ap;

	if (!quic_log_on(level))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	func = __atomic_load_n(&quic_log_func, __ATOMIC_RELAXED);
	if (func) {
		func(level, msg);
		return;
	}
	if (level <= LOG_ERR)
		prefix = "[ERROR] ";
	else if (level <= LOG_NOTICE)
		prefix = "[NOTICE] ";
	else
		prefix = "[DEBUG] ";
	printf("%s%s\n", prefix, msg);
	fflush(stdout);
}
