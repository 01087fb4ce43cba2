import type { Metrics } from '../ports/metrics.js';
import type { Store } from '../ports/store.js';

/**
 * Wraps a store so that every method it has (the port's, and any a store adds) reports its
 * name, duration and outcome to `metrics`. It knows no store: any implementation of the port,
 * present or future, is measured without a change to it. Everything but calling a method
 * (other properties, `instanceof`, private fields) reaches the store itself.
 */
export function instrumentStore<S extends Store>(store: S, metrics: Metrics): S {
  const wrappers = new Map<string, (...args: unknown[]) => unknown>();
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      let wrapper = wrappers.get(property);
      if (wrapper === undefined) {
        wrapper = timed(property, value as (...args: unknown[]) => unknown, target, metrics);
        wrappers.set(property, wrapper);
      }
      return wrapper;
    },
  });
}

function timed(
  operation: string,
  method: (...args: unknown[]) => unknown,
  target: Store,
  metrics: Metrics,
): (...args: unknown[]) => unknown {
  return (...args: unknown[]) => {
    const started = performance.now();
    let result: unknown;
    try {
      result = method.apply(target, args);
    } catch (error) {
      metrics.storeOperation(operation, performance.now() - started, 'error');
      throw error;
    }
    if (!(result instanceof Promise)) {
      metrics.storeOperation(operation, performance.now() - started, 'ok');
      return result;
    }
    return result.then(
      (value: unknown) => {
        metrics.storeOperation(operation, performance.now() - started, 'ok');
        return value;
      },
      (error: unknown) => {
        metrics.storeOperation(operation, performance.now() - started, 'error');
        throw error;
      },
    );
  };
}
