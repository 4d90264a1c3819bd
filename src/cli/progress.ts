/**
 * Progress of a long copy: on a terminal, one line redrawn in place (a bar, chunks, bytes, rate,
 * time left); otherwise plain lines at most once a second, so logs stay readable.
 */
import { formatBytes, formatDuration } from "./format.js";

export interface ProgressSink {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export class Progress {
  private readonly started = Date.now();
  private lastDraw = 0;
  private chunks = 0;
  private bytes = 0;
  /** Bytes done before this run (a resumed copy), left out of the rate. */
  private readonly baseBytes: number;

  constructor(
    private readonly sink: ProgressSink,
    private readonly totalChunks: number,
    private readonly totalBytes: number,
    done: { chunks: number; bytes: number },
    private readonly enabled: boolean,
    private readonly plainIntervalMs = 1000,
  ) {
    this.chunks = done.chunks;
    this.bytes = done.bytes;
    this.baseBytes = done.bytes;
  }

  private get tty(): boolean {
    return this.sink.isTTY === true;
  }

  update(chunks: number, bytes: number): void {
    this.chunks = chunks;
    this.bytes = bytes;
    const now = Date.now();
    if (now - this.lastDraw < (this.tty ? 100 : this.plainIntervalMs)) return;
    this.lastDraw = now;
    this.draw(false);
  }

  finish(): void {
    this.draw(true);
  }

  private line(): { pct: string; text: string } {
    const elapsed = (Date.now() - this.started) / 1000;
    const rate = elapsed > 0 ? (this.bytes - this.baseBytes) / elapsed : 0;
    const left = rate > 0 ? (this.totalBytes - this.bytes) / rate : Infinity;
    const pct = this.totalBytes > 0 ? (100 * this.bytes) / this.totalBytes : 100;
    return {
      pct: `${pct.toFixed(0).padStart(3)}%`,
      text:
        `${this.chunks}/${this.totalChunks} chunks  ${formatBytes(this.bytes)}/${formatBytes(this.totalBytes)}  ` +
        `${formatBytes(Math.round(rate))}/s  ${formatDuration(elapsed)} elapsed, ${formatDuration(left)} left`,
    };
  }

  private draw(final: boolean): void {
    if (!this.enabled) return;
    const { pct, text } = this.line();
    if (this.tty) {
      const width = Math.max(10, Math.min(30, (this.sink.columns ?? 80) - text.length - 10));
      const filled = this.totalBytes > 0 ? Math.round((width * this.bytes) / this.totalBytes) : width;
      const bar = "█".repeat(filled) + "░".repeat(width - filled);
      // \r back to the start, \x1b[K clears what a longer previous line left.
      this.sink.write(`\r${bar} ${pct} ${text}\x1b[K${final ? "\n" : ""}`);
    } else {
      this.sink.write(`cp: ${final ? "done" : "progress"} ${pct.trim()} ${text}\n`);
    }
  }
}
