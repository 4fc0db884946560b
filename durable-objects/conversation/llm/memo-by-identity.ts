/**
 * `make(key)`, made once per key object and kept while the key lives. Only for values that are
 * never mutated: a changed key would still get what was made from it before.
 */
export function memoByIdentity<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => {
    if (made.has(key)) return made.get(key)!;
    const value = make(key);
    made.set(key, value);
    return value;
  };
}
