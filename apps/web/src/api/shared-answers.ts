// Answers of the analysis routes by URL, shared by every page of the session: the Overview's
// attribution of the worst operation is the Stragglers page's first question, and the service
// map and the Fan-outs page's edges table read the same /api/v1/edges. Pages key their own
// loads differently (state/shared-loads.ts), so without this each asked the server again.
// Bounded (the oldest answer goes first); forgotten on "Refresh".

/** Routes whose answers depend only on their URL (the range is in it). */
const SHARED = /^\/api\/v1\/(fanouts|edges|stragglers|hosts|episodes)(\?|$)/;
const MAX_KEPT = 40;

interface Flight {
  promise: Promise<unknown>;
  controller: AbortController;
  /** Callers waiting; the request is aborted when the last one leaves. */
  users: number;
}

const kept = new Map<string, unknown>();
const flights = new Map<string, Flight>();

// After "Refresh" each URL is asked once with `Cache-Control: no-cache`: the server may answer a
// question over a range ending now from an answer up to 5 minutes old (its live answers, header
// x-tailscope-answer-age-ms) and a person who asked for the newest should get it.
let refreshed = false;
const askedFresh = new Set<string>();
// The age of each kept answer the server served from its live answers, for the range picker.
const ages = new Map<string, { ageMs: number; at: number }>();
const listeners = new Set<() => void>();
let oldest: { ageMs: number; at: number } | null = null;

/** Whether `url`'s answer is shared by URL. */
export function isShared(url: string): boolean {
  return SHARED.test(url);
}

/** Drops every kept answer ("Refresh": the next asks go to the server). */
export function forgetAnswers(): void {
  kept.clear();
  refreshed = true;
  askedFresh.clear();
  ages.clear();
  changed();
}

/** Whether the next load of `url` asks the server for a fresh answer (once after Refresh). */
export function wantsFresh(url: string): boolean {
  if (!refreshed || askedFresh.has(url)) return false;
  askedFresh.add(url);
  return true;
}

/** Records the age the server gave `url`'s answer (undefined: computed for this ask). */
export function noteAnswerAge(url: string, ageMs: number | undefined): void {
  if (ageMs === undefined) ages.delete(url);
  else ages.set(url, { ageMs, at: Date.now() });
  changed();
}

function changed(): void {
  let o: { ageMs: number; at: number } | null = null;
  for (const a of ages.values())
    if (!o || a.ageMs - (Date.now() - a.at) > o.ageMs - (Date.now() - o.at)) o = a;
  oldest = o;
  for (const l of listeners) l();
}

/** The oldest answer on screen that the server served from its live answers (null: none). */
export function oldestAnswer(): { ageMs: number; at: number } | null {
  return oldest;
}

/** Subscribes to changes of oldestAnswer (React's useSyncExternalStore). */
export function subscribeAnswerAges(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function keep(url: string, value: unknown): void {
  kept.delete(url);
  kept.set(url, value);
  while (kept.size > MAX_KEPT) {
    const first = kept.keys().next();
    if (first.done === true) break;
    kept.delete(first.value);
    ages.delete(first.value);
  }
}

/** What fetch rejects with when its signal aborts (the reason, when it is an error). */
function aborted(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error
    ? reason
    : new DOMException('The request was aborted', 'AbortError');
}

/**
 * The parsed JSON answer of `url`: kept, in flight (joined), or loaded by `load` now. A caller's
 * `signal` ends only its own wait; the request itself is aborted when nobody waits for it.
 */
export function sharedAnswer(
  url: string,
  load: (signal: AbortSignal) => Promise<unknown>,
  signal?: AbortSignal,
): Promise<unknown> {
  if (kept.has(url)) {
    const value = kept.get(url);
    keep(url, value);
    return Promise.resolve(value);
  }
  if (signal?.aborted === true) return Promise.reject(aborted(signal));
  let f = flights.get(url);
  if (!f) {
    const controller = new AbortController();
    const created: Flight = {
      controller,
      users: 0,
      promise: load(controller.signal).then(
        (value) => {
          if (flights.get(url) === created) flights.delete(url);
          keep(url, value);
          return value;
        },
        (e: unknown) => {
          if (flights.get(url) === created) flights.delete(url);
          throw e;
        },
      ),
    };
    flights.set(url, created);
    f = created;
  }
  const flight = f;
  flight.users++;
  return new Promise((ok, fail) => {
    let done = false;
    const leave = () => {
      if (done) return;
      done = true;
      flight.users--;
      if (flight.users === 0 && flights.get(url) === flight) {
        flights.delete(url);
        flight.controller.abort();
      }
    };
    signal?.addEventListener(
      'abort',
      () => {
        leave();
        fail(aborted(signal));
      },
      { once: true },
    );
    flight.promise.then(
      (value) => {
        done = true;
        ok(value);
      },
      (e: unknown) => {
        done = true;
        fail(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
