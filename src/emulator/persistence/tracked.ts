// Change tracking for `--state FILE`. Routes mutate records in place (`chat.status = 'closed'`),
// so a Map cannot see the change itself. Instead every record a state-changing request reaches
// through a collection (get, iteration, set, delete) is marked, and the journal writes the marked
// records as they are once the request is done, before its answer leaves. A route that changes a
// record must reach it through its collection, which every route does: records are found by id.

export interface ChangeSink {
  /** True while a state-changing request (not GET/HEAD) is being handled. */
  readonly watching: boolean;
  mark(collection: string, key: string): void;
}

export class TrackedMap<V> extends Map<string, V> {
  #sink: ChangeSink | undefined;
  #collection = '';

  static create<V>(collection: string, sink: ChangeSink): TrackedMap<V> {
    const map = new TrackedMap<V>();
    map.#collection = collection;
    map.#sink = sink;
    return map;
  }

  override set(key: string, value: V): this {
    super.set(key, value);
    this.#sink?.mark(this.#collection, key);
    return this;
  }

  override delete(key: string): boolean {
    const had = super.delete(key);
    if (had) this.#sink?.mark(this.#collection, key);
    return had;
  }

  override get(key: string): V | undefined {
    const value = super.get(key);
    if (value !== undefined && this.#sink?.watching) this.#sink.mark(this.#collection, key);
    return value;
  }

  override values(): MapIterator<V> {
    this.#markAll();
    return super.values();
  }

  override entries(): MapIterator<[string, V]> {
    this.#markAll();
    return super.entries();
  }

  override [Symbol.iterator](): MapIterator<[string, V]> {
    this.#markAll();
    return super[Symbol.iterator]();
  }

  override forEach(callback: (value: V, key: string, map: Map<string, V>) => void, thisArg?: unknown): void {
    this.#markAll();
    super.forEach(callback, thisArg);
  }

  #markAll(): void {
    if (!this.#sink?.watching) return;
    for (const key of super.keys()) this.#sink.mark(this.#collection, key);
  }
}
