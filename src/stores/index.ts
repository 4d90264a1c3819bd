export * from "./types.js";
export { validateKey, validatePrefix, joinKey } from "./keys.js";
export { MemoryStore } from "./memory.js";
export { FileSystemStore } from "./filesystem.js";
export { FetchStore } from "./fetch.js";
export { resolveStore, storeFromDescriptor } from "./open.js";
