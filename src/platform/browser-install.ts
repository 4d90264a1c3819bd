/**
 * Importing this makes the browser platform this thread's (the browser entry and its worker do).
 * OPFS descriptors open in a thread once an OPFSStore made one there (and in workers, which add
 * the kind as they start), so that a page that never makes one never loads it.
 */
import { browserPlatform } from "./browser.js";
import { installPlatform } from "./current.js";

installPlatform(browserPlatform);
