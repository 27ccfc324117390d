// SPDX-License-Identifier: GPL-2.0
/*
 * quic_test: what the cases and benchmarks of every suite share, under
 * either front end (kunit.c, main.c): the reason of a failure, and the
 * figures of the benchmarks.
 */

#define pr_fmt(fmt) fmt

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/printk.h>
#include <linux/stdarg.h>

#include "test.h"

/**
 * quic_test_fail() - record why a test case failed
 * @t: the running case
 * @fmt: printf-style reason, one short line
 *
 * Only the first reason of a case is kept.
 *
 * Return: -EINVAL, for the case to return.
 */
int quic_test_fail(struct quic_test *t, const char *fmt, ...)
{
	va_list args;

	if (!t->reason[0]) {
		va_start(args, fmt);
		vsnprintf(t->reason, sizeof(t->reason), fmt, args);
		va_end(args);
	}
	return -EINVAL;
}

/**
 * quic_test_skip() - record why a test case cannot run here
 * @t: the running case
 * @fmt: printf-style reason, one short line
 *
 * Return: %QUIC_TEST_SKIPPED, for the case to return.
 */
int quic_test_skip(struct quic_test *t, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(t->reason, sizeof(t->reason), fmt, args);
	va_end(args);
	return QUIC_TEST_SKIPPED;
}

/* Print @num / @den with one decimal, rounded; den must not be 0. */
static void quic_test_print_tenths(const char *what, u64 num, u64 den,
				   const char *unit)
{
	u64 tenths = div64_u64(num * 10 + den / 2, den);
	u32 rem;

	tenths = div_u64_rem(tenths, 10, &rem);
	pr_info("# bench: %s %llu.%u%s\n", what, tenths, rem, unit);
}

/**
 * quic_test_bench_time() - print the cost of one operation
 * @what: what was measured, e.g. "quic_fast_hash_bytes(8)"
 * @ns: nanoseconds taken by @ops operations
 * @ops: number of operations
 */
void quic_test_bench_time(const char *what, u64 ns, u64 ops)
{
	quic_test_print_tenths(what, ns, ops ?: 1, " ns/op");
}

/**
 * quic_test_bench_ratio() - print the ratio of two measured times
 * @what: what is compared, e.g. "ratio keyed/fast (8 bytes)"
 * @num: the time of the slower operation
 * @den: the time of the faster operation
 */
void quic_test_bench_ratio(const char *what, u64 num, u64 den)
{
	quic_test_print_tenths(what, num, den ?: 1, "");
}

/**
 * quic_test_mem_charge() - a charge callback over a struct quic_test_mem
 * @ctx: the struct quic_test_mem
 * @bytes: bytes to charge (> 0) or to give back (< 0)
 *
 * Return: 0, or -ENOBUFS for a charge beyond the limit.
 */
int quic_test_mem_charge(void *ctx, int bytes)
{
	struct quic_test_mem *m = ctx;

	if (bytes > 0 && m->mem + bytes > m->limit)
		return -ENOBUFS;
	m->mem += bytes;
	return 0;
}
