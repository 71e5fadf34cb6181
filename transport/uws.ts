import { createRequire } from 'node:module';
import path from 'node:path';
import type * as UwsTypes from 'uWebSockets.js';

export type Uws = typeof UwsTypes;

/** Raised when the native uWebSockets.js binary cannot load and the slow fallback was not allowed. */
export class NativeUwsUnavailableError extends Error {
  readonly code = 'SLUICE_UWS_NATIVE_MISSING';
  constructor(override readonly cause: Error, readonly binary: string) {
    super(`the uWebSockets.js native binary did not load (${binary}): ${cause.message.split('\n')[0]}\n`
      + `Sluice refuses to run on the package's pure-JS fallback, which is many times slower.\n`
      + `The binary needs Node.js ABI ${process.versions.modules} on ${process.platform}-${process.arch} with glibc >= 2.36 (see native-notes.md).\n`
      + 'To run anyway on the fallback (tests, unusual platforms), set [passthru_http] allow_slow_fallback = true.');
    this.name = 'NativeUwsUnavailableError';
  }
}

const require = createRequire(import.meta.url);
let loaded: { uws: Uws; native: boolean } | undefined;

/**
 * Loads uWebSockets.js. The package's own entry point silently falls back to a slow JS server when the
 * binary fails; this loads the binary directly, so a failure is seen, and loads the fallback only when
 * the operator allowed it.
 */
/** The installed uWebSockets.js package's version (`sluice_build_info`), 'unknown' when it cannot be read. */
export function uwsVersion(): string {
  try {
    return (require('uWebSockets.js/package.json') as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export function loadUws(allowFallback: boolean): { uws: Uws; native: boolean } {
  if (loaded) return loaded;
  const pkgDir = path.dirname(require.resolve('uWebSockets.js/package.json'));
  const binary = path.join(pkgDir, 'binaries', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
  try {
    const uws = require(binary) as Uws;
    // The version mark header ("uWebSockets: 20") is not something a gateway should emit.
    uws._cfg('silent');
    loaded = { uws, native: true };
  } catch (err) {
    if (!allowFallback) throw new NativeUwsUnavailableError(err as Error, binary);
    loaded = { uws: require(path.join(pkgDir, 'dist', 'index.js')) as Uws, native: false };
  }
  return loaded;
}
