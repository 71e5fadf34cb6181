import type { TokenRecord, TokenTable } from '../../store/index.js';

export type TokenSpace = 'access' | 'refresh';

/** Both token spaces, the hinted one first; an unknown hint is ignored (RFC 7009 §2.1, RFC 7662 §2.1). */
function searchOrder(hint: string | null): readonly TokenSpace[] {
  return hint === 'refresh_token' ? ['refresh', 'access'] : ['access', 'refresh'];
}

/** The token with this hash, as an access token or a refresh token, searched in the order of the hint. */
export async function findToken(tokens: TokenTable, hash: string, hint: string | null): Promise<{ row: TokenRecord; space: TokenSpace } | undefined> {
  for (const space of searchOrder(hint)) {
    const row = await (space === 'access' ? tokens.findByAccessHash(hash) : tokens.findByRefreshHash(hash));
    if (row) return { row, space };
  }
  return undefined;
}
