/** What a servlet handler answers: a status, headers and an optional body, written by the server. */
export interface Reply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string | number | readonly string[]>>;
  readonly body?: string | Buffer;
  /** Close the connection after this answer (no keep-alive). */
  readonly close?: boolean;
}

export function json(status: number, value: unknown, headers: Reply['headers'] = {}): Reply {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(value) };
}

export function text(status: number, body: string, headers: Reply['headers'] = {}): Reply {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers }, body };
}

export function empty(status: number, headers: Reply['headers'] = {}): Reply {
  return { status, headers };
}
