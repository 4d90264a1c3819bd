/**
 * parzarr's browser entry (package.json `exports` condition "browser"): the browser platform
 * (Web Worker pools, no Node built-ins anywhere in the module graph) and the portable API. Paths
 * have no meaning here: open arrays from URLs (FetchStore) or a store object.
 * @module parzarr/browser
 */
import "./platform/browser-install.js";

export * from "./api.js";
export { defaultWorkerUrl } from "../browser/default-worker.js";
export { OPFSStore, type OPFSStoreOptions } from "./stores/opfs.js";
