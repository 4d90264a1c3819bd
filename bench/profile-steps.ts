/**
 * Sums the .cpuprofile files of a folder (bench/profile-read.ts run with --cpu-prof: one per
 * thread) by step of a read: file read (the JS side; libuv's copies from the page cache run on its
 * own threads, which no profile sees), decode (WebAssembly and the codecs), copies, scatter,
 * messages, waiting (idle), GC, other; and the top functions by self time.
 *   node --import tsx bench/profile-steps.ts DIR [MIB_READ]
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string };
  hitCount?: number;
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const dir = process.argv[2];
const mib = Number(process.argv[3] ?? 0);
const STEPS: [string, RegExp][] = [
  // Idle, or a worker blocked in piscina's Atomics.wait for its next task.
  ["waiting", /^\(idle\)$|^atomicsWaitLoop$/],
  ["gc", /^\(garbage collector\)$/],
  // Loading and compiling modules (tsx compiles the sources in every worker): once per process.
  ["startup", /internal\/modules|compile|esbuild|\/tsx\/|loader|realm|lexer|bootstrap/i],
  ["decode", /wasm|blosc|lz4|zstd|inflate|unshuffle|decodeStream|decodeFrame/i],
  ["scatter", /^put$|copyElements|rowScatter|copyRun|strided/i],
  ["messages", /piscina|postMessage|MessagePort|structuredClone|serialize|deserialize|onmessage|worker-task|task-outcome|receiveMessage/i],
  ["file read", /^(read|readv|open|close|fstat|stat|openFileHandle|readFile|readInto|readRuns|readChunkBytes)$|filesystem|fs\/promises/i],
  ["copies", /^set$|subarray|slice/i],
];
const totals = new Map<string, number>();
const byFn = new Map<string, number>();
let files = 0;
for (const f of readdirSync(dir).filter((n) => n.endsWith(".cpuprofile"))) {
  files++;
  const p = JSON.parse(readFileSync(join(dir, f), "utf8")) as Profile;
  const nodes = new Map(p.nodes.map((n) => [n.id, n]));
  p.samples.forEach((id, i) => {
    const n = nodes.get(id)!;
    const { functionName, url } = n.callFrame;
    const us = p.timeDeltas[i] ?? 0;
    const name = `${functionName || "(anonymous)"} ${url.replace(/^.*\/(src|node_modules|bench)\//, "$1/")}`;
    byFn.set(name, (byFn.get(name) ?? 0) + us);
    const step = STEPS.find(([, re]) => re.test(functionName) || re.test(url))?.[0] ?? "other";
    totals.set(step, (totals.get(step) ?? 0) + us);
  });
}
const all = [...totals.values()].reduce((a, b) => a + b, 0);
console.log(`${files} profiles, ${(all / 1000).toFixed(0)} ms sampled (waiting included); per MiB read: startup excluded`);
for (const [step, us] of [...totals].sort((a, b) => b[1] - a[1])) {
  console.log(`  ${step.padEnd(10)} ${(us / 1000).toFixed(0).padStart(7)} ms${mib ? `  ${(us / 1000 / mib).toFixed(3)} ms/MiB` : ""}`);
}
console.log("top functions (self):");
for (const [name, us] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`);
