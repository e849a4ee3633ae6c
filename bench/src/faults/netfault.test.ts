import { describe, expect, it } from 'vitest';
import {
  delayQdisc,
  lossBytecode,
  lossQdisc,
  parseQdiscStats,
  queueDelayMs,
  queueWindowBytes,
} from './netfault';

describe('kernel network faults', () => {
  it('sizes the queue flow to the wait it makes at the link rate', () => {
    // 1 Mbit/s is 125 kB/s: 100 ms of it is 12.5 kB.
    expect(queueWindowBytes(100, 1000)).toBe(12_500);
    expect(queueDelayMs(12_500, 1000)).toBeCloseTo(100, 9);
    expect(queueDelayMs(queueWindowBytes(305), 1000)).toBeCloseTo(305, 9);
  });

  it('holds the window and spare room in the token bucket: a delay, no drop', () => {
    const args = delayQdisc('v2', 37_500, 1000);
    expect(args.join(' ')).toBe('qdisc add dev v2 root tbf rate 1000kbit burst 1540 limit 299644');
  });

  it('drops a random share: classic BPF reading the kernel random number', () => {
    // ld [SKF_AD_OFF + SKF_AD_RANDOM]; jge #0.1 * 2^32 (keep) else ret -1 (the drop class).
    expect(lossBytecode(10)).toBe('4,32 0 0 4294963256,53 1 0 429496730,6 0 0 4294967295,6 0 0 0');
    expect(() => lossBytecode(0)).toThrow(RangeError);
    expect(() => lossBytecode(100)).toThrow(RangeError);
    const steps = lossQdisc('v1', 10).map((a) => a.join(' '));
    expect(steps[0]).toBe('qdisc add dev v1 root handle 1: htb default 10');
    expect(steps[3]).toBe('qdisc add dev v1 parent 1:20 handle 20: pfifo limit 0');
    expect(steps[4]).toMatch(
      /^filter add dev v1 parent 1: protocol ip prio 1 bpf bytecode .* classid 1:20$/,
    );
  });

  it("reads the root qdisc's counters from tc -s", () => {
    const text = [
      'qdisc htb 1: root refcnt 3 r2q 10 default 0x10 direct_packets_stat 0 direct_qlen 1000',
      ' Sent 33994 bytes 211 pkt (dropped 24, overlimits 0 requeues 0) ',
      ' backlog 0b 0p requeues 0',
      'qdisc pfifo 20: parent 1:20 limit 0p',
      ' Sent 0 bytes 0 pkt (dropped 24, overlimits 0 requeues 0) ',
      ' backlog 0b 0p requeues 0',
    ].join('\n');
    expect(parseQdiscStats(text)).toEqual({
      sentBytes: 33994,
      sentPackets: 211,
      dropped: 24,
      backlogBytes: 0,
    });
    const tbf = [
      'qdisc tbf 8004: root refcnt 3 rate 1Mbit burst 1540b lat 788ms ',
      ' Sent 1992974 bytes 1609 pkt (dropped 0, overlimits 3321 requeues 0) ',
      ' backlog 21262b 15p requeues 0',
    ].join('\n');
    expect(parseQdiscStats(tbf)?.backlogBytes).toBe(21262);
    expect(parseQdiscStats('qdisc noqueue 0: dev lo root refcnt 2')).toBeNull();
    expect(parseQdiscStats('')).toBeNull();
  });
});
