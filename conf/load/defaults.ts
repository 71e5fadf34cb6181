import type { CatalogIndex } from '../catalog/index.js';
import type { KeySpec } from '../catalog/types.js';
import { elementsOf, type ItemValues } from '../config.js';
import type { Report } from './leaf.js';

/** A default that depends on the machine (`computedDefault`), or undefined. */
export function computedDefault(spec: KeySpec, cpuCores: number): unknown {
  if (spec.computedDefault === 'cpu_cores') return cpuCores;
  return undefined;
}

/** Every key the file does not set gets the catalog's default, in each element of a repeatable section too. */
export function fillDefaults(catalog: CatalogIndex, values: Map<string, unknown>, items: Map<string, ItemValues[]>, cpuCores: number): void {
  for (const spec of catalog.all) {
    if (spec.path.includes('<')) continue;
    const d = spec.computedDefault ? computedDefault(spec, cpuCores) : spec.default;
    if (d === undefined) continue;
    if (spec.repeatable) {
      for (const { item } of elementsOf(items, spec.section)) if (!(spec.key in item)) item[spec.key] = structuredClone(d);
    } else if (!values.has(spec.path)) {
      values.set(spec.path, structuredClone(d));
    }
  }
}

/** `server.offset` shifts every port the catalog marks as one (written or default); a port pushed out of range is an error. */
export function applyOffset(catalog: CatalogIndex, values: Map<string, unknown>, offset: number, report: Report): void {
  if (offset === 0) return;
  const outside: string[] = [];
  for (const spec of catalog.all) {
    if (!spec.port || spec.repeatable) continue;
    const v = values.get(spec.path);
    if (typeof v !== 'number') continue;
    const shifted = v + offset;
    if (shifted > 65535 || shifted < 1) outside.push(`${spec.path} ${v} -> ${shifted}`);
    values.set(spec.path, shifted);
  }
  if (outside.length) {
    report('error', 'server.offset', `offset ${offset} moves ${outside.length === 1 ? 'a port' : `${outside.length} ports`} outside 1..65535: ${outside.join(', ')}`);
  }
}
