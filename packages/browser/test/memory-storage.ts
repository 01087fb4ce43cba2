/** A Storage over a Map; `failing` makes every call throw, as in a sandboxed iframe. */
export function memoryStorage(failing = false): Storage {
  const items = new Map<string, string>();
  const guard = () => {
    if (failing) throw new DOMException('blocked', 'SecurityError');
  };
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => {
      guard();
      return items.get(key) ?? null;
    },
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => {
      guard();
      items.delete(key);
    },
    setItem: (key, value) => {
      guard();
      items.set(key, String(value));
    },
  };
}
