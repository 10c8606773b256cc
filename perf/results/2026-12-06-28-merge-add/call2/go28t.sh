# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# 28th session, call 2 (the short form that ran, DEADLINE 220): commands.txt through .devr/run.sh
CMDS=.devr/cmds28t.txt DEADLINE=${DEADLINE:-220} bash .devr/run.sh
