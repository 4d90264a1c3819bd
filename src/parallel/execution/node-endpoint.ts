/**
 * A Node worker thread (or its parentPort) as the Web-style message endpoint worker-rpc.ts speaks:
 * Node emits a message's data where the web dispatches an event carrying it.
 */
import type { Endpoint } from "./worker-rpc.js";

/** What a `Worker` and a `MessagePort` of node:worker_threads both offer. */
export interface NodeMessagePort {
  postMessage(message: unknown, transfer?: readonly Transferable[]): void;
  on(event: "message", listener: (data: unknown) => void): unknown;
  off(event: "message", listener: (data: unknown) => void): unknown;
}

export function nodeEndpoint(port: NodeMessagePort): Endpoint {
  // Each listener's wrapper, so that removing the listener removes what was added to the port.
  const wrappers = new Map<EventListenerOrEventListenerObject, (data: unknown) => void>();
  return {
    postMessage: (message, transfer) => port.postMessage(message, transfer),
    addEventListener(type, listener) {
      if (type !== "message" || wrappers.has(listener)) return;
      const wrapper = (data: unknown): void => {
        const event = { data } as MessageEvent;
        if (typeof listener === "function") listener(event);
        else listener.handleEvent(event);
      };
      wrappers.set(listener, wrapper);
      port.on("message", wrapper);
    },
    removeEventListener(type, listener) {
      const wrapper = wrappers.get(listener);
      if (type !== "message" || wrapper === undefined) return;
      wrappers.delete(listener);
      port.off("message", wrapper);
    },
  };
}
