/**
 * Another process that writes a whole int8 array (run as `node --import tsx shard-writer.ts ROOT
 * VALUES_JSON`): a writer the reading process knows nothing about, for shard-index-cache tests.
 */
import { openArray } from "../../src/index.js";

const [root, valuesJson] = process.argv.slice(2);
const values = JSON.parse(valuesJson!) as number[];
const a = await openArray(root!, { mode: "r+" });
await a.set(null, { data: Int8Array.from(values), shape: [values.length] });
