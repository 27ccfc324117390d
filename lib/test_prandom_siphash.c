// SPDX-License-Identifier: GPL-2.0
/*
 * Statistical self-test of prandom_siphash: a KUnit suite on kernels with
 * KUnit; on kernels without it (Debian's), the module runs the same cases
 * when it is loaded and reports KTAP to the kernel log itself, or with
 * bench=1 prints micro-benchmark figures instead.
 *
 * Every threshold below is set so that a true random source fails it with
 * a probability of about 1e-7 or less; the reasoning is next to each test.
 */
#define pr_fmt(fmt) fmt

#include <kunit/test.h>
#include <linux/bitops.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#include <linux/prandom_siphash.h>
#include <linux/preempt.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/workqueue.h>

enum tps_result {
	TPS_PASS,
	TPS_FAIL,
	TPS_SKIP,
};

#define TPS_WHY_LEN	128

struct tps_case {
	const char *name;
	enum tps_result (*run)(char *why);
};

/*
 * Hamming-distance score of N = 1024 outputs x[0..N-1], two statistics:
 *
 * 1. Mean Hamming distance over all N(N-1)/2 pairs. For one bit position
 *    with c ones among the N outputs, c(N-c) pairs differ there, so the
 *    sum over all pairs is S = sum_k c_k(N-c_k) and the mean is
 *    D = S / (N(N-1)/2). With z_k = 2c_k - N, c(N-c) = (N^2 - z^2) / 4,
 *    which gives D = (16N - X/2) / (N-1) where X = sum_k z_k^2 / N.
 *    For true randomness each c_k is Binomial(N, 1/2), z_k / sqrt(N) is
 *    close to a standard normal and X follows chi-square with 32 degrees
 *    of freedom: E[X] = 32 and E[D] = 16 exactly. P(X > 92.08) = 1e-7
 *    and P(X < 5.90) = 1e-7, so D must lie in [15.971, 16.013]; lower
 *    means biased bits, higher means too even to be chance.
 * 2. Mean Hamming distance between consecutive outputs. The xors
 *    x[i] ^ x[i+1] of independent uniform words are themselves independent
 *    and uniform, so the total T over the N-1 pairs is Binomial(32(N-1),
 *    1/2): mean 16368, standard deviation sqrt(8 * 1023) = 90.5. The
 *    two-sided 1e-7 bound is 5.33 standard deviations, +-482: the mean
 *    consecutive distance must lie in [15.529, 16.471]. This catches
 *    sequential patterns that the first statistic, a function of the
 *    per-bit counts only, cannot see.
 *
 * A constant stream has D = 0 and T = 0. A counter 0..1023 has ten
 * perfectly balanced bits and 22 constant ones: X = 22N, D = 5.0, and
 * consecutive counters differ in 2 bits on average.
 */
#define HAMMING_N		1024
#define HAMMING_X_MIN_X100	590	/* 5.90, chi-square(32) 1e-7 low tail */
#define HAMMING_X_MAX_X100	9208	/* 92.08, chi-square(32) 1e-7 high tail */
#define HAMMING_T_MEAN		(16 * (HAMMING_N - 1))
#define HAMMING_T_SLACK		482

static u32 hamming_buf[HAMMING_N];

struct hamming_score {
	u64 sum_z2;		/* sum_k (2c_k - N)^2 = N * X */
	u64 pairs_milli;	/* D in thousandths of a bit */
	u32 consecutive;	/* T */
};

static void hamming_score(const u32 *x, struct hamming_score *hs)
{
	unsigned int ones[32] = { };
	u64 sum_pairs = 0;
	unsigned int i, k;

	hs->consecutive = 0;
	for (i = 0; i < HAMMING_N; i++) {
		for (k = 0; k < 32; k++)
			ones[k] += (x[i] >> k) & 1;
		if (i)
			hs->consecutive += hweight32(x[i - 1] ^ x[i]);
	}

	hs->sum_z2 = 0;
	for (k = 0; k < 32; k++) {
		s64 z = 2 * (s64)ones[k] - HAMMING_N;

		hs->sum_z2 += z * z;
		sum_pairs += (u64)ones[k] * (HAMMING_N - ones[k]);
	}
	hs->pairs_milli = div_u64(sum_pairs * 2000,
				  HAMMING_N * (HAMMING_N - 1));
}

static bool hamming_ok(const struct hamming_score *hs)
{
	u64 x100 = hs->sum_z2 * 100;

	return x100 >= (u64)HAMMING_X_MIN_X100 * HAMMING_N &&
	       x100 <= (u64)HAMMING_X_MAX_X100 * HAMMING_N &&
	       hs->consecutive >= HAMMING_T_MEAN - HAMMING_T_SLACK &&
	       hs->consecutive <= HAMMING_T_MEAN + HAMMING_T_SLACK;
}

static void hamming_describe(const struct hamming_score *hs,
			     char *why)
{
	u32 t_milli = div_u64((u64)hs->consecutive * 1000, HAMMING_N - 1);

	snprintf(why, TPS_WHY_LEN,
		 "mean pairwise %llu.%03llu bits, consecutive %u.%03u bits",
		 div_u64(hs->pairs_milli, 1000),
		 hs->pairs_milli - div_u64(hs->pairs_milli, 1000) * 1000,
		 t_milli / 1000, t_milli % 1000);
}

static enum tps_result test_hamming_random(char *why)
{
	struct hamming_score hs;
	unsigned int i;

	for (i = 0; i < HAMMING_N; i++)
		hamming_buf[i] = prandom_siphash_u32();
	hamming_score(hamming_buf, &hs);
	hamming_describe(&hs, why);
	pr_info("# hamming_random: %s\n", why);
	return hamming_ok(&hs) ? TPS_PASS : TPS_FAIL;
}

static enum tps_result test_hamming_rejects_constant(char *why)
{
	struct hamming_score hs;
	u32 c = get_random_u32();
	unsigned int i;

	for (i = 0; i < HAMMING_N; i++)
		hamming_buf[i] = c;
	hamming_score(hamming_buf, &hs);
	if (!hamming_ok(&hs))
		return TPS_PASS;
	hamming_describe(&hs, why);
	return TPS_FAIL;
}

static enum tps_result test_hamming_rejects_counter(char *why)
{
	struct hamming_score hs;
	unsigned int i;

	for (i = 0; i < HAMMING_N; i++)
		hamming_buf[i] = i;
	hamming_score(hamming_buf, &hs);
	if (!hamming_ok(&hs))
		return TPS_PASS;
	hamming_describe(&hs, why);
	return TPS_FAIL;
}

/*
 * Each of the 32 output bits must be set in 50% +- 0.5% of 2^20 outputs.
 * The count of ones is Binomial(2^20, 1/2), standard deviation 512, and
 * 0.5% is 5243, over ten standard deviations: chance never trips this,
 * a stuck or noticeably biased bit always does.
 */
#define BALANCE_N	1048576U	/* 2^20 */
#define BALANCE_SLACK	(BALANCE_N / 200)

static enum tps_result test_bit_balance(char *why)
{
	unsigned int ones[32] = { };
	unsigned int i, k;

	for (i = 0; i < BALANCE_N; i++) {
		u32 x = prandom_siphash_u32();

		while (x) {
			ones[__ffs(x)]++;
			x &= x - 1;
		}
		if (!(i & 0xffff))
			cond_resched();
	}
	for (k = 0; k < 32; k++) {
		if (ones[k] < BALANCE_N / 2 - BALANCE_SLACK ||
		    ones[k] > BALANCE_N / 2 + BALANCE_SLACK) {
			snprintf(why, TPS_WHY_LEN,
				 "bit %u set %u times in %u outputs",
				 k, ones[k], BALANCE_N);
			return TPS_FAIL;
		}
	}
	return TPS_PASS;
}

/* Sum of (observed - expected)^2 over the buckets: expected * chi-square. */
static u64 chi2_scaled(const unsigned int *count, unsigned int buckets,
		       unsigned int expected)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < buckets; i++) {
		s64 d = (s64)count[i] - expected;

		sum += d * d;
	}
	return sum;
}

static enum tps_result chi2_verdict(const char *what, u64 scaled,
				    unsigned int expected,
				    unsigned int max_x100, char *why)
{
	u64 x100 = div_u64(scaled * 100, expected);
	u32 rem;
	u64 whole = div_u64_rem(x100, 100, &rem);

	snprintf(why, TPS_WHY_LEN, "%s chi-square %llu.%02u, limit %u.%02u",
		 what, whole, rem, max_x100 / 100, max_x100 % 100);
	pr_info("# %s\n", why);
	return scaled * 100 <= (u64)max_x100 * expected ? TPS_PASS : TPS_FAIL;
}

/*
 * prandom_siphash_u32_below(100), 10^6 draws into 100 buckets of 10^4
 * expected each. For an exactly uniform result the statistic follows
 * chi-square with 99 degrees of freedom, and P(chi-square(99) > 190.23)
 * is 1e-7.
 */
#define BELOW_CEIL	100
#define BELOW_N		1000000
#define BELOW_MAX_X100	19023

static enum tps_result test_below_chi_square(char *why)
{
	unsigned int *count;
	enum tps_result ret;
	unsigned int i;

	count = kcalloc(BELOW_CEIL, sizeof(*count), GFP_KERNEL);
	if (!count) {
		snprintf(why, TPS_WHY_LEN, "out of memory");
		return TPS_FAIL;
	}
	for (i = 0; i < BELOW_N; i++) {
		u32 v = prandom_siphash_u32_below(BELOW_CEIL);

		if (v >= BELOW_CEIL) {
			snprintf(why, TPS_WHY_LEN, "returned %u for ceil %u",
				 v, BELOW_CEIL);
			kfree(count);
			return TPS_FAIL;
		}
		count[v]++;
		if (!(i & 0xffff))
			cond_resched();
	}
	ret = chi2_verdict("u32_below(100):",
			   chi2_scaled(count, BELOW_CEIL, BELOW_N / BELOW_CEIL),
			   BELOW_N / BELOW_CEIL, BELOW_MAX_X100, why);
	kfree(count);
	return ret;
}

/*
 * A ceil where shortcuts show: with ceil = 3 * 2^30, "x % ceil" makes the
 * first quarter of the range twice as likely, and a multiply without the
 * rejection step maps four inputs onto three results, so results that
 * are multiples of three come up twice as often. Bucket each result by
 * its top two bits (v >> 30, 0..2) and by v % 3: 9 buckets that are equal
 * to within 1e-9 for an exact implementation, 9 * 10^5 draws, 10^5
 * expected per bucket. P(chi-square(8) > 47.97) is 1e-7.
 */
#define BELOW_WIDE_CEIL		0xc0000000U
#define BELOW_WIDE_BUCKETS	9
#define BELOW_WIDE_N		900000
#define BELOW_WIDE_MAX_X100	4797

static enum tps_result test_below_chi_square_wide(char *why)
{
	unsigned int count[BELOW_WIDE_BUCKETS] = { };
	unsigned int i;

	for (i = 0; i < BELOW_WIDE_N; i++) {
		u32 v = prandom_siphash_u32_below(BELOW_WIDE_CEIL);

		if (v >= BELOW_WIDE_CEIL) {
			snprintf(why, TPS_WHY_LEN, "returned %#x for ceil %#x",
				 v, BELOW_WIDE_CEIL);
			return TPS_FAIL;
		}
		count[(v >> 30) * 3 + v % 3]++;
		if (!(i & 0xffff))
			cond_resched();
	}
	return chi2_verdict("u32_below(0xc0000000):",
			    chi2_scaled(count, BELOW_WIDE_BUCKETS,
					BELOW_WIDE_N / BELOW_WIDE_BUCKETS),
			    BELOW_WIDE_N / BELOW_WIDE_BUCKETS,
			    BELOW_WIDE_MAX_X100, why);
}

/*
 * Never >= ceil, for small, odd, power-of-two and huge ceils and a few
 * random ones; 0 for ceil 0 (the documented behaviour); and not stuck on
 * one value when ceil >= 2 (P(all 4096 equal) <= 2^-4095).
 */
#define RANGE_DRAWS	4096
#define RANGE_RANDOM	16

static const u32 range_ceils[] = {
	0, 1, 2, 3, 7, 10, 1000, 0x10000, 0x7fffffff, 0x80000000,
	0x80000001, 0xc0000000, U32_MAX - 1, U32_MAX,
};

static enum tps_result check_range(u32 ceil, char *why)
{
	u32 first = 0, v;
	bool varied = false;
	unsigned int i;

	for (i = 0; i < RANGE_DRAWS; i++) {
		v = prandom_siphash_u32_below(ceil);
		if (ceil ? v >= ceil : v != 0) {
			snprintf(why, TPS_WHY_LEN, "returned %#x for ceil %#x",
				 v, ceil);
			return TPS_FAIL;
		}
		if (!i)
			first = v;
		else if (v != first)
			varied = true;
	}
	if (ceil >= 2 && !varied) {
		snprintf(why, TPS_WHY_LEN, "always %#x for ceil %#x",
			 first, ceil);
		return TPS_FAIL;
	}
	return TPS_PASS;
}

static enum tps_result test_below_range(char *why)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(range_ceils); i++)
		if (check_range(range_ceils[i], why) != TPS_PASS)
			return TPS_FAIL;
	for (i = 0; i < RANGE_RANDOM; i++)
		if (check_range(get_random_u32(), why) != TPS_PASS)
			return TPS_FAIL;
	return TPS_PASS;
}

/*
 * Per-CPU state. A probe runs on one online CPU, either in a task bound to
 * it (work_on_cpu(), task level) or in an IPI sent to it from another CPU
 * (hardirq level, unless the CPU takes the call from its idle loop, which
 * the recorded level tells), and records the state that outputs drawn
 * there use, through prandom_siphash_test_state(), then draws eight
 * outputs from it.
 */
#define STREAM_WORDS	8

/* interrupt_context_level() in a hardirq handler */
#define TPS_LEVEL_HARDIRQ	2

struct tps_probe {
	const struct prandom_siphash_state *state;
	int cpu;
	int level;
	bool ipi;
	u32 stream[STREAM_WORDS];
};

struct tps_ipi {
	int cpu;
	struct tps_probe *probe;
};

static void probe_here(void *arg)
{
	struct tps_probe *p = arg;
	unsigned int i;

	preempt_disable();
	p->cpu = smp_processor_id();
	p->level = interrupt_context_level();
	p->state = prandom_siphash_test_state();
	for (i = 0; i < STREAM_WORDS; i++)
		p->stream[i] = prandom_siphash_u32();
	preempt_enable();
}

static long probe_task(void *arg)
{
	probe_here(arg);
	return 0;
}

/* Runs on a CPU other than the target, so that the call is a real IPI. */
static long probe_ipi_from_here(void *arg)
{
	struct tps_ipi *r = arg;

	return smp_call_function_single(r->cpu, probe_here, r->probe, 1);
}

/*
 * Probe @cpu at task level (@ipi false) or by an IPI (@ipi true; needs a
 * second online CPU). Call with the CPU hotplug lock held for reading.
 */
static int probe_cpu(int cpu, bool ipi, struct tps_probe *p)
{
	struct tps_ipi r = { .cpu = cpu, .probe = p };
	unsigned int from;

	p->ipi = ipi;
	if (!ipi)
		return work_on_cpu(cpu, probe_task, p);
	from = cpumask_any_but(cpu_online_mask, cpu);
	if (from >= nr_cpu_ids)
		return -ENODEV;
	return work_on_cpu(from, probe_ipi_from_here, &r);
}

/*
 * Two probes of each online CPU (task, IPI), one only if it is the only
 * CPU. Returns how many, 0 if a probe failed. Call with the CPU hotplug
 * lock held for reading.
 */
static unsigned int probe_all(struct tps_probe *probes)
{
	unsigned int n = 0;
	int cpu;

	for_each_online_cpu(cpu) {
		if (probe_cpu(cpu, false, &probes[n++]))
			return 0;
		if (num_online_cpus() > 1 && probe_cpu(cpu, true, &probes[n++]))
			return 0;
	}
	return n;
}

static void snapshot(struct prandom_siphash_state *dst,
		     const struct prandom_siphash_state *src)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(src->v); i++)
		dst->v[i] = READ_ONCE(src->v[i]);
}

/*
 * Every CPU and level has a state of its own, and drawing on one CPU
 * leaves every other CPU's states alone:
 *
 * 1. Probes of different CPUs, or of one CPU at different levels, got
 *    different state objects; probes of one CPU at one level, the same.
 * 2. No two of the 256-bit streams the probes drew are equal.
 * 3. For each probe, drawing again there advances the state it uses and
 *    no state of another CPU. Nothing else draws from prandom_siphash
 *    while this module runs (the harness loads it before quic.ko), so a
 *    state that moves was moved by the test.
 */
static enum tps_result test_per_cpu_streams(char *why)
{
	struct prandom_siphash_state *before = NULL, *after = NULL;
	struct tps_probe *probes = NULL, again;
	enum tps_result ret = TPS_FAIL;
	unsigned int a, b, n;

	cpus_read_lock();
	if (num_online_cpus() < 2) {
		snprintf(why, TPS_WHY_LEN, "only one CPU");
		ret = TPS_SKIP;
		goto out;
	}
	probes = kcalloc(2 * nr_cpu_ids, sizeof(*probes), GFP_KERNEL);
	before = kcalloc(2 * nr_cpu_ids, sizeof(*before), GFP_KERNEL);
	after = kcalloc(2 * nr_cpu_ids, sizeof(*after), GFP_KERNEL);
	if (!probes || !before || !after) {
		snprintf(why, TPS_WHY_LEN, "out of memory");
		goto out;
	}
	n = probe_all(probes);
	if (!n) {
		snprintf(why, TPS_WHY_LEN, "could not run on every CPU");
		goto out;
	}
	for (a = 0, b = 0; a < n; a++)
		b += probes[a].level == TPS_LEVEL_HARDIRQ;
	pr_info("# per_cpu_streams: %u probes on %u CPUs, %u at hardirq level\n",
		n, num_online_cpus(), b);

	for (a = 0; a < n; a++) {
		for (b = a + 1; b < n; b++) {
			const struct tps_probe *p = &probes[a], *q = &probes[b];
			bool same = p->cpu == q->cpu && p->level == q->level;
			bool shared = p->state == q->state;

			if (same != shared) {
				snprintf(why, TPS_WHY_LEN,
					 "CPU %d level %d and CPU %d level %d: %s state",
					 p->cpu, p->level, q->cpu, q->level,
					 same ? "different" : "one");
				goto out;
			}
			if (!memcmp(p->stream, q->stream, sizeof(p->stream))) {
				snprintf(why, TPS_WHY_LEN,
					 "CPUs %d and %d gave the same stream",
					 p->cpu, q->cpu);
				goto out;
			}
		}
	}

	for (a = 0; a < n; a++) {
		for (b = 0; b < n; b++)
			snapshot(&before[b], probes[b].state);
		if (probe_cpu(probes[a].cpu, probes[a].ipi, &again)) {
			snprintf(why, TPS_WHY_LEN, "could not run on CPU %d",
				 probes[a].cpu);
			goto out;
		}
		for (b = 0; b < n; b++)
			snapshot(&after[b], probes[b].state);
		for (b = 0; b < n; b++) {
			const struct tps_probe *q = &probes[b];
			bool moved = memcmp(&before[b], &after[b],
					    sizeof(before[b]));

			if (q->state == again.state && !moved) {
				snprintf(why, TPS_WHY_LEN,
					 "drawing on CPU %d left its state alone",
					 again.cpu);
				goto out;
			}
			if (q->cpu != again.cpu && moved) {
				snprintf(why, TPS_WHY_LEN,
					 "drawing on CPU %d moved CPU %d's state",
					 again.cpu, q->cpu);
				goto out;
			}
		}
	}
	ret = TPS_PASS;
out:
	cpus_read_unlock();
	kfree(after);
	kfree(before);
	kfree(probes);
	return ret;
}

/*
 * The pure state API: the same state and noise give the same stream, a
 * reseed or one word of noise gives another. "Another" means no position
 * of 16 outputs agrees, which chance breaks with probability 16 * 2^-32.
 */
#define STATE_WORDS	16

static bool streams_disjoint(const u32 *x, const u32 *y)
{
	unsigned int i;

	for (i = 0; i < STATE_WORDS; i++)
		if (x[i] == y[i])
			return false;
	return true;
}

static enum tps_result test_state_deterministic(char *why)
{
	struct prandom_siphash_state s, t;
	unsigned long noise = get_random_long();
	unsigned int i;

	prandom_siphash_state_seed(&s);
	t = s;
	for (i = 0; i < STATE_WORDS; i++) {
		unsigned long n = (i & 1) ? noise + i : 0;
		u32 x = prandom_siphash_state_next_u32(&s, n);
		u32 y = prandom_siphash_state_next_u32(&t, n);

		if (x != y) {
			snprintf(why, TPS_WHY_LEN,
				 "output %u differs: %#x vs %#x", i, x, y);
			return TPS_FAIL;
		}
	}
	if (memcmp(&s, &t, sizeof(s))) {
		snprintf(why, TPS_WHY_LEN, "states differ after equal outputs");
		return TPS_FAIL;
	}
	return TPS_PASS;
}

static enum tps_result test_state_reseed(char *why)
{
	struct prandom_siphash_state s, t;
	u32 x[STATE_WORDS], y[STATE_WORDS];
	unsigned int i;

	prandom_siphash_state_seed(&s);
	t = s;
	prandom_siphash_state_seed(&t);
	for (i = 0; i < STATE_WORDS; i++) {
		x[i] = prandom_siphash_state_next_u32(&s, 0);
		y[i] = prandom_siphash_state_next_u32(&t, 0);
	}
	if (!streams_disjoint(x, y)) {
		snprintf(why, TPS_WHY_LEN, "reseeded stream matches the old one");
		return TPS_FAIL;
	}
	return TPS_PASS;
}

static enum tps_result test_state_noise(char *why)
{
	struct prandom_siphash_state s, t;
	u32 x[STATE_WORDS], y[STATE_WORDS];
	unsigned int i;

	prandom_siphash_state_seed(&s);
	t = s;
	/* One word of noise, once: every later output must change. */
	x[0] = prandom_siphash_state_next_u32(&s, 0);
	y[0] = prandom_siphash_state_next_u32(&t, 1);
	for (i = 1; i < STATE_WORDS; i++) {
		x[i] = prandom_siphash_state_next_u32(&s, 0);
		y[i] = prandom_siphash_state_next_u32(&t, 0);
	}
	if (!streams_disjoint(x, y)) {
		snprintf(why, TPS_WHY_LEN, "noise left an output unchanged");
		return TPS_FAIL;
	}
	return TPS_PASS;
}

/*
 * prandom_siphash_add_noise() must store exactly the fourth word of one
 * SipRound over (a ^ noise, b, c, d) in this CPU's noise word. Interrupts
 * are off so nothing else stirs it meanwhile. The casting macro must take
 * pointers and 64-bit values.
 */
static enum tps_result test_add_noise(char *why)
{
	unsigned long a = get_random_long(), b = get_random_long();
	unsigned long c = get_random_long(), d = get_random_long();
	unsigned long before, after, macro;
	unsigned long flags;

	local_irq_save(flags);
	before = this_cpu_read(prandom_siphash_noise);
	prandom_siphash_add_noise(a, b, c, d);
	after = this_cpu_read(prandom_siphash_noise);
	PRANDOM_SIPHASH_ADD_NOISE(why, (u64)a << 3, (u8)b, &flags);
	macro = this_cpu_read(prandom_siphash_noise);
	local_irq_restore(flags);

	a ^= before;
	PRANDOM_SIPHASH_ROUND(a, b, c, d);
	if (after != d) {
		snprintf(why, TPS_WHY_LEN, "noise %#lx, expected %#lx",
			 after, d);
		return TPS_FAIL;
	}
	if (macro == after) {
		snprintf(why, TPS_WHY_LEN, "macro left the noise unchanged");
		return TPS_FAIL;
	}
	return TPS_PASS;
}

/*
 * The per-CPU outputs absorb this CPU's noise word. With interrupts off,
 * so that nothing stirs the noise or draws from the state meanwhile:
 *
 * 1. Predict the next output from a snapshot of this CPU's state with the
 *    step API, once with the current (non-zero) noise and once without.
 *    prandom_siphash_u32() must return the first and leave the state the
 *    first prediction left; it must not return the second (which chance
 *    would give with probability 2^-32).
 * 2. prandom_siphash_add_noise() changes the next output: it must be the
 *    prediction from the stirred noise, not the one from the noise before.
 */
static enum tps_result test_output_absorbs_noise(char *why)
{
	struct prandom_siphash_state s, with, without;
	const struct prandom_siphash_state *state;
	unsigned long r = get_random_long();
	enum tps_result ret = TPS_FAIL;
	unsigned long noise, flags;
	u32 got, want, unwanted;
	unsigned int i = 0;

	local_irq_save(flags);
	state = prandom_siphash_test_state();
	/* A zero noise word absorbs as nothing: make sure it is not zero. */
	do
		prandom_siphash_add_noise(r, i++, 0, 0);
	while (!this_cpu_read(prandom_siphash_noise));

	noise = this_cpu_read(prandom_siphash_noise);
	snapshot(&s, state);
	with = s;
	without = s;
	want = prandom_siphash_state_next_u32(&with, noise);
	unwanted = prandom_siphash_state_next_u32(&without, 0);
	got = prandom_siphash_u32();
	snapshot(&s, state);
	if (got == unwanted) {
		snprintf(why, TPS_WHY_LEN,
			 "output %#x is the one without the noise", got);
		goto out;
	}
	if (got != want || memcmp(&s, &with, sizeof(s))) {
		snprintf(why, TPS_WHY_LEN,
			 "output %#x (state %s), predicted %#x with noise",
			 got, memcmp(&s, &with, sizeof(s)) ? "differs" : "same",
			 want);
		goto out;
	}

	without = s;
	unwanted = prandom_siphash_state_next_u32(&without, noise);
	prandom_siphash_add_noise(r, r, r, r);
	noise = this_cpu_read(prandom_siphash_noise);
	want = prandom_siphash_state_next_u32(&s, noise);
	got = prandom_siphash_u32();
	if (got == unwanted) {
		snprintf(why, TPS_WHY_LEN,
			 "add_noise left the next output (%#x) unchanged", got);
		goto out;
	}
	if (got != want) {
		snprintf(why, TPS_WHY_LEN,
			 "output %#x after add_noise, predicted %#x", got, want);
		goto out;
	}
	ret = TPS_PASS;
out:
	local_irq_restore(flags);
	return ret;
}

/*
 * prandom_siphash_reseed() replaces the states of every online CPU, at
 * task and hardirq level: every word of every probed state differs
 * afterwards (chance keeps a word with probability 2^-BITS_PER_LONG).
 * Then the outputs still vary: 64 equal ones would mean a stuck state.
 */
static enum tps_result test_reseed(char *why)
{
	struct prandom_siphash_state *before = NULL, after;
	struct tps_probe *probes = NULL;
	enum tps_result ret = TPS_FAIL;
	unsigned int b, i, n;
	u32 first;

	cpus_read_lock();
	probes = kcalloc(2 * nr_cpu_ids, sizeof(*probes), GFP_KERNEL);
	before = kcalloc(2 * nr_cpu_ids, sizeof(*before), GFP_KERNEL);
	if (!probes || !before) {
		snprintf(why, TPS_WHY_LEN, "out of memory");
		goto out;
	}
	n = probe_all(probes);
	if (!n) {
		snprintf(why, TPS_WHY_LEN, "could not run on every CPU");
		goto out;
	}
	for (b = 0; b < n; b++)
		snapshot(&before[b], probes[b].state);
	prandom_siphash_reseed();
	for (b = 0; b < n; b++) {
		snapshot(&after, probes[b].state);
		for (i = 0; i < ARRAY_SIZE(after.v); i++) {
			if (after.v[i] == before[b].v[i]) {
				snprintf(why, TPS_WHY_LEN,
					 "CPU %d level %d: word %u not reseeded",
					 probes[b].cpu, probes[b].level, i);
				goto out;
			}
		}
	}

	first = prandom_siphash_u32();
	for (i = 1; i < 64; i++) {
		if (prandom_siphash_u32() != first) {
			ret = TPS_PASS;
			goto out;
		}
	}
	snprintf(why, TPS_WHY_LEN, "stuck at %#x after reseed", first);
out:
	cpus_read_unlock();
	kfree(before);
	kfree(probes);
	return ret;
}

/*
 * prandom_siphash_u64() halves both vary, and prandom_siphash_bytes()
 * writes exactly len bytes (guards on both sides stay intact) at every
 * alignment, and changes them (8 bytes all left at the guard pattern has
 * probability 2^-64).
 */
#define BYTES_MAX	300
#define BYTES_GUARD	16
#define GUARD_BYTE	0xa5

static u8 bytes_buf[BYTES_MAX + 2 * BYTES_GUARD + 8];

static enum tps_result test_u64_and_bytes(char *why)
{
	u64 x = prandom_siphash_u64(), y;
	bool lo = false, hi = false;
	unsigned int i, len, off;

	for (i = 0; i < 64; i++) {
		y = prandom_siphash_u64();
		lo |= lower_32_bits(x) != lower_32_bits(y);
		hi |= upper_32_bits(x) != upper_32_bits(y);
	}
	if (!lo || !hi) {
		snprintf(why, TPS_WHY_LEN, "u64 %s half stuck",
			 lo ? "high" : "low");
		return TPS_FAIL;
	}

	for (off = 0; off < 8; off++) {
		for (len = 0; len <= BYTES_MAX; len++) {
			u8 *p = bytes_buf + BYTES_GUARD + off;

			memset(bytes_buf, GUARD_BYTE, sizeof(bytes_buf));
			prandom_siphash_bytes(p, len);
			if (memchr_inv(bytes_buf, GUARD_BYTE, BYTES_GUARD + off) ||
			    memchr_inv(p + len, GUARD_BYTE,
				       sizeof(bytes_buf) - BYTES_GUARD - off - len)) {
				snprintf(why, TPS_WHY_LEN,
					 "bytes(len %u, offset %u) wrote outside",
					 len, off);
				return TPS_FAIL;
			}
			if (len >= 8 && !memchr_inv(p, GUARD_BYTE, len)) {
				snprintf(why, TPS_WHY_LEN,
					 "bytes(len %u, offset %u) wrote nothing",
					 len, off);
				return TPS_FAIL;
			}
		}
	}
	return TPS_PASS;
}

static const struct tps_case tps_cases[] = {
	{ "hamming_random", test_hamming_random },
	{ "hamming_rejects_constant", test_hamming_rejects_constant },
	{ "hamming_rejects_counter", test_hamming_rejects_counter },
	{ "bit_balance", test_bit_balance },
	{ "u32_below_chi_square", test_below_chi_square },
	{ "u32_below_chi_square_wide", test_below_chi_square_wide },
	{ "u32_below_range", test_below_range },
	{ "per_cpu_streams", test_per_cpu_streams },
	{ "state_deterministic", test_state_deterministic },
	{ "state_reseed_changes_stream", test_state_reseed },
	{ "state_noise_changes_stream", test_state_noise },
	{ "add_noise", test_add_noise },
	{ "output_absorbs_noise", test_output_absorbs_noise },
	{ "reseed", test_reseed },
	{ "u64_and_bytes", test_u64_and_bytes },
};

#if IS_ENABLED(CONFIG_KUNIT)

/*
 * Under KUnit: one suite, "prandom_siphash", whose one case runs over
 * tps_cases as its parameters, so that each is reported by name.
 */
static void tps_case_desc(const struct tps_case *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tps, tps_cases, tps_case_desc);

static void tps_kunit_run(struct kunit *test)
{
	const struct tps_case *t = test->param_value;
	char why[TPS_WHY_LEN] = "";

	switch (t->run(why)) {
	case TPS_FAIL:
		KUNIT_FAIL(test, "%s", why[0] ? why : "failed");
		break;
	case TPS_SKIP:
		kunit_skip(test, "%s", why);
		break;
	case TPS_PASS:
		break;
	}
}

static struct kunit_case tps_kunit_cases[] = {
	{ .name = "cases", .run_case = tps_kunit_run,
	  .generate_params = tps_gen_params },
	{}
};

static struct kunit_suite tps_kunit_suite = {
	.name = "prandom_siphash",
	.test_cases = tps_kunit_cases,
};

kunit_test_suite(tps_kunit_suite);

#else /* !CONFIG_KUNIT: report KTAP at load, or bench=1 */

static bool bench;
module_param(bench, bool, 0444);
MODULE_PARM_DESC(bench, "Print micro-benchmark figures instead of running the tests");

static void run_tests(void)
{
	unsigned int i, pass = 0, fail = 0;
	char why[TPS_WHY_LEN];

	pr_info("KTAP version 1\n");
	pr_info("# Subtest: prandom_siphash\n");
	pr_info("1..%zu\n", ARRAY_SIZE(tps_cases));
	for (i = 0; i < ARRAY_SIZE(tps_cases); i++) {
		const struct tps_case *t = &tps_cases[i];
		enum tps_result r;

		why[0] = '\0';
		r = t->run(why);
		/* A skip is an "ok" line, so it counts as a pass. */
		if (r == TPS_FAIL) {
			fail++;
			pr_info("not ok %u %s # %s\n", i + 1, t->name,
				why[0] ? why : "failed");
		} else if (r == TPS_SKIP) {
			pass++;
			pr_info("ok %u %s # SKIP %s\n", i + 1, t->name, why);
		} else {
			pass++;
			pr_info("ok %u %s\n", i + 1, t->name);
		}
		cond_resched();
	}
	pr_info("# prandom_siphash: pass:%u fail:%u\n", pass, fail);
}

/*
 * Bench: ns per call over BENCH_ITERS evaluations of @expr, timed in
 * chunks with preemption disabled so that the figures are for one CPU,
 * with a chance to reschedule between chunks. The loop overhead is
 * included. The calls are direct, not through a function pointer, which
 * retpolines would make costly, and the results end up in bench_sink so
 * that none can be optimised away.
 */
#define BENCH_ITERS	4194304U	/* 2^22 */
#define BENCH_CHUNK	65536U

#define BENCH_LOOP(expr)						\
({									\
	unsigned int __chunk, __i;					\
	u64 __ns = 0, __t0;						\
									\
	for (__chunk = 0; __chunk < BENCH_ITERS / BENCH_CHUNK; __chunk++) { \
		preempt_disable();					\
		__t0 = ktime_get_ns();					\
		for (__i = 0; __i < BENCH_CHUNK; __i++)			\
			expr;						\
		__ns += ktime_get_ns() - __t0;				\
		preempt_enable();					\
		cond_resched();						\
	}								\
	__ns;								\
})

static unsigned long bench_sink;

/*
 * prandom_siphash_add_noise() is inline: feed it four words that change
 * every call, so that no part of the round can be hoisted out of the
 * loop. Each call reads the noise word the previous one wrote, and the
 * per-CPU store is kept.
 */
static __always_inline void bench_noise_step(unsigned long *n)
{
	unsigned long x = (*n)++;

	prandom_siphash_add_noise(x, x * 3, x << 8, ~x);
}

static void bench_report(const char *name, u64 ns)
{
	u64 ns_x10 = div_u64(ns * 10 + BENCH_ITERS / 2, BENCH_ITERS);
	u32 tenths;
	u64 whole = div_u64_rem(ns_x10, 10, &tenths);

	pr_info("# bench: %s %llu.%u ns/call\n", name, whole, tenths);
}

static void run_bench(void)
{
	struct prandom_siphash_state ps;
	struct rnd_state state;
	unsigned long n = 0;
	u32 acc = 0;
	u64 ns;

	prandom_seed_state(&state, get_random_u64());
	prandom_siphash_state_seed(&ps);
	pr_info("# prandom_siphash: bench, %u calls each\n", BENCH_ITERS);

	ns = BENCH_LOOP(acc += prandom_siphash_u32());
	bench_report("prandom_siphash_u32", ns);
	ns = BENCH_LOOP(acc += get_random_u32());
	bench_report("get_random_u32", ns);
	ns = BENCH_LOOP(acc += prandom_u32_state(&state));
	bench_report("prandom_u32_state", ns);
	/* The same step as prandom_siphash_u32(), minus the per-CPU part. */
	ns = BENCH_LOOP(acc += prandom_siphash_state_next_u32(&ps, 0));
	bench_report("prandom_siphash_state_next_u32", ns);
	ns = BENCH_LOOP(bench_noise_step(&n));
	bench_report("prandom_siphash_add_noise", ns);

	WRITE_ONCE(bench_sink, acc + raw_cpu_read(prandom_siphash_noise));
}

static int __init test_prandom_siphash_init(void)
{
	if (bench)
		run_bench();
	else
		run_tests();
	/* The harness reads the verdict from the log: always load. */
	return 0;
}

static void __exit test_prandom_siphash_exit(void)
{
}

module_init(test_prandom_siphash_init);
module_exit(test_prandom_siphash_exit);

#endif /* CONFIG_KUNIT */

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Self-test and micro-benchmark of prandom_siphash");
MODULE_IMPORT_NS(PRANDOM_SIPHASH_TEST);
