/** Group: a handle on one group, with its children created, opened and listed by name. */
import { AlreadyExistsError, NodeTypeError, NotFoundError, ReadOnlyError, ZarrError } from "../errors.js";
import type { JsonObject } from "../metadata/json.js";
import { isWritable, type Store, type WritableStore } from "../stores/types.js";
import type { ZarrArray } from "./array.js";
import type { GroupMetadata, NodeMetadata, NodeType } from "../metadata/array-metadata.js";
import type { CreateArrayOptions } from "./create-options.js";
import { deleteNode, describePath, nodeLocation, normalisePath, parentPaths, readNode, readNodeType } from "./node-io.js";
import { parseDataType } from "../metadata/dtype-names.js";
import { groupInfo, type GroupInfo } from "./info.js";
import { nodeKey } from "../metadata/chunk-key.js";
import { tuple } from "../format.js";
import { rareTypesReady } from "../metadata/metadata-json.js";
import { lazyFeatures } from "../lazy-features-loader.js";
// Types only: nodes.ts imports this module, and passes each Group the ChildNodes it makes children with.
import type { ChildNodes, NodeOpenOptions } from "./nodes.js";

/** Writing a group's document (node-writes.ts, with the JSON serialiser), loaded with the first attribute or layout write. */
const writeGroupMetadata = lazyFeatures((m, store: WritableStore, path: string, meta: GroupMetadata) => m.writeGroupMetadata(store, path, meta));

/**
 * A child that `members()` lists but parzarr cannot open (a codec or data type it lacks, broken
 * metadata): `error` is what opening it throws, as `group.get(name)` does.
 */
export class UnopenableNode {
  constructor(
    /** The child's path in the store. */
    readonly path: string,
    /** Whether its metadata says array or group. */
    readonly nodeType: NodeType,
    /** What opening it throws. */
    readonly error: ZarrError,
  ) {}
}

/** A group: a node holding arrays and other groups, with attributes. Open one with openGroup. */
export class Group {
  /** @hidden use openGroup/createGroup (hidden from the reference only: the .d.ts keeps its signature). */
  constructor(
    /** The store holding the group. */
    readonly store: Store,
    /** Its path in the store ("" for the root). */
    readonly path: string,
    private attributes: JsonObject,
    /** The Zarr format version. */
    readonly zarrFormat: 2 | 3,
    private readonly options: NodeOpenOptions,
    private readonly nodes: ChildNodes,
  ) {}

  /** The user attributes (a copy: change them with setAttrs/updateAttrs). */
  get attrs(): JsonObject {
    return structuredClone(this.attributes);
  }
  /** Whether writes are refused (mode "r", or a read-only store). */
  get readOnly(): boolean {
    return this.options.readOnly;
  }
  /** The path with a leading "/", as zarr-python names nodes. */
  get name(): string {
    return this.path === "" ? "/" : `/${this.path}`;
  }

  private childPath(name: string): string {
    const rel = normalisePath(name);
    return this.path === "" ? rel : rel === "" ? this.path : `${this.path}/${rel}`;
  }

  private writableStore() {
    if (this.options.readOnly || !isWritable(this.store)) {
      throw new ReadOnlyError(`group ${nodeLocation(this.store, this.path)} is open read-only`);
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

  /** Replaces the attributes (under the lock of the group's metadata document). */
  async setAttrs(attributes: JsonObject): Promise<void> {
    const attrs = structuredClone(attributes);
    await this.rewriteAttrs(() => attrs);
  }

  /** Merges keys into the attributes stored now, as zarr-python does (another writer may have set some). */
  async updateAttrs(update: JsonObject): Promise<void> {
    const add = structuredClone(update);
    await this.rewriteAttrs((stored) => ({ ...stored, ...add }));
  }

  /** Writes the attributes `change` makes of the stored ones, under the lock of the group's document. */
  private async rewriteAttrs(change: (stored: JsonObject) => JsonObject): Promise<void> {
    const store = this.writableStore();
    const key = nodeKey(this.path, this.zarrFormat === 3 ? "zarr.json" : ".zgroup");
    const rewrite = async (): Promise<void> => {
      const stored = await readNode(store, this.path, this.zarrFormat);
      const attributes = change(stored?.nodeType === "group" ? stored.attributes : this.attributes);
      await writeGroupMetadata(store, this.path, { zarrFormat: this.zarrFormat, attributes });
      this.attributes = attributes;
    };
    // The locks (lock-table.ts) load with the first write: a page that only reads holds none.
    const sync = this.options.synchronizer?.descriptor();
    await lazyFeatures((m) => m.withChunkLock(m.chunkLockRef(m.lockScopeOf(store.descriptor()), sync), key, rewrite))();
  }

  /** Creates an array below this group (of this group's Zarr format unless told otherwise). */
  async createArray(name: string, options: CreateArrayOptions): Promise<ZarrArray> {
    this.writableStore();
    return this.nodes.createArray(this.store, this.childPath(name), { zarrFormat: this.zarrFormat, ...options }, this.options);
  }

  /** Creates a group below this one, of this group's Zarr format; `overwrite` replaces what is there. */
  async createGroup(name: string, options: { attributes?: JsonObject; overwrite?: boolean } = {}): Promise<Group> {
    this.writableStore();
    return this.nodes.createGroup(this.store, this.childPath(name), { zarrFormat: this.zarrFormat, ...options }, this.options);
  }

  /** The array or group at a relative path such as `"a/b"`. */
  async get(name: string): Promise<ZarrArray | Group> {
    const path = this.childPath(name);
    const meta = await this.lookup(path);
    if (!meta) throw new NotFoundError(`no array or group at ${describePath(path)}`);
    return this.nodes.open(this.store, path, meta, this.options);
  }

  /** Whether a node exists at the relative path. */
  async contains(name: string): Promise<boolean> {
    return (await this.lookup(this.childPath(name))) !== undefined;
  }

  /** Whether the node at `path` is an array or a group, from its node type alone (see readNodeType). */
  private async nodeTypeAt(path: string): Promise<NodeType | undefined> {
    const view = this.options.consolidated;
    return view?.covers(path) ? view.nodeType(path) : readNodeType(this.store, path);
  }

  /**
   * The direct children, sorted by name, opened; one that cannot be opened is listed as an
   * UnopenableNode holding its error, so it hides none of the others. Needs a store that can
   * list (not plain HTTP), unless the group was opened through consolidated metadata.
   */
  async members(): Promise<[string, ZarrArray | Group | UnopenableNode][]> {
    const out: [string, ZarrArray | Group | UnopenableNode][] = [];
    for (const name of await this.memberNames()) {
      const path = this.childPath(name);
      try {
        const meta = await this.lookup(path);
        if (meta) out.push([name, this.nodes.open(this.store, path, meta, this.options)]);
      } catch (err) {
        if (!(err instanceof ZarrError) || err instanceof NotFoundError) throw err;
        const nodeType = await this.nodeTypeAt(path);
        if (nodeType) out.push([name, new UnopenableNode(path, nodeType, err)]);
      }
    }
    return out;
  }

  /** The names of the children of one node type, sorted, without opening them. */
  private async keysOf(nodeType: NodeType): Promise<string[]> {
    const names: string[] = [];
    for (const name of await this.memberNames()) {
      if ((await this.nodeTypeAt(this.childPath(name))) === nodeType) names.push(name);
    }
    return names;
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

  /** The child arrays that open (members() lists the others too). */
  async arrays(): Promise<[string, ZarrArray][]> {
    return (await this.members()).filter((m): m is [string, ZarrArray] => !(m[1] instanceof Group || m[1] instanceof UnopenableNode));
  }

  /** The child groups that open, with their names. */
  async groups(): Promise<[string, Group][]> {
    return (await this.members()).filter((m): m is [string, Group] => m[1] instanceof Group);
  }

  /** What zarr-python's group `.info` reports: store, direct members (`formatInfo` prints it). */
  async info(): Promise<GroupInfo> {
    const members = await this.members();
    return groupInfo(this, members.map(([name, n]) => [name, n instanceof UnopenableNode ? n.nodeType : n instanceof Group ? "group" : "array"]));
  }

  /** The names of the child arrays, sorted (zarr-python's `array_keys`), openable or not. */
  async arrayKeys(): Promise<string[]> {
    return this.keysOf("array");
  }

  /** The names of the child groups, sorted (zarr-python's `group_keys`), openable or not. */
  async groupKeys(): Promise<string[]> {
    return this.keysOf("group");
  }

  /**
   * The hierarchy below this group as zarr-python 2's `tree()` prints it: the group's name ("/"
   * for the root), then each member on its own line with unicode rails, arrays with their shape
   * as a Python tuple and their data type.
   */
  async tree(): Promise<string> {
    const lines = [this.path === "" ? "/" : this.path.slice(this.path.lastIndexOf("/") + 1)];
    const visit = async (group: Group, rails: string): Promise<void> => {
      const members = await group.members();
      for (const [i, [name, node]] of members.entries()) {
        const last = i === members.length - 1;
        const what = node instanceof UnopenableNode ? ` (${node.error.code})` : node instanceof Group ? "" : ` ${tuple(node.shape)} ${node.dtype}`;
        lines.push(`${rails}${last ? " └── " : " ├── "}${name}${what}`);
        if (node instanceof Group) await visit(node, rails + (last ? "    " : " │  "));
      }
    };
    await visit(this, "");
    return lines.join("\n");
  }

  /** The group at `name`, created (with its ancestors) when missing (zarr-python's `require_group`). */
  async requireGroup(name: string, options: { attributes?: JsonObject } = {}): Promise<Group> {
    const path = this.childPath(name);
    const meta = await this.lookup(path);
    if (meta?.nodeType === "group") return this.nodes.open(this.store, path, meta, this.options) as Group;
    if (meta) throw new NodeTypeError(`${describePath(path)} is an array, not a group`);
    return this.createGroup(name, options);
  }

  /**
   * The array at `name` when it has the asked shape and data type (zarr-python's
   * `require_dataset`, exact types), else ALREADY_EXISTS saying what differs; created when missing.
   */
  async requireArray(name: string, options: CreateArrayOptions): Promise<ZarrArray> {
    const path = this.childPath(name);
    const meta = await this.lookup(path);
    if (!meta) return this.createArray(name, options);
    if (meta.nodeType !== "array") throw new NodeTypeError(`${describePath(path)} is a group, not an array`);
    const arr = this.nodes.open(this.store, path, meta, this.options) as ZarrArray;
    await rareTypesReady(options);
    const wanted = parseDataType(options.dtype, "requireArray: dtype");
    const differences: string[] = [];
    if (arr.shape.length !== options.shape.length || arr.shape.some((n, d) => n !== options.shape[d])) {
      differences.push(`shape [${arr.shape}] (asked [${options.shape}])`);
    }
    if (JSON.stringify(wanted) !== JSON.stringify(arr.dataType)) differences.push(`data type ${arr.dtype} (asked ${wanted.name})`);
    if (differences.length) throw new AlreadyExistsError(`${describePath(path)} exists with ${differences.join(" and ")}`);
    return arr;
  }

  /**
   * Moves the member at `source` to `dest` (both relative to this group), as zarr-python's
   * `move`: every key is copied, then the source is deleted, so a failure part-way leaves the
   * source whole. `dest` must not exist; its missing ancestors become groups.
   */
  async move(source: string, dest: string): Promise<void> {
    const store = this.writableStore();
    const from = this.childPath(source);
    const to = this.childPath(dest);
    if (from === this.path || to === this.path) throw new NodeTypeError("move: the group itself cannot be moved");
    if (!(await this.lookup(from))) throw new NotFoundError(`move: nothing at ${describePath(from)}`);
    if (await readNode(store, to)) throw new AlreadyExistsError(`move: ${describePath(to)} already exists`);
    if (to.startsWith(`${from}/`)) throw new NodeTypeError(`move: ${describePath(to)} lies inside ${describePath(from)}`);
    for (const parent of parentPaths(to)) {
      if (parent.length <= this.path.length) continue;
      const node = await readNode(store, parent);
      if (node?.nodeType === "array") throw new NodeTypeError(`move: ${describePath(parent)} is an array`);
      if (!node) await writeGroupMetadata(store, parent, { zarrFormat: this.zarrFormat, attributes: {} });
    }
    const keys = await store.list(`${from}/`);
    for (const key of keys) {
      const bytes = await store.get(key);
      if (bytes != null) await store.set(`${to}/${key.slice(from.length + 1)}`, bytes);
    }
    await deleteNode(store, from);
  }

  /** Deletes the member at `name` and everything below it (zarr-python's `del group[name]`). */
  async delete(name: string): Promise<void> {
    const store = this.writableStore();
    const path = this.childPath(name);
    if (path === this.path) throw new NodeTypeError("delete: a group cannot delete itself");
    if (!(await this.lookup(path))) throw new NotFoundError(`delete: nothing at ${describePath(path)}`);
    await deleteNode(store, path);
  }

  /** `<Group /a v3>`. */
  toString(): string {
    return `<Group ${this.name} v${this.zarrFormat}>`;
  }
}
