/** An object that stands for a Web object it builds only when asked: see {@link delegateToFull}. */
export interface LazyWebObject<Full> {
  /** The full Web object, built once. */
  full(): Full;
}

/**
 * Makes `lazy` (a class's prototype) stand for instances of `web` (e.g. `Request.prototype`): its
 * prototype becomes `web`, so `instanceof` holds, and every member of `web` that `lazy` does not
 * define itself answers from the full object its `full()` builds, so the object behaves as the
 * real one wherever something asks for more than the class answers cheaply.
 */
export function delegateToFull(lazy: object, web: object): void {
  Object.setPrototypeOf(lazy, web);
  for (const name of Object.getOwnPropertyNames(web)) {
    if (name === 'constructor' || Object.hasOwn(lazy, name)) continue;
    const descriptor = Object.getOwnPropertyDescriptor(web, name);
    if (typeof descriptor?.value === 'function') {
      Object.defineProperty(lazy, name, {
        value(this: LazyWebObject<Record<string, (...args: unknown[]) => unknown>>, ...args: unknown[]) {
          return this.full()[name]!(...args);
        },
      });
    } else if (descriptor?.get) {
      Object.defineProperty(lazy, name, {
        get(this: LazyWebObject<Record<string, unknown>>) {
          return this.full()[name];
        },
      });
    }
  }
}
