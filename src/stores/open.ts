/**
 * Turning what a user passes (a path, a URL, a store) into a store at once; stores/kinds.ts turns
 * a task's descriptor into one. It holds the S3 and reference store classes, so the browser entry
 * does not export it (its entry points resolve through stores/routes.ts): it comes from the Node
 * entry and from `parzarr/stores`.
 */
import { S3Store } from "./s3.js";
import { ReferenceStore } from "./reference.js";
import type { Store } from "./types.js";
import { asStore, type UserStore } from "./caller.js";
import { routeStore } from "./routes.js";

/** The store a path, URL or store object names, by the rule of stores/routes.ts (routeStore). */
export function resolveStore(input: string | URL | Store | UserStore, options: { readOnly?: boolean } = {}): Store {
  return routeStore(input, options, (route) => (route.kind === "s3" ? new S3Store(route.url, { readOnly: route.readOnly }) : ReferenceStore.at(route.url)), asStore);
}
