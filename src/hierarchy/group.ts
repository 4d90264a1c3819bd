/** Group: a handle on one group, with its children created, opened and listed by name. */
import { NotFoundError, ReadOnlyError } from "../errors.js";
import type { JsonObject } from "../metadata/json.js";
import { isWritable, type Store } from "../stores/types.js";
import type { ZarrArray } from "./array.js";
import type { NodeMetadata } from "../metadata/array-metadata.js";
import type { CreateArrayOptions } from "./create-options.js";
import { describePath, normalisePath, readNode, writeGroupMetadata } from "./node-io.js";
import { createArrayAt, createGroupAt, nodeFromMetadata, type NodeOpenOptions } from "./nodes.js";

export class Group {
  /** @internal use openGroup/createGroup. */
  constructor(
    readonly store: Store,
    readonly path: string,
    private attributes: JsonObject,
    readonly zarrFormat: 2 | 3,
    private readonly options: NodeOpenOptions,
  ) {}

  get attrs(): JsonObject {
    return structuredClone(this.attributes);
  }
  get readOnly(): boolean {
    return this.options.readOnly;
  }
  get name(): string {
    return this.path === "" ? "/" : `/${this.path}`;
  }

  private childPath(name: string): string {
    const rel = normalisePath(name);
    return this.path === "" ? rel : rel === "" ? this.path : `${this.path}/${rel}`;
  }

  private writableStore() {
    if (this.options.readOnly || !isWritable(this.store)) {
      throw new ReadOnlyError(`group ${describePath(this.path)} is open read-only`);
    }
    // Metadata is about to change under the consolidated document: stop trusting it.
    if (this.options.consolidated) this.options.consolidated.stale = true;
    return this.store;
  }

  /** Whether this handle answers from consolidated metadata (one read opened the hierarchy). */
  get consolidated(): boolean {
    return this.options.consolidated?.covers(this.path) ?? false;
  }

  private async lookup(path: string): Promise<NodeMetadata | undefined> {
    const view = this.options.consolidated;
    return view?.covers(path) ? view.node(path) : readNode(this.store, path);
  }

  async setAttrs(attributes: JsonObject): Promise<void> {
    const store = this.writableStore();
    await writeGroupMetadata(store, this.path, { zarrFormat: this.zarrFormat, attributes });
    this.attributes = structuredClone(attributes);
  }

  async updateAttrs(update: JsonObject): Promise<void> {
    await this.setAttrs({ ...this.attributes, ...update });
  }

  /** Creates an array below this group (of this group's Zarr format unless told otherwise). */
  async createArray(name: string, options: CreateArrayOptions): Promise<ZarrArray> {
    this.writableStore();
    return createArrayAt(this.store, this.childPath(name), { zarrFormat: this.zarrFormat, ...options }, this.options);
  }

  async createGroup(name: string, options: { attributes?: JsonObject; overwrite?: boolean } = {}): Promise<Group> {
    this.writableStore();
    return createGroupAt(this.store, this.childPath(name), { zarrFormat: this.zarrFormat, ...options }, this.options);
  }

  /** The array or group at a relative path such as `"a/b"`. */
  async get(name: string): Promise<ZarrArray | Group> {
    const path = this.childPath(name);
    const meta = await this.lookup(path);
    if (!meta) throw new NotFoundError(`no array or group at ${describePath(path)}`);
    return nodeFromMetadata(this.store, path, meta, this.options);
  }

  async contains(name: string): Promise<boolean> {
    return (await this.lookup(this.childPath(name))) !== undefined;
  }

  /**
   * The direct children, sorted by name. Needs a store that can list (not plain HTTP), unless
   * the group was opened through consolidated metadata, which lists them without the store.
   */
  async members(): Promise<[string, ZarrArray | Group][]> {
    const out: [string, ZarrArray | Group][] = [];
    for (const name of await this.memberNames()) {
      const path = this.childPath(name);
      const meta = await this.lookup(path);
      if (meta) out.push([name, nodeFromMetadata(this.store, path, meta, this.options)]);
    }
    return out;
  }

  /**
   * The names that may be direct children, sorted, without opening them (so one unreadable child
   * does not hide the others): from consolidated metadata, else the store's sub-folders (some may
   * hold no node; `get` says NOT_FOUND for those). Needs a listable store unless consolidated.
   */
  async memberNames(): Promise<string[]> {
    const view = this.options.consolidated;
    const names = view?.covers(this.path)
      ? view.children(this.path)
      : (await this.store.listDir(this.path === "" ? "" : `${this.path}/`)).prefixes;
    return [...names].sort();
  }

  async arrays(): Promise<[string, ZarrArray][]> {
    return (await this.members()).filter((m): m is [string, ZarrArray] => !(m[1] instanceof Group));
  }

  async groups(): Promise<[string, Group][]> {
    return (await this.members()).filter((m): m is [string, Group] => m[1] instanceof Group);
  }

  toString(): string {
    return `<Group ${this.name} v${this.zarrFormat}>`;
  }
}
