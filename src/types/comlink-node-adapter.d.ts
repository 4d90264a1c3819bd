// comlink ships its Node adapter as dist/esm/node-adapter.mjs with a .d.ts that TypeScript's
// NodeNext resolution does not pair with a .mjs file; this restates its one export.
declare module "comlink/dist/esm/node-adapter.mjs" {
  import type { Endpoint } from "comlink";
  export interface NodeEndpoint {
    postMessage(message: unknown, transfer?: readonly unknown[]): void;
    on(type: string, listener: (value: unknown) => void): void;
    off(type: string, listener: (value: unknown) => void): void;
    start?: () => void;
  }
  export default function nodeEndpoint(nep: NodeEndpoint): Endpoint;
}
