/**
 * Small Node programs the fault benchmark runs inside its namespaces (node --input-type=module
 * -e SCRIPT args...): they must run there, so they are text, not imports.
 */

/**
 * HotROD's frontend (v1.42) dials its services at 0.0.0.0:PORT, its own namespace. This forwards
 * each such port (argv[1]: JSON [[port, host], ...]) to the service's namespace over the bridge.
 * argv[2] is a control file polled every 100 ms: JSON { "PORT": delayMs } delays every chunk the
 * service sends back by that much, in order: a one-way link delay on the service's answers, the
 * stand-in for `tc netem delay` where the kernel has no netem (inject.ts).
 */
export const FORWARD = `
import { createServer, connect } from 'node:net';
import { readFileSync } from 'node:fs';
const control = process.argv[2];
let delays = {};
setInterval(() => { try { delays = JSON.parse(readFileSync(control, 'utf8')); } catch {} }, 100);
for (const [port, host] of JSON.parse(process.argv[1])) {
  createServer((a) => {
    const b = connect(port, host);
    a.pipe(b);
    // Chunks leave in order: each no earlier than the one before, even as the delay changes.
    let due = 0;
    b.on('data', (chunk) => {
      due = Math.max(Date.now() + Number(delays[port] ?? 0), due);
      setTimeout(() => a.write(chunk), due - Date.now());
    });
    const close = () => { a.destroy(); b.destroy(); };
    const later = () => setTimeout(close, Math.max(0, due - Date.now()) + 5);
    a.on('error', close); a.on('close', close); b.on('error', later); b.on('close', later);
  }).listen(port, '0.0.0.0');
}
`;

/**
 * Open-loop load on the frontend's /dispatch (argv: base URL, requests/s, customer ids JSON,
 * warm-up traceparent): waits until an unsampled dispatch succeeds, then sends one request every
 * 1/rate s whatever the answers (at most 64 in flight), until SIGTERM. Every 2 s it prints a JSON
 * line of counts, the requests in flight and the median latency of the requests answered in
 * those 2 s (`p50Ms`, null when none): what run.ts reads to tell a quiet stretch (quiet.ts).
 */
export const LOAD = `
const [base, rate, ids, warm] = [process.argv[1], Number(process.argv[2]), JSON.parse(process.argv[3]), process.argv[4]];
const until = Date.now() + 60000;
for (;;) {
  try {
    const r = await fetch(base + '/dispatch?customer=' + ids[0], { headers: { traceparent: warm } });
    await r.text();
    if (r.ok) break;
  } catch {}
  if (Date.now() > until) { console.error('frontend not ready'); process.exit(2); }
  await new Promise((r) => setTimeout(r, 250));
}
console.log(JSON.stringify({ ready: Date.now() }));
let sent = 0, ok = 0, failed = 0, inFlight = 0, skipped = 0;
let recent = [];
const one = async (i) => {
  inFlight++;
  const t = performance.now();
  try {
    const r = await fetch(base + '/dispatch?customer=' + ids[i % ids.length], { signal: AbortSignal.timeout(30000) });
    await r.text();
    if (r.ok) ok++; else failed++;
  } catch { failed++; }
  recent.push(performance.now() - t);
  inFlight--;
};
const t0 = Date.now();
let i = 0;
const tick = () => {
  const due = Math.floor(((Date.now() - t0) / 1000) * rate);
  while (i < due) {
    if (inFlight < 64) { sent++; void one(i); } else skipped++;
    i++;
  }
};
setInterval(tick, 20);
setInterval(() => {
  const xs = recent.sort((a, b) => a - b);
  recent = [];
  const p50Ms = xs.length ? Math.round(xs[(xs.length - 1) >> 1]) : null;
  console.log(JSON.stringify({ t: Date.now(), sent, ok, failed, skipped, inFlight, p50Ms, n: xs.length }));
}, 2000);
process.on('SIGTERM', () => { console.log(JSON.stringify({ t: Date.now(), sent, ok, failed, skipped, end: true })); process.exit(0); });
`;

/** GETs URLs (argv: JSON array) and prints a JSON array of { status, body }; refused is 0. */
export const FETCH_MANY = `
const urls = JSON.parse(process.argv[1]);
const out = await Promise.all(urls.map(async (u) => {
  try { const r = await fetch(u); return { status: r.status, body: await r.text() }; }
  catch (e) { return { status: 0, body: String(e) }; }
}));
process.stdout.write(JSON.stringify(out));
`;

/**
 * The delay fault's queue flow (netfault.ts): UDP datagrams of 1,000 bytes to the sink at argv
 * host:port, at most argv[3] bytes unacknowledged, each acknowledgement sending the next. Behind
 * a token bucket slower than the flow it keeps that many bytes queued: a standing queue every
 * other packet to the target waits behind. A datagram unacknowledged after 2 s counts as lost
 * (its room is sent again). Prints `ready` once the first acknowledgement came back.
 */
export const QUEUE_FLOW = `
import { createSocket } from 'node:dgram';
const [host, port, windowBytes] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3])];
const SIZE = 1000;
const s = createSocket('udp4');
s.on('error', () => {});
const out = new Map();
let seq = 0, inFlight = 0, acked = 0;
const pump = () => {
  const now = Date.now();
  for (const [k, at] of out) {
    if (now - at < 2000) break;
    out.delete(k);
    inFlight -= SIZE;
  }
  while (inFlight + SIZE <= windowBytes) {
    const b = Buffer.alloc(SIZE);
    b.writeDoubleLE(++seq, 0);
    out.set(seq, now);
    inFlight += SIZE;
    s.send(b, port, host);
  }
};
s.on('message', (m) => {
  if (m.length < 8) return;
  if (out.delete(m.readDoubleLE(0))) inFlight -= SIZE;
  if (acked++ === 0) console.log('ready');
  pump();
});
s.bind(() => { pump(); setInterval(pump, 100); });
process.on('SIGTERM', () => process.exit(0));
`;

/** The queue flow's sink (argv: port): acknowledges each datagram with its first 8 bytes. */
export const QUEUE_SINK = `
import { createSocket } from 'node:dgram';
const s = createSocket('udp4');
s.on('error', () => {});
s.on('message', (m, r) => { s.send(m.subarray(0, 8), r.port, r.address); });
s.bind(Number(process.argv[1]), () => console.log('ready'));
process.on('SIGTERM', () => process.exit(0));
`;

/** A CPU burner: spins until killed. */
export const BURN = 'for (;;) {}';

/** Prints `open` when a TCP connection to argv host:port succeeds, else `closed`. */
export const PROBE = `
import { connect } from 'node:net';
const s = connect(Number(process.argv[2]), process.argv[1], () => { process.stdout.write('open'); s.destroy(); });
s.on('error', () => process.stdout.write('closed'));
`;
