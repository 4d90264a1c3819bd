/** The shape of one command: its name, full help text and handler (summaries live in main.ts). */

/** Where a command writes: injected so tests and the bench can capture output. */
export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
}

export interface Command {
  name: string;
  /** The text `--help` prints: usage line first, then options. */
  help: string;
  /** Parses its own arguments (printing help on `--help`) and returns the exit code. */
  run(argv: string[], io: CliIO): Promise<number>;
}

export function write(stream: CliIO["stdout"], text: string): void {
  stream.write(text.endsWith("\n") ? text : `${text}\n`);
}
