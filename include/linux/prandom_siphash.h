/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fast, unpredictable, non-cryptographic pseudo-random numbers: SipRounds
 * over per-CPU state that is seeded and periodically reseeded from the
 * CRNG, plus a per-CPU noise word that hot paths stir inline and that the
 * next output absorbs.
 *
 * Not for keys or anything that must resist cryptanalysis: use
 * get_random_bytes() and friends for those.
 */
#ifndef _LINUX_PRANDOM_SIPHASH_H
#define _LINUX_PRANDOM_SIPHASH_H

#include <linux/bitops.h>
#include <linux/percpu.h>
#include <linux/siphash.h>
#include <linux/types.h>

/*
 * One SipRound over four unsigned longs: SipHash's round on 64-bit,
 * HalfSipHash's on 32-bit, so the state is always four machine words.
 */
#if BITS_PER_LONG == 64
#define PRANDOM_SIPHASH_ROUND(a, b, c, d) SIPHASH_PERMUTATION(a, b, c, d)
#else
#define PRANDOM_SIPHASH_ROUND(a, b, c, d) HSIPHASH_PERMUTATION(a, b, c, d)
#endif

/**
 * struct prandom_siphash_state - the state of one prandom_siphash stream
 * @v: the four SipHash state words
 *
 * The SipRounds permute the state, so a state that is not all-zero never
 * becomes all-zero by itself, while an all-zero state fed no noise stays
 * all-zero for ever: initialise it with prandom_siphash_state_seed().
 */
struct prandom_siphash_state {
	unsigned long v[4];
};

/*
 * This CPU's noise word: written by prandom_siphash_add_noise(), xored
 * into the state by every output drawn on this CPU. It is not cleared
 * after use: absorbing the same word again until the next stir is
 * harmless. Use it through the helpers only.
 */
DECLARE_PER_CPU(unsigned long, prandom_siphash_noise);

u32 prandom_siphash_u32(void);
u64 prandom_siphash_u64(void);
void prandom_siphash_bytes(void *buf, size_t len);
u32 prandom_siphash_u32_below(u32 ceil);
void prandom_siphash_reseed(void);

void prandom_siphash_state_seed(struct prandom_siphash_state *state);
u32 prandom_siphash_state_next_u32(struct prandom_siphash_state *state,
				   unsigned long noise);

/* For lib/test_prandom_siphash.c only: see its kernel-doc. */
const struct prandom_siphash_state *prandom_siphash_test_state(void);

/**
 * prandom_siphash_add_noise - stir four words into this CPU's noise word
 * @a: first word, xored with the current noise
 * @b: second word
 * @c: third word
 * @d: fourth word
 *
 * Runs one SipRound over (@a ^ noise, @b, @c, @d) and keeps one word of
 * the result as the new noise, which the next prandom_siphash output on
 * this CPU absorbs. Feed it whatever varies and is cheap to get at: a
 * timestamp, a packet number, a pointer, a length. The cost is a per-CPU
 * load, about ten ALU operations (the compiler drops the part of the
 * round that does not reach the kept word) and a per-CPU store, so it may
 * be called per packet, in any context, NMI included.
 */
static inline void prandom_siphash_add_noise(unsigned long a, unsigned long b,
					     unsigned long c, unsigned long d)
{
	/*
	 * Raw per-CPU accesses on purpose: no preemption toggling, no atomic,
	 * no call. If the task migrates between the read and the write, or an
	 * interrupt stirs the same word in between, one update is lost or
	 * lands on the other CPU. That is harmless: the noise only perturbs
	 * a state that is already unpredictable, it is never relied upon.
	 */
	a ^= raw_cpu_read(prandom_siphash_noise);
	PRANDOM_SIPHASH_ROUND(a, b, c, d);
	raw_cpu_write(prandom_siphash_noise, d);
}

/*
 * PRANDOM_SIPHASH_ADD_NOISE - prandom_siphash_add_noise() for arguments of
 * any integer or pointer type, each cast to unsigned long (so a u64
 * contributes only its low half on 32-bit); byte-order types such as
 * __be16 too, as noise has no byte order.
 */
#define PRANDOM_SIPHASH_ADD_NOISE(a, b, c, d)				\
	prandom_siphash_add_noise((__force unsigned long)(a),		\
				  (__force unsigned long)(b),		\
				  (__force unsigned long)(c),		\
				  (__force unsigned long)(d))

#endif /* _LINUX_PRANDOM_SIPHASH_H */
