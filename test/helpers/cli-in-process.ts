/** Runs the `parzarr` command in this process (no child, no re-run for huge pages), capturing its output. */
import { main } from "../../src/cli/main.js";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function cliInProcess(args: string[]): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const sink = (add: (t: string) => void) => ({ write: (t: string | Uint8Array) => (add(String(t)), true) }) as unknown as NodeJS.WritableStream;
  const code = await main(args, { stdout: sink((t) => (stdout += t)), stderr: sink((t) => (stderr += t)), env: {} });
  return { code, stdout, stderr };
}
