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

/**
 * Host metrics of HotROD's processes (HotROD sends none): every argv[3] ms, for each service in
 * the control file argv[2] (JSON { service: pid }, rewritten when a service restarts), the
 * process's CPU and the CPU of the cores it may run on, posted as OTLP/JSON to argv[1]
 * (`.../v1/metrics`) under `service.name` and `host.name` = the service, as its spans are. Read
 * from the kernel as the demo reads its own (apps/demo/src/runtime-metrics.ts): a process is a
 * host whose CPUs are its `Cpus_allowed_list`; `system.cpu.utilization{cpu.logical_number,
 * cpu.mode}` per allowed CPU from /proc/stat and `process.cpu.utilization{cpu.mode}` as its CPU
 * time (/proc/PID/stat) over the elapsed time times those CPUs. Tailscope's evidence then reads
 * neighbour pressure (its cores busy with others' work) and CPU saturation (docs/metrics.md).
 */
export const PROC_METRICS = `
import { readFileSync } from 'node:fs';
const [url, control, every] = [process.argv[1], process.argv[2], Number(process.argv[3])];
const MODES = ['user', 'nice', 'system', 'idle', 'iowait', 'interrupt', 'softirq', 'steal'];
const HZ = 100;
const read = (p) => { try { return readFileSync(p, 'utf8'); } catch { return null; } };
const allowed = (pid) => {
  const line = (read('/proc/' + pid + '/status') ?? '').split('\\n').find((l) => l.startsWith('Cpus_allowed_list:'));
  if (!line) return [];
  const out = [];
  for (const part of line.slice(line.indexOf(':') + 1).trim().split(',')) {
    const [a, b] = part.split('-').map(Number);
    for (let c = a; c <= (Number.isInteger(b) ? b : a); c++) out.push(c);
  }
  return out;
};
const procTicks = (pid) => {
  const s = read('/proc/' + pid + '/stat');
  if (!s) return null;
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return { user: Number(f[11]), system: Number(f[12]) };
};
const cpuJiffies = () => {
  const out = new Map();
  for (const line of (read('/proc/stat') ?? '').split('\\n')) {
    const m = /^cpu(\\d+)\\s+(.*)$/.exec(line);
    if (m) out.set(Number(m[1]), m[2].trim().split(/\\s+/).slice(0, MODES.length).map(Number));
  }
  return out;
};
const str = (key, v) => ({ key, value: { stringValue: String(v) } });
const int = (key, v) => ({ key, value: { intValue: String(v) } });
let before = null;
const tick = async () => {
  let pids = {};
  try { pids = JSON.parse(readFileSync(control, 'utf8')); } catch {}
  const at = Date.now();
  const now = { at, cpus: cpuJiffies(), procs: {} };
  for (const [svc, pid] of Object.entries(pids)) now.procs[svc] = { pid, ticks: procTicks(pid) };
  const prev = before;
  before = now;
  if (!prev) return;
  const secs = (at - prev.at) / 1000;
  const t = String(at * 1e6);
  const resourceMetrics = [];
  for (const [svc, p] of Object.entries(now.procs)) {
    const q = prev.procs[svc];
    if (!q || q.pid !== p.pid || !p.ticks || !q.ticks || secs <= 0) continue;
    const cpus = allowed(p.pid);
    if (cpus.length === 0) continue;
    const points = [];
    for (const c of cpus) {
      const a = prev.cpus.get(c), b = now.cpus.get(c);
      if (!a || !b) continue;
      const d = b.map((v, i) => Math.max(0, v - (a[i] ?? v)));
      const total = d.reduce((s, x) => s + x, 0);
      if (total <= 0) continue;
      d.forEach((x, i) => points.push({ timeUnixNano: t, asDouble: x / total, attributes: [int('cpu.logical_number', c), str('cpu.mode', MODES[i])] }));
    }
    const cap = secs * HZ * cpus.length;
    const own = (mode) => ({ timeUnixNano: t, asDouble: Math.max(0, p.ticks[mode] - q.ticks[mode]) / cap, attributes: [str('cpu.mode', mode)] });
    resourceMetrics.push({
      resource: { attributes: [str('service.name', svc), str('host.name', svc)] },
      scopeMetrics: [{
        scope: { name: 'tailscope-bench/proc-metrics' },
        metrics: [
          { name: 'system.cpu.utilization', unit: '1', gauge: { dataPoints: points } },
          { name: 'process.cpu.utilization', unit: '1', gauge: { dataPoints: [own('user'), own('system')] } },
        ],
      }],
    });
  }
  if (resourceMetrics.length === 0) return;
  try {
    await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ resourceMetrics }), signal: AbortSignal.timeout(every) });
  } catch {}
};
setInterval(() => { void tick(); }, every);
process.on('SIGTERM', () => process.exit(0));
`;
