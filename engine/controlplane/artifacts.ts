import type { ApiRegistry } from '../registry/api-registry.js';
import type { ApplicationDefinition } from '../registry/types.js';
import { HttpError, json, type ServletServer } from '../servlet/index.js';
import type { ApimStore } from '../store/index.js';
import type { UserDirectory } from '../keymanager/users.js';
import { requireAdmin, requireHttps } from './auth.js';
import { ARTIFACT_KINDS, INTERNAL_BASE, type ArtifactKind, type ArtifactSnapshot } from './protocol.js';

/** An application as a gateway sees it: no secret hash (gateways never authenticate clients). */
export function withoutSecrets(app: ApplicationDefinition): ApplicationDefinition {
  return { ...app, keys: app.keys.map((k) => ({ ...k, clientSecretHash: '' })) };
}

/**
 * The runtime artifacts a gateway-worker deploys: the APIs this control plane serves (its API files and
 * the store's), applications with subscriptions, throttling policies and block conditions, and the access
 * tokens revoked and not yet expired. `revision` is read first: the follower replays every event after it,
 * and re-applying a change already in the snapshot is harmless.
 */
export async function artifactSnapshot(store: ApimStore, apis: ApiRegistry, kinds: ReadonlySet<ArtifactKind>): Promise<ArtifactSnapshot> {
  const revision = await store.events.last();
  const out: { -readonly [K in keyof ArtifactSnapshot]: ArtifactSnapshot[K] } = { revision };
  if (kinds.has('apis')) out.apis = await apis.fresh();
  if (kinds.has('applications')) out.applications = (await store.applications.list()).map(withoutSecrets);
  if (kinds.has('policies')) {
    out.policies = await store.policies.list();
    out.blockConditions = await store.policies.listBlockConditions();
  }
  if (kinds.has('revoked')) out.revokedTokens = await store.tokens.listInvalidUnexpired(Date.now());
  return out;
}

/** GET /internal/data/v1/runtime-artifacts[?kinds=apis,applications,policies,revoked] */
export function mountArtifacts(servlet: ServletServer, users: UserDirectory, store: ApimStore, apis: ApiRegistry): void {
  servlet.route('GET', `${INTERNAL_BASE}/runtime-artifacts`, async (req) => {
    requireHttps(req);
    await requireAdmin(req, users, 'Sluice event hub');
    const asked = req.query.get('kinds');
    const kinds = new Set<ArtifactKind>();
    for (const k of asked ? asked.split(',') : ARTIFACT_KINDS) {
      const kind = k.trim() as ArtifactKind;
      if (!ARTIFACT_KINDS.includes(kind)) throw new HttpError(400, `unknown artifact kind "${k}"; use ${ARTIFACT_KINDS.join(', ')}`);
      kinds.add(kind);
    }
    return json(200, await artifactSnapshot(store, apis, kinds), { 'cache-control': 'no-store' });
  }, { maxBodySize: 1024 });
}
