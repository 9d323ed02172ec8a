import type { MethodTable } from './methods.js';
import { type Middleware, withMiddleware } from './middleware.js';

/**
 * A server's method tables in both eras: as registered, and as served, which is the same tables while no
 * middleware is registered (a request pays nothing for it then), else each handler wrapped in every middleware.
 */
export class MethodTables {
  /** The methods a legacy session may call, as served. */
  legacy: MethodTable;
  /** The methods a modern request may call, as served. */
  modern: MethodTable;
  private own: { readonly legacy: MethodTable; readonly modern: MethodTable };
  private readonly chain: Middleware[] = [];

  constructor(legacy: MethodTable, modern: MethodTable) {
    this.own = { legacy, modern };
    this.legacy = legacy;
    this.modern = modern;
  }

  /** The tables as registered, before any middleware. */
  get registered(): { readonly legacy: MethodTable; readonly modern: MethodTable } {
    return this.own;
  }

  /** Registers new tables (a method added or answered otherwise); the middleware wraps them. */
  set(legacy: MethodTable, modern: MethodTable): void {
    this.own = { legacy, modern };
    const chain = this.chain;
    this.legacy = chain.length === 0 ? legacy : withMiddleware(legacy, chain);
    this.modern = chain.length === 0 ? modern : withMiddleware(modern, chain);
  }

  /** Adds `middleware` inside the middleware before it. */
  use(middleware: Middleware): void {
    this.chain.push(middleware);
    this.set(this.own.legacy, this.own.modern);
  }
}
