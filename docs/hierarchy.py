#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Draws docs/hierarchy.png: tilekit's ladder, tile -> block -> grid (matplotlib)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

fig, ax = plt.subplots(figsize=(13, 4.4))
ax.set_xlim(0, 33)
ax.set_ylim(0, 12.5)
ax.axis("off")


def box(x, y, w, h, text, color, size=9):
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.1", fc=color, ec="black", lw=0.8))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=size)


def arrow(x0, y0, x1, y1, text=""):
    ax.add_patch(FancyArrowPatch((x0, y0), (x1, y1), arrowstyle="-|>", mutation_scale=12, lw=1))
    if text:
        ax.text((x0 + x1) / 2, (y0 + y1) / 2 + 0.35, text, ha="center", fontsize=8, style="italic")


# tile: 8 lanes exchanging by shuffles
ax.text(4.6, 11.8, "tile<N>: 1-32 lanes", ha="center", fontsize=10, weight="bold")
for i in range(8):
    box(0.3 + i * 1.1, 8.6, 0.8, 0.8, f"{i}", "#cfe2f3")
for i, d in enumerate([1, 2, 4]):
    y = 7.6 - i * 1.0
    ax.text(4.6, y, f"shfl_xor {d}", ha="center", fontsize=8)
box(0.5, 2.2, 8.2, 2.4, "registers only:\nshfl / redux.sync / ballot / match_any\nreduce, scan, compact, histogram, dedup\n(every lane gets the result)", "#cfe2f3", 8)

# block: warps + shared storage
ax.text(16.4, 11.8, "block<Threads>: up to 1024 threads", ha="center", fontsize=10, weight="bold")
for i in range(4):
    box(12.2 + i * 2.2, 8.6, 1.8, 0.8, f"warp {i}", "#cfe2f3", 8)
box(12.2, 5.4, 8.4, 1.6, "the caller's shared storage\n(scan_storage, ...; unions reuse it)", "#fff2cc", 8)
for i in range(4):
    arrow(13.1 + i * 2.2, 8.5, 13.1 + i * 2.2, 7.1)
box(12.7, 2.2, 7.4, 2.4, "each warp's result through\nshared memory, one barrier,\nthe block's result in every thread", "#fff2cc", 8)
arrow(16.4, 5.5, 16.4, 4.7)

# grid: blocks + look-back
ax.text(28.2, 11.8, "grid: the device", ha="center", fontsize=10, weight="bold")
for i in range(4):
    box(23.6 + i * 2.4, 8.6, 2.0, 0.8, f"block {i}", "#fff2cc", 8)
box(23.6, 5.2, 9.2, 2.0, "tile states in global memory:\nlook-back (scan, select, RLE)\nor a ticket (reduce)", "#d9ead3", 8)
for i in range(4):
    arrow(24.6 + i * 2.4, 8.5, 24.6 + i * 2.4, 7.1)
box(24.3, 2.2, 7.8, 2.4, "one pass, 64-bit counts;\ntilekit::device:: and the\ntilekit::cub facade", "#d9ead3", 8)
arrow(28.2, 5.5, 28.2, 4.7)

arrow(9.2, 3.4, 12.5, 3.4, "built from")
arrow(20.3, 3.4, 24.1, 3.4, "built from")
ax.text(16.5, 0.6, "The same algorithm code runs on the GPU (cooperative_groups) and in tilekit's CPU simulator.",
        ha="center", fontsize=9)
fig.savefig(__file__.replace(".py", ".png"), dpi=110, bbox_inches="tight")
print("wrote", __file__.replace(".py", ".png"))
