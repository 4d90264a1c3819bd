// A user's store module, as a user would write one (test/store-registry.test.ts): a folder store
// class whose descriptor() is plain data, and the function a worker calls with that descriptor.
// Plain JavaScript so that any worker imports it as it is. Every open, get and set appends
// "<what> <thread id> <key>" to the descriptor's log, so the test sees which thread did the I/O.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { threadId } from "node:worker_threads";

export class DirStore {
  constructor(root, log) {
    this.root = root;
    this.log = log;
    this.note("open", "");
  }

  descriptor() {
    return { kind: "test-dir", root: this.root, log: this.log };
  }

  note(what, key) {
    appendFileSync(this.log, `${what} ${threadId} ${key}\n`);
  }

  async get(key) {
    this.note("get", key);
    try {
      return new Uint8Array(readFileSync(join(this.root, key)));
    } catch (e) {
      if (e.code === "ENOENT") return undefined;
      throw e;
    }
  }

  async set(key, value) {
    this.note("set", key);
    const path = join(this.root, key);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, value);
  }
}

export default function openStore(descriptor) {
  return new DirStore(descriptor.root, descriptor.log);
}
