/** `parzarr cp SRC DST`: copy, rechunk, recompress and convert arrays and hierarchies. */
import { FileSystemStore, InvalidArgumentError, resolveStore, ZipStore } from "../index.js";
import { UsageError, flag, intOpt, parse, parseBytes, parseGrid, parseTarget, requirePositionals, stringOpt } from "./args.js";
import { CODEC_SPEC_HELP, parseCodecSpec, type CodecSpec } from "../copy/codec-spec.js";
import { write, type CliIO, type Command } from "./command.js";
import { assertNoOverlap, planCopy, runCopy, type CopyHooks, type CopySettings } from "../copy/engine.js";
import { CLI_NAMING, describePlan } from "./copy.js";
import { openNode, targetStore } from "./nodes.js";
import { isIcechunkUrl, openIcechunkUrl } from "./icechunk.js";
import { commit } from "../icechunk/session.js";
import { formatBytes, formatDuration } from "./format.js";
import { Progress } from "./progress.js";
import { copyOnQueue } from "./copy-queue.js";

const HELP = `Usage: parzarr cp SRC[#inner/path] DST[#inner/path] [options]

Copies one array, or a group with everything below it (attributes included), into DST,
rechunking, recompressing and converting between Zarr v2 and v3 on the way. Memory stays within
--memory: the copy goes slab by slab, each slab a box of whole destination chunks (or shards),
so every destination chunk is written once, whole, with no read-modify-write (on a rectilinear
grid a chunk across a slab's edge is merged, under its lock, by each slab it meets).

Options:
  --chunks 512,512       destination chunk shape (default: the source's)
                         10:20:30,64: a rectilinear grid (v3), the edges of a dimension
                         joined by ":"; or its chunk_shapes JSON, e.g. '[[[10,3],5],64]'
  --shards 4096,4096     store chunks in shards of this shape (v3; a multiple of --chunks)
  --codec SPEC           ${CODEC_SPEC_HELP}
                         e.g. zstd:3, blosc:lz4:5:shuffle, gzip:6, none (default: the source's)
  --format 2|3           destination Zarr format (default: the source's)
  --threads N            worker threads for reads and writes (0: this thread)
  --memory SIZE          memory budget for data buffers, e.g. 512MiB, 2GiB (default 512MiB)
  --resume               finish an interrupted copy: slabs already done are skipped
  --overwrite            replace whatever is at DST
  --skip-unreadable      leave out (and list) arrays parzarr cannot read, or cannot write in
                         the layout asked for, instead of failing before writing anything
  --queue redis://H:P    enqueue one job per slab on a BullMQ queue in Redis and wait while
                         \`parzarr worker\` processes (on any machines) run them; exits 0 when
                         every slab is done, 1 naming the slabs that failed
  --queue-name NAME      the queue's name (default parzarr-cp)
  --message TEXT         the commit message, when DST is an Icechunk repository
  --dry-run              print the plan (slabs, memory, codecs) and write nothing
  -q, --quiet            no progress output
  -h, --help             show this help

SRC and DST may be Icechunk repositories: icechunk:PATH?branch=main (or ?tag=v1, ?snapshot=ID
for a source), PATH a folder or an s3:// URL. A copy into a branch is committed once, at the
end (Zarr v3 only): a copy that fails or is killed midway leaves the branch as it was.

Progress goes to stderr: a bar redrawn in place on a terminal, plain lines otherwise.`;

/** A bad --codec is a usage error here; the library's parser says INVALID_ARGUMENT. */
function parseCodec(text: string): CodecSpec {
  try {
    return parseCodecSpec(text);
  } catch (err) {
    if (err instanceof InvalidArgumentError) throw new UsageError(`--${err.message}`);
    throw err;
  }
}

function parseFormat(v: string | undefined): 2 | 3 | undefined {
  if (v === undefined) return undefined;
  if (v !== "2" && v !== "3") throw new UsageError(`--format must be 2 or 3, got ${JSON.stringify(v)}`);
  return Number(v) as 2 | 3;
}

/** Test and debugging hooks, enabled through the environment only. */
function debugHooks(io: CliIO, memory: number, hooks: CopyHooks): () => void {
  const env = io.env;
  const crashAfter = env.PARZARR_CP_CRASH_AFTER_SLABS === undefined ? undefined : Number(env.PARZARR_CP_CRASH_AFTER_SLABS);
  if (crashAfter !== undefined) {
    // Dies the hard way in the middle of the next slab, after some of its chunks are written:
    // the state a power cut or `kill -9` leaves.
    hooks.onChunk = ({ slabsThisRun, done }) => {
      if (slabsThisRun >= crashAfter && done >= 1) process.kill(process.pid, "SIGKILL");
    };
  }
  if (env.PARZARR_CP_DEBUG !== "1") return () => {};
  const gc = (globalThis as { gc?: () => void }).gc;
  // Live ArrayBuffer bytes (chunk and slab data) after a forced collection, so the figure is what
  // the copy holds, not garbage V8 has not collected yet. rss is reported too, but it carries the
  // runtime and compiler (tens of MiB) and says little about a budget of a few MiB.
  const sample = (state: { peak: number; rss: number; phase: string; peakPhase: string }) => {
    // Twice: V8 frees ArrayBuffer memory in a sweeper that the next collection waits for.
    gc?.();
    gc?.();
    const m = process.memoryUsage();
    if (m.arrayBuffers > state.peak) state.peakPhase = state.phase;
    if (env.PARZARR_CP_TRACE) io.stderr.write(`${state.phase} ${m.arrayBuffers}\n`);
    state.peak = Math.max(state.peak, m.arrayBuffers);
    state.rss = Math.max(state.rss, m.rss);
  };
  gc?.();
  const baseline = process.memoryUsage().arrayBuffers;
  const state = { peak: baseline, rss: 0, phase: "start", peakPhase: "start" };
  const prevChunk = hooks.onChunk;
  hooks.beforeSlab = () => {
    state.phase = "before a slab";
    sample(state);
  };
  hooks.afterRead = () => {
    state.phase = "slab read";
    sample(state);
  };
  hooks.onChunk = (info) => {
    state.phase = "slab writes";
    sample(state);
    prevChunk?.(info);
  };
  return () => {
    gc?.();
    const end = process.memoryUsage().arrayBuffers;
    io.stderr.write(
      `parzarr-debug ${JSON.stringify({ budget: memory, baselineArrayBuffers: baseline, peakArrayBuffers: state.peak, peakRss: state.rss, peakPhase: state.peakPhase, endArrayBuffers: end, gcForced: gc !== undefined })}\n`,
    );
  };
}

export const cpCommand: Command = {
  name: "cp",
  help: HELP,
  async run(argv, io) {
    const p = parse(argv, {
      chunks: { type: "string" },
      shards: { type: "string" },
      codec: { type: "string" },
      format: { type: "string" },
      threads: { type: "string" },
      memory: { type: "string" },
      resume: { type: "boolean" },
      overwrite: { type: "boolean" },
      "skip-unreadable": { type: "boolean" },
      "dry-run": { type: "boolean" },
      queue: { type: "string" },
      "queue-name": { type: "string" },
      message: { type: "string" },
      quiet: { type: "boolean", short: "q" },
    });
    if (p.help) return write(io.stdout, HELP), 0;
    const [srcText, dstText] = requirePositionals(p, ["SRC", "DST"]);
    const chunks = stringOpt(p, "chunks");
    const shards = stringOpt(p, "shards");
    const codec = stringOpt(p, "codec");
    const memoryText = stringOpt(p, "memory");
    const settings: CopySettings = {
      chunks: chunks === undefined ? undefined : parseGrid(chunks, "chunks"),
      shards: shards === undefined ? undefined : parseGrid(shards, "shards"),
      codec: codec === undefined ? undefined : parseCodec(codec),
      format: parseFormat(stringOpt(p, "format")),
      threads: intOpt(p, "threads", 0),
      memory: memoryText === undefined ? 512 * 2 ** 20 : parseBytes(memoryText, "memory"),
      resume: flag(p, "resume"),
      overwrite: flag(p, "overwrite"),
      skipUnreadable: flag(p, "skip-unreadable"),
      dryRun: flag(p, "dry-run"),
      naming: CLI_NAMING,
    };
    if (settings.resume && settings.overwrite) throw new UsageError("--resume and --overwrite contradict each other");
    const source = parseTarget(srcText);
    const dest = parseTarget(dstText);
    const intoIcechunk = isIcechunkUrl(dest.store);
    const message = stringOpt(p, "message");
    if (message !== undefined && !intoIcechunk) throw new UsageError("--message is for a copy into an Icechunk repository (icechunk:PATH?branch=NAME)");
    if (intoIcechunk) {
      // Nothing reaches the branch before the commit at the end: there is never a copy to resume.
      if (settings.resume) throw new UsageError("--resume does not apply to an Icechunk destination: an interrupted copy committed nothing; copy again");
      if (stringOpt(p, "queue") !== undefined) throw new UsageError("--queue cannot write into an Icechunk session, which lives in this process");
      settings.format ??= 3;
      settings.transactional = true;
    }
    const sourceStore = await targetStore(source);
    // Refused before planning (and in a dry run): the same check runCopy makes before writing.
    // An Icechunk session is a store of its own, which no folder or source snapshot overlaps.
    if (!intoIcechunk) {
      assertNoOverlap(
        { store: sourceStore, path: source.path, text: source.text },
        { store: resolveStore(dest.store, { readOnly: true }), path: dest.path, text: dest.text },
      );
    }
    const plan = await planCopy(await openNode(source, sourceStore), settings, source.text);
    for (const k of plan.skipped) io.stderr.write(`cp: skipping ${k.rel}: ${k.reason}\n`);
    if (settings.dryRun) {
      write(io.stdout, describePlan(plan, settings, dest));
      return 0;
    }
    const quiet = flag(p, "quiet");
    let progress: Progress | undefined;
    const hooks: CopyHooks = {
      progress: (chunks, bytes, totals, start) => {
        progress ??= new Progress(io.stderr, totals.chunks, totals.bytes, start, !quiet);
        progress.update(chunks, bytes);
      },
    };
    const report = debugHooks(io, settings.memory, hooks);
    const t0 = Date.now();
    const session = intoIcechunk ? await openIcechunkUrl(dest.store, true) : undefined;
    const destStore = resolveStore(session ?? dest.store);
    // An interrupted copy's last chunk writes die between temporary file and rename: clear them.
    if (settings.resume && destStore instanceof FileSystemStore) await destStore.removeLeftoverTemps(dest.path && `${dest.path}/`);
    const queueUrl = stringOpt(p, "queue");
    if (queueUrl !== undefined) {
      if (!/^rediss?:\/\//i.test(queueUrl)) throw new UsageError(`--queue takes a redis:// URL, got ${JSON.stringify(queueUrl)}`);
      const result = await copyOnQueue(plan, source, dest, destStore, settings, { url: queueUrl, name: stringOpt(p, "queue-name") }, {
        progress: (chunks, bytes, totals) => {
          progress ??= new Progress(io.stderr, totals.chunks, totals.bytes, { chunks: 0, bytes: 0 }, !quiet);
          progress.update(chunks, bytes);
        },
      });
      progress?.finish();
      if (result.failed.length > 0) {
        const names = result.failed.map((f) => `${f.rel || "/"} slab ${f.index} (${f.reason})`);
        io.stderr.write(`cp: ${result.failed.length} of ${result.slabs} slab(s) failed: ${names.join("; ")}\n`);
        return 1;
      }
      if (!quiet) io.stderr.write(`cp: ${result.slabs} slab(s) copied by the queue's workers in ${formatDuration((Date.now() - t0) / 1000)} to ${dest.text}\n`);
      return 0;
    }
    let result: Awaited<ReturnType<typeof runCopy>>;
    try {
      result = await runCopy(plan, { store: destStore, path: dest.path, text: dest.text }, settings, hooks);
    } finally {
      // A zip destination is written out by close(): also after a failure, so that the slabs the
      // journal records as done are in the archive for --resume.
      if (destStore instanceof ZipStore) await destStore.close();
    }
    progress?.finish();
    report();
    if (session) {
      const id = await commit(session.session, message ?? `parzarr cp ${source.text}`);
      if (!quiet) io.stderr.write(`cp: committed snapshot ${id} to branch ${session.session.branch}\n`);
    }
    if (!quiet) {
      const seconds = (Date.now() - t0) / 1000;
      const resumed = result.slabsSkipped > 0 ? `, ${result.slabsSkipped} slab(s) already done` : "";
      io.stderr.write(
        `cp: copied ${result.arrays} array(s), ${formatBytes(result.bytes)} in ${formatDuration(seconds)} ` +
          `(${result.slabsWritten} slab(s) written${resumed}) to ${dest.text}\n`,
      );
    }
    return 0;
  },
};
