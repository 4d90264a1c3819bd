import assert from "node:assert/strict";
import { ZarrError } from "../../src/index.js";

/** The ZarrError a promise rejects with; a fulfilment or another error fails the test, naming what came instead. */
export async function rejection(p: Promise<unknown>): Promise<ZarrError> {
  return p.then(
    (v) => assert.fail(`expected a rejection, got ${v instanceof Uint8Array ? `${v.length} bytes` : String(v)}`),
    (err: unknown) => {
      assert.ok(err instanceof ZarrError, `expected a ZarrError, got ${String(err)}`);
      return err;
    },
  );
}
