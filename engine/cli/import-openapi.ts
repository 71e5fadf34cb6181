import fs from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'smol-toml';
import { HomeLayout } from '../../conf/home.js';
import { SourceLocator } from '../../conf/source-locator.js';
import { parseApiDefinition } from '../registry/api-file.js';
import { checkApiFileList, declarativeFiles } from '../registry/check.js';
import { loadOpenApi, OpenApiError } from '../openapi/read-spec.js';
import { toApi, type ImportChoices } from '../openapi/to-api.js';
import { EXIT } from './exit-codes.js';

export interface ImportOpenApiOptions extends ImportChoices {
  readonly home: string;
  readonly spec: string;
  readonly force: boolean;
  readonly dryRun: boolean;
}

/**
 * `sluice import openapi`: the document becomes `<home>/repository/deployment/server/apis/<name>-<version>.toml`.
 * The file is checked with the parser hot deployment uses, and against the other API files, before it is
 * written; it is written beside as a dot file (which hot deployment skips) and renamed, so a running node
 * never reads half a file.
 */
export async function importOpenApiCommand(opts: ImportOpenApiOptions): Promise<number> {
  let text: string;
  let fileName: string;
  try {
    const spec = await loadOpenApi(opts.spec);
    const { api, notes } = toApi(spec, opts);
    for (const n of notes) process.stderr.write(`note: ${n}\n`);
    text = `# Imported by sluice import openapi from ${path.basename(spec.file)} (${spec.dialect === 'openapi-3' ? 'OpenAPI' : 'Swagger'} ${spec.specVersion}).\n`
      + '# Edit freely: this file is the API definition now (docs/declarative-files.md).\n'
      + stringify(api) + '\n';
    fileName = `${api.name}-${api.version}.toml`.replace(/[^A-Za-z0-9._-]+/g, '-');
    // What check-config and hot deployment will say about it.
    parseApiDefinition(parse(text) as Record<string, unknown>, fileName, new SourceLocator(text));
  } catch (err) {
    if (err instanceof OpenApiError || (err as { code?: string }).code === 'SLUICE_DECLARATIVE_FILE') {
      process.stderr.write(`sluice: not imported: ${(err as Error).message}\n`);
      return EXIT.INVALID;
    }
    throw err;
  }
  if (opts.dryRun) {
    process.stdout.write(text);
    return EXIT.OK;
  }
  const dir = new HomeLayout(opts.home).apisDir;
  const target = path.join(dir, fileName);
  if (fs.existsSync(target) && !opts.force) {
    process.stderr.write(`sluice: not imported: ${target} exists; --force overwrites it\n`);
    return EXIT.FAILURE;
  }
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${fileName}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, text);
  try {
    // The other files as they are, with this one last in place of the file it replaces: a clash is its own.
    const others = declarativeFiles(dir).filter((f) => path.basename(f) !== fileName);
    const check = checkApiFileList([...others, tmp]);
    const clash = [...check.errors, ...check.warnings].find((e) => e.includes(tmp));
    if (clash) throw new OpenApiError(clash.replace(tmp, target));
    fs.renameSync(tmp, target);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    if (err instanceof OpenApiError) { process.stderr.write(`sluice: not imported: ${err.message}\n`); return EXIT.INVALID; }
    throw err;
  }
  const count = (text.match(/^\[\[resources\]\]/gm) ?? []).length;
  process.stdout.write(`sluice: imported ${count} resource(s) into ${target}; a running node deploys it now (sluice check-config checks it)\n`);
  return EXIT.OK;
}
