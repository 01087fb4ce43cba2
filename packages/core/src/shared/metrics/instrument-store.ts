import type { Metrics } from '../../ports/metrics.js';
import { composePort, type PortLayer } from '../../ports/store/assemble.js';
import type { Store } from '../../ports/store.js';

/**
 * The layer that reports each call of a method (any method the port has, and any a store adds)
 * with its name, duration and outcome to `metrics`. It knows no store: any implementation of
 * the port, present or future, is measured without a change to it.
 */
export function metricsLayer<Port>(metrics: Metrics): PortLayer<Port> {
  return { name: 'metrics', wrap: (name, method) => timed(name, method, metrics) };
}

/**
 * The store with every method timed ({@link metricsLayer}), composed around what the store
 * composed itself (its flush, its job wake-ups), so that the time measured is the caller's.
 * Everything that is not a method, its `capabilities` first, is carried over as it is.
 */
export function instrumentStore<S extends Store>(store: S, metrics: Metrics): S {
  return composePort(store, [metricsLayer<S>(metrics)]);
}

function timed<Method extends (...args: never[]) => unknown>(
  operation: string,
  method: Method,
  metrics: Metrics,
): Method {
  return ((...args: never[]) => {
    const started = performance.now();
    let result: unknown;
    try {
      result = method(...args);
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
  }) as Method;
}
