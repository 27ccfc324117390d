/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CPU time a bulk transfer of quic_perf or ktls_perf costs, per GiB
 * moved, printed before its MB/s line as
 *
 *   cpu sender S ms/GiB receiver R ms/GiB system Y ms/GiB softirq Q ms/GiB
 *
 * sender, receiver: CLOCK_THREAD_CPUTIME_ID of the thread that writes and
 *	of the one that reads (user and system time), the sender's from its
 *	first write to the return of its last, the receiver's from the end
 *	of its handshake or key setup to the end of data.  A thread's time
 *	includes the softirq work that the kernel ran on its stack while it
 *	was current, unless the kernel has CONFIG_IRQ_TIME_ACCOUNTING
 *	(Debian's 6.1 and 6.12 do not).  Over loopback that is much of the
 *	receive path: a packet sent is received in the NET_RX softirq run
 *	when the sender re-enables bottom halves, so the sender pays for
 *	the receive processing of its own data (up to the receiving
 *	socket's queue or backlog), and the receiver for that of its ACKs.
 * system: the guest's busy CPU time over the sender's window: the online
 *	CPUs times the wall time, less the idle, iowait and steal time of
 *	/proc/stat's "cpu" line.  Idle and iowait come from the kernel's
 *	nohz idle accounting, a clock read on entering and leaving idle,
 *	as the threads' times are, not from ticks (USER_HZ units, 10 ms).
 *	It is everything: both threads, the softirqs wherever they ran (in
 *	a thread, in ksoftirqd, on an otherwise idle CPU), kworkers
 *	(asynchronous crypto), timers, and anything else the guest was
 *	doing (bench.sh runs nothing else).  Under TCG, both this and the
 *	threads' times include the time the host did not run a busy vCPU.
 * softirq: system times the share of softirq in /proc/stat's user,
 *	nice, system, irq and softirq columns over the window.  These
 *	columns are sampled at the tick (unless the CPU is nohz_full with
 *	CONFIG_VIRT_CPU_ACCOUNTING_GEN), and under TCG, where ticks come
 *	late, they were seen to add up to half of what the threads' clocks
 *	say: only their shares are used.
 *
 * Both ends' threads and the guest: per GiB = time * 2^30 / bytes.
 */
#ifndef _QUIC_BENCH_CPU_COST_H
#define _QUIC_BENCH_CPU_COST_H

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The calling thread's CPU time, seconds. */
static inline double cpu_thread_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* /proc/stat's counters, in seconds, and when they were read. */
struct cpu_sys {
	double wall;		/* CLOCK_MONOTONIC */
	double idle;		/* idle + iowait + steal, all CPUs */
	double ticks;		/* user + nice + system + irq + softirq */
	double softirq;
	int ncpu;		/* online: the "cpuN" lines */
	int ok;
};

static inline struct cpu_sys cpu_sys_now(void)
{
	unsigned long long user, nice, sys, idle, iowait, irq, softirq, steal;
	struct cpu_sys c = { 0 };
	long hz = sysconf(_SC_CLK_TCK);
	struct timespec ts;
	char line[512];
	FILE *f;

	f = fopen("/proc/stat", "r");
	if (!f)
		return c;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	c.wall = ts.tv_sec + ts.tv_nsec / 1e9;
	if (hz > 0 && fgets(line, sizeof(line), f) &&
	    sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user,
		   &nice, &sys, &idle, &iowait, &irq, &softirq, &steal) == 8) {
		c.idle = (double)(idle + iowait + steal) / hz;
		c.ticks = (double)(user + nice + sys + irq + softirq) / hz;
		c.softirq = (double)softirq / hz;
		c.ok = 1;
	}
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "cpu", 3) && line[3] >= '0' &&
		    line[3] <= '9')
			c.ncpu++;
	fclose(f);
	return c;
}

/*
 * Print the cpu line for @bytes moved: the sender's and the receiver's
 * thread time, and the guest's from @s0 to @s1 (left out when /proc/stat
 * could not be read).
 */
static inline void cpu_cost_print(size_t bytes, double sender, double receiver,
				  const struct cpu_sys *s0,
				  const struct cpu_sys *s1)
{
	double k = 1e3 * (1 << 30) / (double)bytes;	/* s to ms/GiB */
	double busy, ticks;

	printf("cpu sender %.0f ms/GiB receiver %.0f ms/GiB", sender * k,
	       receiver * k);
	if (s0->ok && s1->ok && s1->ncpu) {
		busy = s1->ncpu * (s1->wall - s0->wall) - (s1->idle - s0->idle);
		ticks = s1->ticks - s0->ticks;
		printf(" system %.0f ms/GiB softirq %.0f ms/GiB", busy * k,
		       ticks > 0 ? busy * (s1->softirq - s0->softirq) / ticks *
				   k : 0);
	}
	printf("\n");
}

#endif /* _QUIC_BENCH_CPU_COST_H */
