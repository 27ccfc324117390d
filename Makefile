# SPDX-License-Identifier: GPL-2.0
#
# Top-level entry of the QUIC patchset overlay.
#
#   make            build the modules (W=1, warnings are errors) and user space
#   make check      build, boot the test VM and run every test, on Debian's
#                   kernel and on the debug kernel (the series in tree)
#   make check-all  make check, plus Debian's 6.12 kernel (and its RT flavour)
#                   and the KUnit suites under UML (QUIC built in)
#   make run        build, boot the VM and run the demo
#   make bench      build, boot the VM and print micro-benchmark figures
#                   (BENCH_MIB=20 BENCH_REPS=3 make bench: shorter transfers,
#                   best of three)
#   make checkpatch run scripts/checkpatch.pl --strict on our C sources
#   make layering   print the layering figures of issue 24 and their targets
#                   (tools/quic/layering -v lists the edges of each loop)
#   make series-check
#                   generate the patch series (tools/quic/series) and check
#                   every patch: checkpatch --strict, size, and each prefix
#                   built (=y and =m, W=1) in a copy of the debug kernel tree
#                   (part of make check-all, not of make check)
#
# KDIR selects the kernel to build against (default: the headers of the
# kernel the test VM boots, the one Debian's linux-image-amd64 points to).

KDIR ?= $(wildcard /usr/src/linux-headers-$(shell tools/testing/selftests/net/quic/vm/kver.sh))
W ?= 1
KCFLAGS ?= -Werror

SELFTESTS := tools/testing/selftests/net/quic
VM := $(SELFTESTS)/vm
KSRC := $(CURDIR)/.cache/linux-source

export KSRC

.PHONY: all modules user ksrc provision check check-all run bench checkpatch layering series-check clean

all: modules user

modules:
	@test -n "$(KDIR)" || { echo "no kernel headers: apt-get install linux-headers-amd64, or pass KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=$(W) KCFLAGS="$(KCFLAGS)" modules

user: ksrc
	$(MAKE) -C $(SELFTESTS) KSRC=$(KSRC)
	$(MAKE) -C $(SELFTESTS)/bench
	$(MAKE) -C tools/lib/quic
	$(MAKE) -C tools/quic/http3
	$(MAKE) -C tools/quic/ss
	$(MAKE) -C tools/quic/agent

ksrc:
	@$(VM)/ksrc.sh $(KSRC)

provision:
	@$(VM)/provision.sh

check: provision
	$(MAKE) all
	$(SELFTESTS)/check.sh

# make check with every suite on the debug kernel, then the same tests on
# Debian's 6.12 kernel, the in-kernel tests on its PREEMPT_RT flavour, and
# the KUnit suites under user-mode Linux with QUIC built in (kunit.py).
check-all: provision
	$(MAKE) all
	QUIC_CHECK_RUNS="stock debug-full 6.12 6.12-rt uml" $(SELFTESTS)/check.sh
	$(MAKE) series-check

run: provision
	$(MAKE) all
	$(VM)/run.sh -- $(CURDIR)/$(SELFTESTS)/demo.sh

bench: provision
	$(MAKE) all
	$(VM)/run.sh -- env BENCH_MIB=$(or $(BENCH_MIB),100) \
		BENCH_REPS=$(or $(BENCH_REPS),1) $(CURDIR)/$(SELFTESTS)/bench/bench.sh

checkpatch: ksrc
	$(SELFTESTS)/checkpatch.sh $(KSRC)

layering:
	@tools/quic/layering

# Needs the debug kernel tree (make check builds it).
series-check: ksrc
	tools/quic/series-check

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C $(SELFTESTS) clean
	$(MAKE) -C $(SELFTESTS)/bench clean
	$(MAKE) -C tools/lib/quic clean
	$(MAKE) -C tools/quic/http3 clean
	$(MAKE) -C tools/quic/ss clean
