// Source-tree entry for the comlink worker under Node (see node-worker.dev.mjs for why).
import { register } from "tsx/esm/api";

register();
await import("./comlink-node-worker.ts");
