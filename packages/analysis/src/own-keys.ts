/**
 * Records keyed by what clients send (trace ids, service, operation and host names, attribute
 * keys and values): `constructor`, `__proto__`, `toString`... are names like any other. A plain
 * object answers them from Object.prototype (a function where "none" was meant), and assigning
 * `__proto__` replaces the prototype instead of adding a key (issue 25). These two helpers are
 * the only way such records are read and made here.
 */

/** `record[key]` when it is the record's own entry, else undefined. O(1). */
export function ownEntry<V>(
  record: Readonly<Record<string, V>> | undefined,
  key: string,
): V | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * An empty record without a prototype: `out[key] = v` adds an own entry for every key,
 * `__proto__` included. JSON and structured clone carry such entries as own properties.
 */
export function emptyRecord<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}
