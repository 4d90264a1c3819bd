/**
 * `parzarr/stores` on Node: every store, the Node-only ones included. It stands on the Node
 * platform, which also lets paths and the file-system and zip descriptors resolve.
 * @module parzarr/stores
 */
import "../platform/node.js";
export * from "./portable.js";
export { FileSystemStore } from "./filesystem.js";
export { ZipStore, type ZipMode, type ZipStoreOptions } from "./zip.js";
