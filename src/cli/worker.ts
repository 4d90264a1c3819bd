/** `parzarr worker --queue redis://HOST:PORT`: runs the slab jobs of `parzarr cp --queue`. */
import { UsageError, flag, intOpt, parse, stringOpt } from "./args.js";
import { write, type Command } from "./command.js";
import { startCopyWorker } from "./copy-queue.js";
import { redactRedisUrl } from "../parallel/sync/redis-connect.js";

const HELP = `Usage: parzarr worker --queue redis://HOST:PORT [options]

Runs the slab jobs that \`parzarr cp SRC DST --queue redis://HOST:PORT\` enqueues, on this
machine's worker threads, until stopped. Start it on as many machines as you like; each reads the
source and writes the destination itself, so both must be reachable from every machine (S3,
HTTP, a shared file system). SIGINT or SIGTERM let the slabs in progress finish, then exit; a
worker killed outright leaves its slab to another after --lease-ms.

Options:
  --queue URL            the Redis server of the queue (required)
  --queue-name NAME      the queue's name (default parzarr-cp)
  --concurrency N        slab jobs at once (default 1)
  --threads N            worker threads per slab (default: what cp was given)
  --lease-ms MS          how long a job stays locked without renewal (default 30000)
  -q, --quiet            no line per slab
  -h, --help             show this help`;

export const workerCommand: Command = {
  name: "worker",
  help: HELP,
  async run(argv, io) {
    const p = parse(argv, {
      queue: { type: "string" },
      "queue-name": { type: "string" },
      concurrency: { type: "string" },
      threads: { type: "string" },
      "lease-ms": { type: "string" },
      quiet: { type: "boolean", short: "q" },
    });
    if (p.help) return write(io.stdout, HELP), 0;
    const url = stringOpt(p, "queue");
    if (url === undefined || !/^rediss?:\/\//i.test(url)) throw new UsageError("--queue redis://HOST:PORT is required");
    const concurrency = intOpt(p, "concurrency", 1) ?? 1;
    if (concurrency < 1) throw new UsageError("--concurrency must be at least 1");
    const quiet = flag(p, "quiet");
    // Test hook, through the environment only: die the hard way in the middle of the slab after
    // this many, with some of its chunks written (what a lost machine leaves).
    const crashAfter = io.env.PARZARR_WORKER_CRASH_AFTER_SLABS;
    let slabsDone = 0;
    const worker = await startCopyWorker({
      url,
      name: stringOpt(p, "queue-name"),
      concurrency,
      threads: intOpt(p, "threads", 0),
      leaseMs: intOpt(p, "lease-ms", 1),
      onSlabProgress: ({ done }) => {
        if (crashAfter !== undefined && slabsDone >= Number(crashAfter) && done >= 1) process.kill(process.pid, "SIGKILL");
      },
      onJob: ({ data, outcome, reason }) => {
        if (outcome === "done") slabsDone++;
        if (!quiet || outcome === "failed") {
          io.stderr.write(`worker: ${data.rel || "/"} slab ${data.index} ${outcome}${reason ? `: ${reason}` : ""}\n`);
        }
      },
    });
    await worker.worker.waitUntilReady();
    if (!quiet) io.stderr.write(`worker: waiting for slab jobs on ${redactRedisUrl(url)}\n`);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    await worker.close();
    if (!quiet) io.stderr.write("worker: stopped\n");
    return 0;
  },
};
