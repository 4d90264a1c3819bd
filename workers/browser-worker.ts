/**
 * The Web Worker entry, built by tools/build-browser.ts into one self-contained ES module
 * (`parzarr/worker`, dist/browser/parzarr-worker.js): browser platform, the worker
 * API served on the worker scope (src/parallel/execution/worker-rpc.ts).
 * Nothing in its graph may import a Node built-in (test/browser-bundle.test.ts checks).
 * @module parzarr/worker
 */
import "../src/platform/browser-install.js";
import { addStoreKind } from "../src/stores/kinds.js";
import { OPFS_KIND } from "../src/stores/opfs.js";
import { REFERENCE_KIND } from "../src/stores/reference.js";
import { S3_KIND } from "../src/stores/s3.js";
import { serveWorkerApi, type Endpoint } from "../src/parallel/execution/worker-rpc.js";
import { workerApi } from "./worker-api.js";

// The page adds these kinds when it first makes such a store; a worker only has descriptors.
addStoreKind("s3", S3_KIND);
addStoreKind("reference", REFERENCE_KIND);
addStoreKind("opfs", OPFS_KIND);
// The project compiles against the DOM library, where `self` is a Window; here it is the worker scope.
serveWorkerApi(self as unknown as Endpoint, workerApi);
