/**
 * Where the browser's time goes during a read (bench/browser.ts): each thread records spans on
 * one clock (performance.timeOrigin + now, comparable across the page and its workers): every
 * fetch from its call until its body is read, and (in workers) every chunk task from its start
 * until its outcome. `profileOf` turns the spans of one read into the numbers the bench prints.
 */

export interface Span {
  kind: "fetch" | "task";
  /** "main" or "worker N". */
  thread: string;
  start: number;
  end: number;
}

const spans: Span[] = [];
let on = false;

/** The clock every thread shares. */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

export function setTracing(enabled: boolean): void {
  on = enabled;
}

export function record(kind: Span["kind"], thread: string, start: number, end: number): void {
  if (on) spans.push({ kind, thread, start, end });
}

/** The spans recorded so far on this thread, which are then forgotten. */
export function takeSpans(): Span[] {
  return spans.splice(0);
}

/** Response's own `body` getter, which a traced response's `body` wraps. */
const responseBody = Object.getOwnPropertyDescriptor(Response.prototype, "body")!.get!;

/**
 * Replaces this thread's fetch by one that records each request until its body has been read,
 * whichever way it is read: `arrayBuffer` (zarrita, the fetch-only reader) or the body's stream
 * (parzarr's stores read it in pieces, to bound what a response may take). Call it before any
 * store is made: stores keep the fetch they found.
 */
export function traceFetch(thread: string): void {
  const inner = globalThis.fetch.bind(globalThis);
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const start = now();
    const res = await inner(input, init);
    const done = (): void => record("fetch", thread, start, now());
    const arrayBuffer = res.arrayBuffer.bind(res);
    res.arrayBuffer = async () => {
      const b = await arrayBuffer();
      done();
      return b;
    };
    // Made on first use: piping locks the body, which arrayBuffer could then not read.
    let traced: ReadableStream<Uint8Array> | null | undefined;
    Object.defineProperty(res, "body", {
      configurable: true,
      get: () => {
        if (traced === undefined) {
          const body = responseBody.call(res) as ReadableStream<Uint8Array> | null;
          // A body already read (arrayBuffer) or taken is locked: returned as it is, as Response would.
          traced = body === null || body.locked ? body : body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ flush: done }));
        }
        return traced;
      },
    });
    return res;
  };
}

/** The length of the union of intervals (time during which at least one was running). */
function unionMs(intervals: [number, number][]): number {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = -Infinity;
  for (const [s, e] of sorted) {
    if (e <= end) continue;
    total += e - Math.max(s, end);
    end = e;
  }
  return total;
}

export interface ThreadProfile {
  thread: string;
  fetches: number;
  tasks: number;
  /** Time this thread had at least one chunk task running (a worker decoding or waiting on I/O). */
  taskBusyMs: number;
  /** Time this thread had at least one fetch open. */
  fetchOpenMs: number;
}

export interface ReadProfile {
  wallMs: number;
  fetches: number;
  /** Mean number of fetches open at once over the read. */
  meanFetchesOpen: number;
  /** Share of the read during which no fetch was open: the network idled. */
  noFetchShare: number;
  /** From the read's start until the first fetch started. */
  firstFetchMs: number;
  /** From the last fetch's end until the read's end: decoding nothing overlapped. */
  tailMs: number;
  threads: ThreadProfile[];
}

export function profileOf(all: Span[], start: number, end: number): ReadProfile {
  const inRead = all.filter((s) => s.end >= start && s.start <= end);
  const fetches = inRead.filter((s) => s.kind === "fetch");
  const wallMs = end - start;
  const fetchSum = fetches.reduce((n, s) => n + (s.end - s.start), 0);
  const fetchUnion = unionMs(fetches.map((s) => [s.start, s.end]));
  const threads = [...new Set(inRead.map((s) => s.thread))].sort().map((thread) => {
    const mine = inRead.filter((s) => s.thread === thread);
    const tasks = mine.filter((s) => s.kind === "task");
    const f = mine.filter((s) => s.kind === "fetch");
    return {
      thread,
      fetches: f.length,
      tasks: tasks.length,
      taskBusyMs: unionMs(tasks.map((s) => [s.start, s.end])),
      fetchOpenMs: unionMs(f.map((s) => [s.start, s.end])),
    };
  });
  return {
    wallMs,
    fetches: fetches.length,
    meanFetchesOpen: fetchSum / wallMs,
    noFetchShare: 1 - fetchUnion / wallMs,
    firstFetchMs: fetches.length ? Math.min(...fetches.map((s) => s.start)) - start : 0,
    tailMs: fetches.length ? end - Math.max(...fetches.map((s) => s.end)) : 0,
    threads,
  };
}
