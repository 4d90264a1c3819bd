/**
 * A `parzarr` command that reads large arrays (WITH_RERUN) asks glibc for transparent huge pages
 * on every large allocation by running itself once more with `GLIBC_TUNABLES=glibc.malloc.hugetlb=1`. Node does not madvise
 * its buffers (numpy does), and on Linux a fresh 4 KiB page costs about as much to fault in as
 * decoding it: a fresh 256 MiB output took 740-800 ms to fill with 4 KiB pages and 40-95 ms with
 * huge pages on the development machine (issue 12). The tunable must be set before the process
 * starts, so a command line is the one place where parzarr can decide it for the user; library
 * users set it themselves (README, "Huge pages").
 */
import { spawn } from "node:child_process";
import { constants } from "node:os";

/** glibc gained `glibc.malloc.hugetlb` in 2.35; older ones ignore it, so re-running would be waste. */
const MIN_GLIBC: [number, number] = [2, 35];

export interface ReexecFacts {
  platform: string;
  /** glibc's version at run time ("2.36"), undefined on other C libraries (musl). */
  glibc: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  /** The subcommand (`process.argv[2]`, "" when none): only those in WITH_RERUN re-run. Undefined: not a command (the benchmark's child). */
  command?: string;
}

/**
 * The commands that read large arrays into fresh memory, the ones huge pages speed up: `get`, and
 * `bench`, whose reads are measured. The others gain nothing and would pay a second start-up (a
 * few hundred milliseconds, doubling `--help`'s): `info`, `tree`, `zom`, `consolidate` and `refs`
 * read metadata; `view` serves files to a browser that does the reads; `cp` and `worker` read
 * every slab into one reused buffer, so they fault its pages in once, while huge pages would round
 * every thread's heap up to 2 MiB pages (about 60 MiB more peak RSS for the 256 MiB ETL copy of
 * issue 12, against a --memory budget).
 */
const WITH_RERUN = new Set(["get", "bench"]);

/**
 * The environment to run the command again with, or null to go on as it is: not Linux with a
 * recent enough glibc, GLIBC_TUNABLES already naming the hugetlb tunable (the re-run itself, or a
 * user's own choice), or PARZARR_HUGETLB=0.
 */
export function hugeTlbEnv(f: ReexecFacts): Record<string, string | undefined> | null {
  if (f.platform !== "linux" || f.glibc === undefined || f.env.PARZARR_HUGETLB === "0") return null;
  if (f.command !== undefined && !WITH_RERUN.has(f.command)) return null;
  const [major, minor] = f.glibc.split(".").map(Number);
  if (!(major > MIN_GLIBC[0] || (major === MIN_GLIBC[0] && minor >= MIN_GLIBC[1]))) return null;
  const current = f.env.GLIBC_TUNABLES ?? "";
  if (/(^|:)glibc\.malloc\.hugetlb=/.test(current)) return null;
  // Tunables are a colon-separated list: keep the user's and add ours.
  return { ...f.env, GLIBC_TUNABLES: current === "" ? "glibc.malloc.hugetlb=1" : `${current}:glibc.malloc.hugetlb=1` };
}

function glibcVersion(): string | undefined {
  const report = (process as { report?: { getReport(): unknown } }).report;
  const header = (report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return header?.glibcVersionRuntime;
}

/** Set in the re-run's environment, so that it knows its IPC channel is the parent's lifeline. */
const RERUN_MARK = "PARZARR_HUGETLB_RERUN";

/**
 * In the re-run: ends this process by SIGKILL as soon as the parent's channel closes, which is
 * when the parent died (it waits for the re-run to exit otherwise). Linux has no portable
 * PR_SET_PDEATHSIG in Node, and a SIGKILLed parent forwards nothing. The channel does not keep
 * this process alive. Returns whether this process is such a re-run.
 */
export function followParent(): boolean {
  if (process.env[RERUN_MARK] !== "1" || typeof process.send !== "function" || !process.channel) return false;
  // Not inherited by whatever this command spawns: those are not re-runs.
  delete process.env[RERUN_MARK];
  process.once("disconnect", () => {
    // The parent was killed outright; end the same way, with nothing half-finished reported done.
    process.kill(process.pid, "SIGKILL");
  });
  process.channel.unref();
  return true;
}

/** How the re-run ended: its exit code, or the signal that ended it. */
export type RerunEnd = { code: number; signal: null } | { code: null; signal: NodeJS.Signals };

/**
 * Runs this command again with huge pages when `hugeTlbEnv` says so, forwarding stdio and
 * signals, and resolves with how it ended; resolves null (having done nothing) otherwise.
 */
export async function reexecWithHugePages(debug: (line: string) => void): Promise<RerunEnd | null> {
  if (process.platform !== "linux") return null;
  const env = hugeTlbEnv({ platform: process.platform, glibc: glibcVersion(), env: process.env, command: process.argv[2] ?? "" });
  if (env === null) return null;
  debug(`parzarr: running again with GLIBC_TUNABLES=${env.GLIBC_TUNABLES} (set PARZARR_HUGETLB=0 to skip)`);
  // An IPC channel beside the inherited stdio: the kernel closes it when this process dies, even
  // by SIGKILL, which no handler here can see; the re-run takes the close as its cue to end too
  // (`followParent`), so a killed `parzarr worker` leaves no orphan holding jobs and connections.
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: ["inherit", "inherit", "inherit", "ipc"],
    env: { ...env, [RERUN_MARK]: "1" },
  });
  const forward = (signal: NodeJS.Signals) => () => void child.kill(signal);
  const handlers = (["SIGINT", "SIGTERM", "SIGHUP"] as const).map((s) => [s, forward(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      for (const [s, h] of handlers) process.off(s, h);
      resolve(signal !== null ? { code: null, signal } : { code: code ?? 1, signal: null });
    });
  });
}

/**
 * Ends this process as the re-run ended: with its exit code, or by the same signal (so that a
 * caller waiting on `parzarr` sees a killed command as killed, as without the re-run).
 */
export function endAsRerun(end: RerunEnd): number {
  if (end.signal !== null) {
    // With listeners (signal-exit, from proper-lockfile, keeps one) the signal would only be
    // queued for them while this process exits normally first; this process did nothing but
    // wait, so none of them has anything to clean up: the default action, at once.
    process.removeAllListeners(end.signal);
    process.kill(process.pid, end.signal);
    // A signal this process ignores or handles: the shell convention, 128 + its number.
    return 128 + (constants.signals[end.signal] ?? 0);
  }
  return end.code;
}
