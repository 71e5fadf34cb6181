import { parse, GraphQLError } from 'graphql';
import type { MessageContext } from '../message-context.js';
import { PhaseResult, type GatewayPhase } from '../phase.js';

/** The GraphQL query of a call: POST JSON {query}, POST application/graphql, or GET ?query=. */
function queryOf(ctx: MessageContext, body: Buffer | null): string | null {
  if (ctx.method === 'GET') {
    const q = new URLSearchParams(ctx.query).get('query');
    return q;
  }
  if (body === null) return null;
  const ct = (ctx.header('content-type') ?? '').toLowerCase();
  if (ct.startsWith('application/graphql')) return body.toString('utf8');
  try {
    const j = JSON.parse(body.toString('utf8')) as { query?: unknown };
    return typeof j.query === 'string' ? j.query : null;
  } catch {
    return null;
  }
}

/**
 * GraphQL APIs (type = "GRAPHQL"): the query is parsed before any backend call; a syntax error answers
 * 900422 with 422. The request body is read whole for this (GraphQL requests are small).
 */
export class GraphqlQueryPhase implements GatewayPhase {
  readonly name = 'graphql-query';

  onRequest(ctx: MessageContext): PhaseResult {
    if (ctx.api?.def.type !== 'GRAPHQL') return PhaseResult.CONTINUE;
    const check = (): void => {
      if (ctx.finished) return;
      const q = queryOf(ctx, ctx.method === 'GET' ? null : ctx.bufferedBody());
      if (q === null) {
        ctx.raise(900422, { description: 'No GraphQL query in the request (a JSON body with "query", application/graphql, or ?query=)' });
        return;
      }
      try {
        parse(q);
      } catch (err) {
        ctx.raise(900422, { description: err instanceof GraphQLError ? `Syntax of the provided GraphQL query is invalid: ${err.message}` : 'Syntax of the provided GraphQL query is invalid' });
        return;
      }
      ctx.proceed();
    };
    if (ctx.method === 'GET') { check(); return PhaseResult.SUSPEND; }
    ctx.whenBodyComplete(check);
    return PhaseResult.SUSPEND;
  }
}
