/**
 * Importing this makes the browser platform this thread's (the browser entry and its worker do),
 * and lets descriptors of the browser's own store, OPFS, open here.
 */
import { browserPlatform } from "./browser.js";
import { installPlatform } from "./current.js";
import { addStoreKind } from "../stores/open.js";
import { OPFSStore } from "../stores/opfs.js";

installPlatform(browserPlatform);

addStoreKind("opfs", { open: (d) => new OPFSStore(d.root, { readOnly: d.readOnly }), workerCanOpen: () => true });
