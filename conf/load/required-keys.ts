import type { CatalogIndex } from '../catalog/index.js';
import { elementsOf, type ItemValues } from '../config.js';
import type { Leaf, Report } from './leaf.js';

/**
 * A required key with no default is checked only where its section is in use: the catalog marks keys of
 * optional integrations (security audit, e-mail, third-party analytics) required for when they are set up.
 * A missing one is an error in a repeatable element (an element without its identity) and a warning in a
 * plain section.
 */
export function checkRequired(
  catalog: CatalogIndex, leaves: ReadonlyMap<string, Leaf>, values: Map<string, unknown>, items: Map<string, ItemValues[]>, report: Report,
): void {
  const wasWritten = (concretePath: string): boolean => leaves.has(concretePath);
  const sectionsInUse = new Set<string>();
  for (const leaf of leaves.values()) if (leaf.spec && !leaf.spec.repeatable) sectionsInUse.add(leaf.spec.section);
  for (const spec of catalog.all) {
    if (!spec.required || spec.default !== undefined || spec.computedDefault || spec.path.includes('<')) continue;
    // A required key inside an optional sub-table (virtual_host.https_endpoint) binds only where that
    // sub-table is written.
    const sub = spec.key.includes('.') ? spec.key.slice(0, spec.key.lastIndexOf('.') + 1) : '';
    if (spec.repeatable) {
      for (const { item, path } of elementsOf(items, spec.section)) {
        if (sub && !Object.keys(item).some((k) => k.startsWith(sub) && wasWritten(`${path}.${k}`))) continue;
        // Written with a wrong value: that error is already reported.
        if (!(spec.key in item) && !wasWritten(`${path}.${spec.key}`)) {
          report('error', sub ? `${path}.${sub.slice(0, -1)}` : path, `required key ${spec.key} is missing`);
        }
      }
    } else if (sectionsInUse.has(spec.section) && !values.has(spec.path)) {
      // Plain sections: the catalog marks keys required for set-ups Sluice may not use; say so, do not refuse.
      report('warning', spec.path, `the catalog lists this key as required and the [${spec.section}] section does not set it`);
    }
  }
}
