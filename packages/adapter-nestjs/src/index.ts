import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type BeforeApplicationShutdown,
  type DynamicModule,
  Inject,
  type InjectionToken,
  type MiddlewareConsumer,
  Module,
  type ModuleMetadata,
  type NestModule,
  RequestMethod,
} from '@nestjs/common';
import type { Tidings } from '@tidings/core';
import { type BridgedIncomingMessage, serveNode } from '@tidings/core/node';

/** The injection token of the Tidings instance: `@Inject(TIDINGS) tidings: Tidings`. */
export const TIDINGS = Symbol.for('@tidings/nestjs:tidings');
/** The injection token of the module's resolved options. */
const OPTIONS = Symbol.for('@tidings/nestjs:options');

/** Options of {@link TidingsModule.forRoot}. */
export interface TidingsModuleOptions {
  /** The instance `createTidings()` returned, which the module serves and provides as {@link TIDINGS}. */
  tidings: Tidings;
  /** The path Tidings answers under (`/notify` for `/notify/v1/*`), the app's global prefix included. @default '' */
  basePath?: string;
  /**
   * The client's socket address, which the core uses for per-IP limits (and to which it applies
   * its own `trustProxy`). @default `req.socket.remoteAddress`
   */
  getClientAddress?: (req: IncomingMessage) => string | undefined;
  /**
   * Call `tidings.close()` as the app shuts down (`beforeApplicationShutdown`, before the HTTP
   * server closes): it ends the open event streams, which the server would otherwise wait for.
   * @default true
   */
  closeTidings?: boolean;
}

/** Options of {@link TidingsModule.forRootAsync}: the options made by a factory, with providers injected. */
export interface TidingsModuleAsyncOptions {
  /** Modules whose providers the factory injects. */
  imports?: ModuleMetadata['imports'];
  /** The providers handed to `useFactory`, in order. */
  inject?: InjectionToken[];
  useFactory: (...args: never[]) => TidingsModuleOptions | Promise<TidingsModuleOptions>;
}

/** The next middleware, as Express and Nest's Fastify platform (middie) call it. */
type Next = (error?: unknown) => void;

/**
 * A global module that serves Tidings' routes on the app's HTTP server (Express or Fastify
 * platform) through `@tidings/core/node`'s bridge, as the Express adapter does, and provides the
 * instance as {@link TIDINGS} for sends in process.
 *
 * ```ts
 * @Module({ imports: [TidingsModule.forRoot({ tidings, basePath: '/notify' })] })
 * export class AppModule {}
 * ```
 */
export class TidingsModule implements NestModule, BeforeApplicationShutdown {
  constructor(private readonly options: TidingsModuleOptions) {}

  /** The module with options known now. */
  static forRoot(options: TidingsModuleOptions): DynamicModule {
    return TidingsModule.dynamic([{ provide: OPTIONS, useValue: checked(options) }]);
  }

  /** The module with options made by a factory (a store on a pool the app's config names). */
  static forRootAsync(options: TidingsModuleAsyncOptions): DynamicModule {
    const provider = {
      provide: OPTIONS,
      inject: options.inject ?? [],
      useFactory: async (...args: never[]) => checked(await options.useFactory(...args)),
    };
    return { ...TidingsModule.dynamic([provider]), imports: options.imports ?? [] };
  }

  private static dynamic(providers: NonNullable<ModuleMetadata['providers']>): DynamicModule {
    return {
      module: TidingsModule,
      global: true,
      providers: [
        ...providers,
        { provide: TIDINGS, inject: [OPTIONS], useFactory: (options: TidingsModuleOptions) => options.tidings },
      ],
      exports: [TIDINGS],
    };
  }

  /** Serves every request under the base path that Tidings answers; passes the others on. */
  configure(consumer: MiddlewareConsumer): void {
    const { tidings } = this.options;
    const basePath = trimSlashes(this.options.basePath ?? '');
    const getClientAddress = this.options.getClientAddress ?? ((req: IncomingMessage) => req.socket.remoteAddress);
    const serve = (req: BridgedIncomingMessage, res: ServerResponse, next: Next) => {
      const path = pathOf(req.originalUrl ?? req.url ?? '/');
      const rest = path.startsWith(`${basePath}/`) ? path.slice(basePath.length) : null;
      if (rest === null || !tidings.handles(rest)) return next();
      try {
        serveNode(tidings, req, res, { basePath, clientAddress: getClientAddress(req) }).catch(next);
      } catch (error) {
        next(error);
      }
    };
    consumer.apply(serve).forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }

  /** Closes Tidings before the HTTP server closes, unless told not to. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.options.closeTidings !== false) await this.options.tidings.close();
  }
}
// Without decorator syntax, so that the package builds with any compiler settings.
Inject(OPTIONS)(TidingsModule, undefined, 0);
Module({})(TidingsModule);

function checked(options: TidingsModuleOptions): TidingsModuleOptions {
  if (typeof options?.tidings?.fetch !== 'function' || typeof options.tidings.handles !== 'function') {
    throw new TypeError('TidingsModule: `tidings` must be the instance createTidings() returned');
  }
  return options;
}

/** The path of a request's URL, without its query. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** `''` or `/a/b`: a leading slash, no trailing one, so that paths join by concatenation. */
function trimSlashes(path: string): string {
  const inner = path.replace(/^\/+|\/+$/g, '');
  return inner === '' ? '' : `/${inner}`;
}
