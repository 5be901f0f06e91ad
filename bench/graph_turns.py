"""Graphs timed in turn at a power-capped clock: each contender's graph
replayed in batches, round-robin over the contenders, every other round in
reverse order (of two kernels timed in turn at the cap the first ran 7-8%
ahead whichever it was: bench/NOTES.md, session 22), the median of every
replay its figure, and the SM clock and power that NVML read while its
batches ran."""
import statistics
import time

import torch


class Contender:
    """One way of computing a row: its call, its graph, and what its replays measured."""

    def __init__(self, name, side, call, result, info=None):
        self.name, self.side, self.call, self.result, self.info = name, side, call, result, info or {}
        self.graph, self.refused, self.err = None, None, None
        self.times, self.mhz, self.watts, self.round_ms = [], [], [], []
        self.settled = []  # the later half of each round's replays: the clock the contender itself sets at the cap
        self.reps = 1
        self.defaults = []  # the default plans (default, default_deterministic, ...) this contender stands for

    def row(self):
        """ms, sm_mhz, power_w: medians."""
        med = lambda xs: statistics.median(xs) if xs else None  # noqa: E731
        return med(self.times), med(self.mhz), med(self.watts)


def replay_batch(c, clock, record):
    """c's graph replayed c.reps times back to back, each between two events; NVML sampled until the last ends."""
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(c.reps)]
    for a, b in events:
        a.record()
        c.graph.replay()
        b.record()
    while not events[-1][1].query():
        if record:
            mhz, w = clock.sm_mhz(), clock.power_w()
            if mhz is not None:
                c.mhz.append(mhz)
            if w is not None:
                c.watts.append(w)
        time.sleep(0.0005)
    torch.cuda.synchronize()
    times = [a.elapsed_time(b) for a, b in events]
    if record:
        c.times += times
        c.settled += times[len(times) // 2:]
        c.round_ms.append(statistics.median(times))
    return times


def time_in_turn(contenders, clock, rounds, batch_ms, warm_ms):
    """Warm-up (every graph in turn for warm_ms), then rounds of one batch per contender, every other round in
    reverse order; a batch is as many replays as fill about batch_ms."""
    live = [c for c in contenders if c.graph is not None]
    if not live:
        return
    start = time.perf_counter()
    while (time.perf_counter() - start) * 1000 < warm_ms:
        for c in live:
            ms = statistics.median(replay_batch(c, clock, False))
            c.reps = max(3, min(200, round(batch_ms / max(ms, 1e-3))))
    for r in range(rounds):
        for c in (live if r % 2 == 0 else live[::-1]):
            replay_batch(c, clock, True)
