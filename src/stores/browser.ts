/**
 * `parzarr/stores` in browsers (package.json's "browser" condition): the stores of every platform
 * and the OPFS store, on the browser platform (no Node built-ins in its graph). This is where a
 * page gets S3Store, ReferenceStore and the synchronous `resolveStore`, which the browser entry
 * leaves out so that a page that does not name them loads them only on demand (stores/routes.ts).
 * `parzarr/bundle/stores`, the prebuilt dist/browser/parzarr-stores.js, has these exports too.
 * @module parzarr/bundle/stores
 */
import "../platform/browser-install.js";
export * from "./portable.js";
export { OPFSStore, type OPFSStoreOptions } from "./opfs.js";
