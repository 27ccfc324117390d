# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What a kernel report looks like, written once for the scripts that read
# kernel logs (vm/run.sh, check.sh): sourced, it sets three extended regular
# expressions. Keep them in a form both grep -E and mawk take: no {n}
# intervals, and no backslashes (awk -v eats them).

# The line die() opens a trap's report with ("int3: 0000 [#1] SMP",
# "invalid opcode: 0000 [#1]").
kreport_x='[0-9a-f]'
kreport_die=": $kreport_x$kreport_x$kreport_x$kreport_x [[]#[0-9]+[]]"

# KREPORT_DIRTY: a line that makes a kernel log dirty, so that vm/run.sh fails
# the run ("kernel-log dirty" in its verdict). Lockdep's reports are
# WARNINGs; "RCU lockdep checking is enabled" at boot is not one. "quic:
# kmemleak" is the line vm/guest.sh writes when kmemleak names our modules.
KREPORT_DIRTY='WARNING:|BUG:|kernel BUG|Oops|Call Trace|general protection fault'
KREPORT_DIRTY+='|KASAN|UBSAN|blocked for more than|hung_task|Kernel panic|refcount_t:'
KREPORT_DIRTY+='|quic: kmemleak|list_add corruption|list_del corruption'
KREPORT_DIRTY+='|lockdep is turned off|DEBUG_LOCKS_WARN_ON|possible (recursive|circular)'
KREPORT_DIRTY+='|ODEBUG'
KREPORT_DIRTY+='|unregister_netdevice: waiting|rcu_.*stall|soft lockup|hard LOCKUP'
KREPORT_DIRTY+="|$kreport_die"

# KREPORT_OPEN: the line a report opens with, on the console of a guest
# that died (vm/run.sh keeps the report from there on in oops.log). A BUG()
# opens with "cut here" and "kernel BUG at", a trap with its name and a
# count ("invalid opcode: 0000 [#1]", "int3: 0000 [#1]").
KREPORT_OPEN='cut here|kernel BUG at|skb_.*_panic|BUG:|Oops|general protection'
KREPORT_OPEN+='|invalid opcode|divide error|stack segment|double fault|UBSAN'
KREPORT_OPEN+="|$kreport_die"
KREPORT_OPEN+='|WARNING:|Kernel panic|Out of memory|soft lockup|hard LOCKUP'
KREPORT_OPEN+='|blocked for more than'

# KREPORT_NAME: the lines of a report that name the bug, with the
# faulting RIP (check.sh's short form of a dead guest's report).
KREPORT_NAME='kernel BUG at|skb_.*_panic|BUG:|UBSAN:|general protection'
KREPORT_NAME+='|invalid opcode|divide error|RIP: 0010'
