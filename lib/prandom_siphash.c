// SPDX-License-Identifier: GPL-2.0
/*
 * prandom_siphash: fast, unpredictable, non-cryptographic pseudo-random
 * numbers from SipRounds over per-CPU state.
 *
 * Each output absorbs this CPU's noise word into the state the way SipHash
 * absorbs a message word (xor into v3), runs two SipRounds and folds the
 * four words into 32 bits. The state is seeded from get_random_bytes() at
 * init and reseeded from the CRNG about once a minute.
 *
 * Concurrency. Outputs are get_cpu_ptr()/put_cpu_ptr() style: preemption
 * is disabled around the read-modify-write of the state, and interrupts
 * are left alone. To keep an interrupt from reading the state that the
 * code it interrupted is halfway through updating (both would then return
 * the same number), every CPU has one state per interrupt context level
 * (task, softirq, hardirq, NMI). A level cannot nest within itself on a
 * CPU, so each state has a single user at a time. Picking the state costs
 * a preempt_count() read; there is no local_irq_save() and no atomic. On
 * PREEMPT_RT, softirqs and threaded handlers run as tasks and are
 * serialised by the disabled preemption.
 *
 * The only remote access is the periodic reseed writing other CPUs'
 * states. It may race with an output there, which then either loses the
 * new seed until the next reseed or keeps a mix of old and new words.
 * Either is harmless for a non-cryptographic generator; READ_ONCE() and
 * WRITE_ONCE() keep every word whole.
 */

#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/prandom_siphash.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/workqueue.h>

/* One state per interrupt context level: task, softirq, hardirq, NMI. */
#define PRANDOM_SIPHASH_LEVELS		4

/* Longest run of bytes produced with preemption disabled. */
#define PRANDOM_SIPHASH_BYTES_CHUNK	256

#define PRANDOM_SIPHASH_RESEED_INTERVAL	(60 * HZ)
#define PRANDOM_SIPHASH_RESEED_JITTER	(10 * HZ)

struct prandom_siphash_pcpu {
	struct prandom_siphash_state level[PRANDOM_SIPHASH_LEVELS];
};

static DEFINE_PER_CPU(struct prandom_siphash_pcpu, prandom_siphash_pcpu);

DEFINE_PER_CPU(unsigned long, prandom_siphash_noise);
EXPORT_PER_CPU_SYMBOL_GPL(prandom_siphash_noise);

static void prandom_siphash_reseed_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(prandom_siphash_reseed_work,
			    prandom_siphash_reseed_fn);

static __always_inline u32 prandom_siphash_step(struct prandom_siphash_state *s,
						unsigned long noise)
{
	unsigned long v0 = s->v[0], v1 = s->v[1], v2 = s->v[2];
	unsigned long v3 = s->v[3] ^ noise;
	unsigned long x;

	PRANDOM_SIPHASH_ROUND(v0, v1, v2, v3);
	PRANDOM_SIPHASH_ROUND(v0, v1, v2, v3);
	s->v[0] = v0;
	s->v[1] = v1;
	s->v[2] = v2;
	s->v[3] = v3;

	x = v0 ^ v1 ^ v2 ^ v3;
	return lower_32_bits(x) ^ upper_32_bits(x);
}

/*
 * This CPU's state for the current context level. Call with preemption
 * disabled, i.e. between get_cpu_ptr() and put_cpu_ptr().
 */
static __always_inline struct prandom_siphash_state *
prandom_siphash_this_state(struct prandom_siphash_pcpu *pcpu)
{
	return &pcpu->level[interrupt_context_level()];
}

static __always_inline u32 prandom_siphash_next(struct prandom_siphash_state *state)
{
	struct prandom_siphash_state s;
	unsigned int i;
	u32 ret;

	for (i = 0; i < ARRAY_SIZE(s.v); i++)
		s.v[i] = READ_ONCE(state->v[i]);
	ret = prandom_siphash_step(&s, __this_cpu_read(prandom_siphash_noise));
	for (i = 0; i < ARRAY_SIZE(s.v); i++)
		WRITE_ONCE(state->v[i], s.v[i]);
	return ret;
}

/**
 * prandom_siphash_u32 - get a pseudo-random 32-bit number
 *
 * Fast and hard to predict from outside, but not cryptographically secure.
 * Absorbs this CPU's noise word (see prandom_siphash_add_noise()).
 *
 * Context: Any context, NMI included.
 * Return: a uniformly distributed 32-bit number.
 */
u32 prandom_siphash_u32(void)
{
	struct prandom_siphash_pcpu *pcpu = get_cpu_ptr(&prandom_siphash_pcpu);
	u32 ret = prandom_siphash_next(prandom_siphash_this_state(pcpu));

	put_cpu_ptr(&prandom_siphash_pcpu);
	return ret;
}
EXPORT_SYMBOL_GPL(prandom_siphash_u32);

/**
 * prandom_siphash_u64 - get a pseudo-random 64-bit number
 *
 * Two consecutive 32-bit outputs of this CPU's stream.
 *
 * Context: Any context, NMI included.
 * Return: a uniformly distributed 64-bit number.
 */
u64 prandom_siphash_u64(void)
{
	struct prandom_siphash_pcpu *pcpu = get_cpu_ptr(&prandom_siphash_pcpu);
	struct prandom_siphash_state *state = prandom_siphash_this_state(pcpu);
	u64 ret = prandom_siphash_next(state);

	ret |= (u64)prandom_siphash_next(state) << 32;
	put_cpu_ptr(&prandom_siphash_pcpu);
	return ret;
}
EXPORT_SYMBOL_GPL(prandom_siphash_u64);

/**
 * prandom_siphash_bytes - fill a buffer with pseudo-random bytes
 * @buf: where to write, any alignment
 * @len: number of bytes to write, may be 0
 *
 * Preemption is disabled for at most 256 bytes at a time, so long buffers
 * do not hurt scheduling latency.
 *
 * Context: Any context, NMI included.
 */
void prandom_siphash_bytes(void *buf, size_t len)
{
	u8 *p = buf;

	while (len) {
		size_t chunk = min_t(size_t, len, PRANDOM_SIPHASH_BYTES_CHUNK);
		struct prandom_siphash_pcpu *pcpu;
		struct prandom_siphash_state *state;
		u32 r;

		len -= chunk;
		pcpu = get_cpu_ptr(&prandom_siphash_pcpu);
		state = prandom_siphash_this_state(pcpu);
		for (; chunk >= sizeof(r); chunk -= sizeof(r), p += sizeof(r)) {
			r = prandom_siphash_next(state);
			memcpy(p, &r, sizeof(r));
		}
		if (chunk) {
			r = prandom_siphash_next(state);
			memcpy(p, &r, chunk);
			p += chunk;
		}
		put_cpu_ptr(&prandom_siphash_pcpu);
	}
}
EXPORT_SYMBOL_GPL(prandom_siphash_bytes);

/**
 * prandom_siphash_u32_below - get a pseudo-random number in [0, @ceil)
 * @ceil: the exclusive upper bound
 *
 * Lemire's multiply-and-reject: the high half of @ceil times a 32-bit
 * output is the result, and the products whose low half falls in the
 * 2^32 mod @ceil values that would favour some results are drawn again,
 * so the result is exactly uniform. At most half of the draws are
 * rejected, and for small @ceil almost none.
 *
 * Context: Any context, NMI included.
 * Return: a uniformly distributed number in [0, @ceil), or 0 if @ceil is 0.
 */
u32 prandom_siphash_u32_below(u32 ceil)
{
	u64 m = (u64)ceil * prandom_siphash_u32();

	/* With ceil == 0, m is 0 and "0 < 0" keeps the modulo below away. */
	if (unlikely(lower_32_bits(m) < ceil)) {
		u32 reject = -ceil % ceil;

		while (lower_32_bits(m) < reject)
			m = (u64)ceil * prandom_siphash_u32();
	}
	return upper_32_bits(m);
}
EXPORT_SYMBOL_GPL(prandom_siphash_u32_below);

/**
 * prandom_siphash_state_seed - seed a caller-owned state from the CRNG
 * @state: the state to fill
 *
 * The result is never all-zero.
 *
 * Context: Any context get_random_bytes() may be called from.
 */
void prandom_siphash_state_seed(struct prandom_siphash_state *state)
{
	do {
		get_random_bytes(state->v, sizeof(state->v));
	} while (unlikely(!(state->v[0] | state->v[1] | state->v[2] | state->v[3])));
}
EXPORT_SYMBOL_GPL(prandom_siphash_state_seed);

/**
 * prandom_siphash_state_next_u32 - advance a caller-owned state
 * @state: a state set up by prandom_siphash_state_seed() (or copied from one)
 * @noise: a word to absorb first, 0 for none
 *
 * The step function that the per-CPU outputs use, over a state that the
 * caller owns and serialises: it xors @noise into the state, runs two
 * SipRounds and folds the state into 32 bits. The same state and noise
 * always give the same output, which makes the stream reproducible.
 *
 * Context: Any context.
 * Return: the next 32-bit output of @state.
 */
u32 prandom_siphash_state_next_u32(struct prandom_siphash_state *state,
				   unsigned long noise)
{
	return prandom_siphash_step(state, noise);
}
EXPORT_SYMBOL_GPL(prandom_siphash_state_next_u32);

/**
 * prandom_siphash_test_state - this CPU's state for the current context level
 *
 * For lib/test_prandom_siphash.c only, which checks through it that every
 * CPU and context level has a state of its own, that an output absorbs
 * the noise word and that a reseed replaces the states. Nothing else may
 * use it: the state is the generator's secret.
 *
 * Read the words with READ_ONCE(). The state keeps belonging to the CPU
 * and level it was returned for, so the caller must stay on that CPU at
 * that level (preemption disabled) for as long as it relies on "this
 * CPU's"; another CPU's state may be read from anywhere, racing with its
 * outputs and reseeds.
 *
 * Context: Any context, with preemption disabled.
 * Return: the state that prandom_siphash outputs drawn in the calling
 * context on this CPU use.
 */
const struct prandom_siphash_state *prandom_siphash_test_state(void)
{
	return prandom_siphash_this_state(this_cpu_ptr(&prandom_siphash_pcpu));
}

#if IS_MODULE(CONFIG_TEST_PRANDOM_SIPHASH)
EXPORT_SYMBOL_NS_GPL(prandom_siphash_test_state, PRANDOM_SIPHASH_TEST);
#endif

/**
 * prandom_siphash_reseed - reseed every CPU's state from the CRNG now
 *
 * Also done about once a minute by a delayed work. An output racing with
 * the reseed of its state may keep its old state until the next reseed.
 *
 * Context: Any context get_random_bytes() may be called from.
 */
void prandom_siphash_reseed(void)
{
	struct prandom_siphash_state seed;
	unsigned int i, level;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct prandom_siphash_pcpu *pcpu;

		pcpu = per_cpu_ptr(&prandom_siphash_pcpu, cpu);
		for (level = 0; level < PRANDOM_SIPHASH_LEVELS; level++) {
			prandom_siphash_state_seed(&seed);
			for (i = 0; i < ARRAY_SIZE(seed.v); i++)
				WRITE_ONCE(pcpu->level[level].v[i], seed.v[i]);
		}
	}
	memzero_explicit(&seed, sizeof(seed));
}
EXPORT_SYMBOL_GPL(prandom_siphash_reseed);

static void prandom_siphash_schedule_reseed(void)
{
	/*
	 * Jitter, so that the reseed moment cannot be predicted either. Not
	 * get_random_u32_below(): mainline 6.1.0 does not have it.
	 */
	unsigned long delay = PRANDOM_SIPHASH_RESEED_INTERVAL -
			      PRANDOM_SIPHASH_RESEED_JITTER / 2 +
			      prandom_siphash_u32_below(PRANDOM_SIPHASH_RESEED_JITTER);

	queue_delayed_work(system_power_efficient_wq,
			   &prandom_siphash_reseed_work, delay);
}

static void prandom_siphash_reseed_fn(struct work_struct *work)
{
	prandom_siphash_reseed();
	prandom_siphash_schedule_reseed();
}

static int __init prandom_siphash_init(void)
{
	prandom_siphash_reseed();
	prandom_siphash_schedule_reseed();
	return 0;
}

static void __exit prandom_siphash_exit(void)
{
	/* Also stops the work from queueing itself again. */
	cancel_delayed_work_sync(&prandom_siphash_reseed_work);
}

/* Built in, seed the states before the device and network initcalls run. */
subsys_initcall(prandom_siphash_init);
module_exit(prandom_siphash_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Fast SipHash-based pseudo-random numbers with per-CPU noise");
