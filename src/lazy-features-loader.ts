/**
 * The one loader of lazy-features.ts, shared by all its users (the write paths, fancy selections,
 * array creation, the conditional-writes probe, S3 requests, Reference reads, chunk writes): once
 * one of them has loaded the module the others call straight through, where a loader of their own
 * would each wait for the import once more. A module apart from first-use.ts, which every codec
 * imports: only these users reach lazy-features.ts.
 */
import { onFirstUse } from "./first-use.js";

export const lazyFeatures = onFirstUse(() => import("./lazy-features.js"));
