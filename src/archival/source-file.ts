/** Opening an archival source file for reading; a failure names the file (SOURCE_FILE). */
import { openSync } from "node:fs";
import { SourceFileError } from "../errors.js";

export function openSourceFile(path: string): number {
  try {
    return openSync(path, "r");
  } catch (err) {
    throw new SourceFileError(`${path}: cannot open it: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}
