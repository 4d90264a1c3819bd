/**
 * A node's metadata document as read from a store, with what parsing it needs loaded: the rare
 * data types' module (rare-types.ts), when the document names a type that dtype-names.ts alone
 * does not parse, is imported before the document is handed on, so that the synchronous parse
 * (parseV3, parseV2Array, consolidated metadata) finds it. The readers of node documents call
 * this from the async function that awaits the store, so a page reading plain numeric arrays
 * never loads it and one that opens a rare type waits for it there, once.
 */
import { onFirstUse } from "../first-use.js";
import { commonDataType, rareTypesLoaded } from "./dtype-names.js";
import { isJsonObject, parseJsonBytes } from "./json.js";

const loadRareTypes = onFirstUse(() => import("./rare-types.js"))(() => undefined);

/** The parsed document, or (the first time it names a rare type) a promise of it once rare-types.ts is loaded. */
export function metadataJson(bytes: Uint8Array, key: string): unknown {
  const doc = parseJsonBytes(bytes, key);
  const loading = key.endsWith(".zattrs") ? undefined : rareTypesReady(doc);
  return loading ? loading.then(() => doc) : doc;
}

/**
 * Loads rare-types.ts when `given` (a document, or options naming data types: createArray's,
 * openArray's `expect`) names a type it parses: undefined when there is nothing to wait for.
 */
export function rareTypesReady(given: unknown): Promise<void> | undefined {
  return rareTypesLoaded() || !namesRareType(given) ? undefined : Promise.resolve(loadRareTypes());
}

/** The keys whose values are data types: v3's and v2's, and the numcodecs filters' own. */
const TYPE_KEYS = new Set(["data_type", "dtype", "astype", "encode_dtype", "decode_dtype"]);

/**
 * Whether any data type in the document (codecs' and consolidated nodes' included; attributes
 * left out) is one commonDataType does not parse. An unknown or broken one counts: its error
 * comes from rare-types.ts, as it always did.
 */
function namesRareType(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(namesRareType);
  if (!isJsonObject(v)) return false;
  for (const [key, value] of Object.entries(v)) {
    // A node's attributes; but a node named so (consolidated metadata, a model's members) is a node document.
    if ((key === "attributes" || key.endsWith(".zattrs")) && !(isJsonObject(value) && typeof value.zarr_format === "number")) continue;
    if (TYPE_KEYS.has(key) && commonDataType(value) === null) return true;
    if (namesRareType(value)) return true;
  }
  return false;
}
