/**
 * The admin API's own errors (docs/admin-api.md): answered as JSON `{code, message, description}` by the
 * control plane, never through a fault sequence. Most are HTTP statuses raised where the request is judged
 * (AdminError in engine/controlplane/admin/); the ones below are raised by situation.
 */
export interface AdminApiErrorEntry {
  readonly name: string;
  readonly code: number;
  readonly status: number;
  readonly message: string;
  readonly when: string;
  /** Headers the answer carries. */
  readonly headers: Readonly<Record<string, string>>;
}

export const AdminApiError = {
  STORE_UNAVAILABLE: {
    name: 'STORE_UNAVAILABLE', code: 503, status: 503, message: 'the store is not available; retry later', headers: { 'retry-after': '5' },
    when: 'the store (SQLite or PostgreSQL) cannot be reached or written (a full disk, a lost connection); retry after 5 s',
  },
} as const satisfies Record<string, AdminApiErrorEntry>;
