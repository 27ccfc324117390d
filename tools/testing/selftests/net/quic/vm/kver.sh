#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the release of the kernel the test VM boots (see lib.sh).
. "$(dirname "$0")/lib.sh"
vm_kver
