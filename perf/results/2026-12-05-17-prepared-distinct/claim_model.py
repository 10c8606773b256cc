# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Round trips (L2 latencies) a warp's trip waits for in the distinct insert, by probe scheme.
# A warp trip: 32 lanes x 4 keys; lanes run in lockstep, so a step that any lane needs costs the
# whole warp one round trip. Sequential trips (no races). Set: S slots in groups of 4, homes at
# group starts, each key with a turn (its first slot in the group).
import random, sys
def run(n, distinct, S, seed=1):
    rnd = random.Random(seed)
    keys = [rnd.randrange(distinct) for _ in range(n)] if distinct < n else rnd.sample(range(1 << 40), n)
    slot = {}            # slot -> key
    H = {}
    def home(k):
        if k not in H: H[k] = (rnd.randrange(S // 4) * 4, rnd.randrange(4))
        return H[k]
    tot = {'A': 0, 'B': 0, 'C': 0, 'D': 0}; trips = 0
    for base in range(0, n, 128):
        trip = keys[base:base + 128]
        # per key: its probe sequence until found or a free slot; record the (position) where it ends
        # and whether it claims; positions counted in slots from the first.
        info = []
        for k in trip:
            g, t = home(k)
            pos = 0
            while True:
                s = (g + (pos // 4) * 4) % S + ((pos % 4 + t) % 4)
                if slot.get(s) == k: info.append((pos, False)); break
                if s not in slot:
                    slot[s] = k; info.append((pos, True)); break
                pos += 1
        lanes = [info[r * 32:(r + 1) * 32] for r in range(4)]  # key k of each lane: row k
        # A: read-first: rounds of group reads; in each round each key k (row) with a claiming lane costs a CAS round trip
        def read_rounds(start):  # keys: (pos, claim); start: position already probed
            rt = 0; cas_serial = 0; cas_batched = 0
            # round r reads groups covering positions [4r, 4r+4) (ignoring the unaligned first when start>0)
            maxgroup = max((p // 4 for row in lanes for (p, c) in row if p >= start), default=-1)
            for r in range(maxgroup + 1):
                rt += 1
                rows_claiming = sum(1 for row in lanes if any(c and p // 4 == r and p >= start for (p, c) in row))
                cas_serial += rows_claiming
                cas_batched += 1 if rows_claiming else 0
            return rt, cas_serial, cas_batched
        r, cs, cb = read_rounds(0)
        tot['A'] += r + cs; tot['C'] += r + cb
        # B / D: one batched CAS round at position 0, then the rest as A / C from position 1
        live = [(p, c) for row in lanes for (p, c) in row if p >= 1]
        r, cs, cb = read_rounds(1) if live else (0, 0, 0)
        tot['B'] += 1 + r + cs; tot['D'] += 1 + r + cb
        trips += 1
    return {k: v / trips for k, v in tot.items()}
# A: read, then each key's claim in turn (HEAD); B: A after a first CAS at each key's home slot
# (exp/claim-first, here on every trip); C: read, then the round's claims together
# (exp/batched-claims); D: B with C's rounds.
for n, d, S, what in [(1 << 17, 1 << 17, 1 << 18, "100% distinct, set half full at the end (2^20's only set)"),
                      (1 << 17, 1 << 16, 1 << 18, "50%"), (1 << 17, 1310, 1 << 18, "1%"),
                      (1 << 17, 1310, 1 << 12, "1%, set 32% full at the end (2^28's first set)")]:
    print(f"{what}:", {k: round(v, 2) for k, v in run(n, d, S).items()})
