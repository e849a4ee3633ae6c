/**
 * Network faults in the kernel where netem is missing (docs/incidents.md "Network faults"): pure
 * builders of the `tc` commands and readers of their counters. Both faults sit on the bridge
 * port that leads into the target's namespace (the switch port's egress queue), so everything
 * sent to the target crosses them and nothing else does.
 *
 * - delay: a token bucket (`tbf`) at a low rate with a standing queue in front of it. A queue
 *   needs traffic above the rate, so a UDP flow from the control namespace keeps a fixed number
 *   of bytes in flight (scripts.ts QUEUE_FLOW, a window acknowledged by the target's
 *   QUEUE_SINK): its packets wait in the tbf, every packet into the target waits behind them,
 *   and the wait is window / rate. A congested link (a transfer filling the link's buffer), not
 *   a fixed propagation delay as netem's: real queueing in a real kernel qdisc.
 * - loss: an `htb` whose filter (the `bpf` classifier running a classic BPF program that reads
 *   the kernel's random number) sends a share of the packets into a class whose queue holds no
 *   packet, so they are dropped at the port: random loss like netem's `loss P%`, in the kernel.
 */

/** A `tc` invocation in some namespace: its arguments after `tc`. */
export type TcArgs = string[];

/** The link rate of the delay fault's token bucket, kbit/s: far above HotROD's own traffic. */
export const QUEUE_RATE_KBIT = 1000;

/** Bytes the queue flow keeps in flight for a wait of `delayMs` at `rateKbit` (1 kbit = 1000 bit). */
export function queueWindowBytes(delayMs: number, rateKbit = QUEUE_RATE_KBIT): number {
  return Math.round((rateKbit * 1000 * (delayMs / 1000)) / 8);
}

/** The wait, ms, of `backlogBytes` queued at `rateKbit`. */
export function queueDelayMs(backlogBytes: number, rateKbit = QUEUE_RATE_KBIT): number {
  return (backlogBytes * 8) / rateKbit;
}

/**
 * The delay fault's qdisc on `dev`: a token bucket at `rateKbit` (one packet of burst: no
 * stored credit lets a packet skip the queue) whose queue holds the flow's window and spare room
 * (no drop: a delay, not a loss).
 */
export function delayQdisc(dev: string, windowBytes: number, rateKbit = QUEUE_RATE_KBIT): TcArgs {
  const limit = windowBytes + 256 * 1024;
  return [
    ...['qdisc', 'add', 'dev', dev, 'root', 'tbf'],
    ...['rate', `${String(rateKbit)}kbit`, 'burst', '1540', 'limit', String(limit)],
  ];
}

/** SKF_AD_OFF + SKF_AD_RANDOM: classic BPF's ancillary load of a random u32. */
const LOAD_RANDOM = 2 ** 32 - 0x1000 + 56;

/**
 * Classic BPF (tc's `bytecode` syntax) that returns -1 (the filter's class) for a random
 * `percent` of packets and 0 (no match) for the others.
 */
export function lossBytecode(percent: number): string {
  if (!(percent > 0 && percent < 100))
    throw new RangeError(`loss ${String(percent)}% not in (0, 100)`);
  const below = Math.round((percent / 100) * 2 ** 32);
  const ops = [
    [0x20, 0, 0, LOAD_RANDOM], // ld [rand]
    [0x35, 1, 0, below], // jge #below: keep (ret 0), else drop (ret -1)
    [0x06, 0, 0, 2 ** 32 - 1], // ret #-1: the filter's classid
    [0x06, 0, 0, 0], // ret #0: no match, the default class
  ];
  return `${String(ops.length)},${ops.map((o) => o.join(' ')).join(',')}`;
}

/** The loss fault's commands on `dev`, in order: htb, its two classes, the empty queue, the filter. */
export function lossQdisc(dev: string, percent: number): TcArgs[] {
  return [
    ['qdisc', 'add', 'dev', dev, 'root', 'handle', '1:', 'htb', 'default', '10'],
    ['class', 'add', 'dev', dev, 'parent', '1:', 'classid', '1:10', 'htb', 'rate', '10gbit'],
    ['class', 'add', 'dev', dev, 'parent', '1:', 'classid', '1:20', 'htb', 'rate', '8kbit'],
    ['qdisc', 'add', 'dev', dev, 'parent', '1:20', 'handle', '20:', 'pfifo', 'limit', '0'],
    [
      ...['filter', 'add', 'dev', dev, 'parent', '1:', 'protocol', 'ip', 'prio', '1'],
      ...['bpf', 'bytecode', lossBytecode(percent), 'classid', '1:20'],
    ],
  ];
}

/** Removes whatever root qdisc `dev` has (its classes and filters with it). */
export const clearQdisc = (dev: string): TcArgs => ['qdisc', 'del', 'dev', dev, 'root'];

/** The counters of a root qdisc, from `tc -s qdisc show dev DEV`. */
export interface QdiscStats {
  sentBytes: number;
  sentPackets: number;
  dropped: number;
  backlogBytes: number;
}

/**
 * The root qdisc's counters (the first `qdisc ... root` block) of `tc -s qdisc show` output;
 * null when there is no root qdisc with counters.
 */
export function parseQdiscStats(text: string): QdiscStats | null {
  const blocks = text.split(/\n(?=qdisc )/);
  const root = blocks.find((b) => /^qdisc \S+ \S+ root\b/.test(b));
  if (!root) return null;
  const sent = /Sent (\d+) bytes (\d+) pkt \(dropped (\d+)/.exec(root);
  const backlog = /backlog (\d+)b/.exec(root);
  if (!sent) return null;
  return {
    sentBytes: Number(sent[1]),
    sentPackets: Number(sent[2]),
    dropped: Number(sent[3]),
    backlogBytes: backlog ? Number(backlog[1]) : 0,
  };
}
