/**
 * Snippets for README sections that are not in README.md yet (the lead pastes them): the tests
 * run them (test/zarrita-adapter.test.ts) and compile them under strict (test/typing.test.ts).
 */
/** README's parzarr/zarrita snippet, as the README section shows it. */
export const ZARRITA_README_SNIPPET = `import * as zarr from "zarrita";
import { get, set } from "parzarr/zarrita";

// Any array zarrita opens: over its FetchStore, a FileSystemStore, an Icechunk session's store, a Map.
const arr = await zarr.create(zarr.root(new Map()), { shape: [1024, 1024], chunkShape: [256, 256], dtype: "float32" });
// zarrita's selections and values; the chunks are encoded and decoded on parzarr's pool.
await set(arr, [zarr.slice(0, 512), null], 1.5, { threads: 2 });
const region = await get(arr, [zarr.slice(256, 768), zarr.slice(null, null, 4)], { threads: 2 });
console.log(region.shape, region.stride, region.data[0], region.data.at(-1)); // [ 512, 256 ] [ 256, 1 ] 1.5 0
`;
