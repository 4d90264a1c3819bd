// A user's store module for test/browser.test.ts: a read-only store over HTTP, keyed zarrita-style
// ("/zarr.json"), whose descriptor is its URL. The page registers its kind with this module's URL;
// each Web Worker imports the module and opens the store itself. `gets` counts this object's reads.
export class HttpStore {
  constructor(url) {
    this.url = url;
    this.gets = [];
  }

  descriptor() {
    return { kind: "test-http", url: this.url };
  }

  async get(key) {
    this.gets.push(key);
    const r = await fetch(this.url + key);
    if (r.status === 404) return undefined;
    if (!r.ok) throw new Error(`HTTP ${r.status} for ${key}`);
    return new Uint8Array(await r.arrayBuffer());
  }
}

export default (descriptor) => new HttpStore(descriptor.url);
