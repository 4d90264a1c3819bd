/**
 * The Web Worker entry, built by tools/build-browser.ts into one self-contained ES module
 * (`parzarr/worker`, dist/browser/parzarr-worker.js): browser platform, comlink on the worker scope.
 * Nothing in its graph may import a Node built-in (test/browser-bundle.test.ts checks).
 * @module parzarr/worker
 */
import { expose } from "comlink";
import "../src/platform/browser-install.js";
import { workerApi } from "./worker-api.js";

expose(workerApi);
