import { parse, GraphQLError, Lexer, Source, TokenKind } from 'graphql';
import type { GraphqlView } from '../../../conf/views/security.js';
import { ApiHandlerError } from '../../../errors/api-handler.js';
import type { Call } from '../../kernel/call.js';
import { PhaseResult, type GatewayPhase } from '../../kernel/phase.js';

/** The GraphQL query of a call: POST JSON {query}, POST application/graphql, or GET ?query=. */
function queryOf(ctx: Call, body: Buffer | null): string | null {
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

/** graphql's messages quote the offending token, which may be most of the body: the fault quotes 200 characters. */
function excerpt(message: string): string {
  return message.length <= 200 ? message : `${message.slice(0, 200)}...`;
}

/**
 * Why a query is over [sluice.graphql]'s limits, or null. graphql's own lexer counts the tokens and the
 * nesting before the parser runs: the parser recurses once per level, and a query nested a few thousand
 * deep would exhaust the stack before its token limit stopped it.
 */
function overLimits(query: string, limits: GraphqlView): string | null {
  const lexer = new Lexer(new Source(query));
  let tokens = 0;
  let depth = 0;
  for (let tok = lexer.advance(); tok.kind !== TokenKind.EOF; tok = lexer.advance()) {
    if (++tokens > limits.maxTokens) return `it has more than ${limits.maxTokens} tokens ([sluice.graphql] max_tokens)`;
    const k = tok.kind;
    if (k === TokenKind.BRACE_L || k === TokenKind.BRACKET_L || k === TokenKind.PAREN_L) {
      if (++depth > limits.maxDepth) return `it is nested deeper than ${limits.maxDepth} levels ([sluice.graphql] max_depth)`;
    } else if (k === TokenKind.BRACE_R || k === TokenKind.BRACKET_R || k === TokenKind.PAREN_R) {
      depth--;
    }
  }
  return null;
}

/**
 * GraphQL APIs (type = "GRAPHQL"): the query is parsed before any backend call; a syntax error, or a query
 * over [sluice.graphql]'s token or depth limit, answers 900422 with 422. The request body is read whole for
 * this, up to [passthru_http] max_buffered_request_body_size (413 above it).
 */
export class GraphqlQueryPhase implements GatewayPhase {
  readonly name = 'graphql-query';

  constructor(private readonly limits: GraphqlView) {}

  onRequest(ctx: Call): PhaseResult {
    if (ctx.api?.def.type !== 'GRAPHQL') return PhaseResult.CONTINUE;
    const check = (): void => {
      if (ctx.finished) return;
      const q = queryOf(ctx, ctx.method === 'GET' ? null : ctx.bufferedBody());
      if (q === null) {
        ctx.raise(ApiHandlerError.GRAPHQL_INVALID_QUERY, { description: 'No GraphQL query in the request (a JSON body with "query", application/graphql, or ?query=)' });
        return;
      }
      try {
        const over = overLimits(q, this.limits);
        if (over !== null) {
          ctx.raise(ApiHandlerError.GRAPHQL_INVALID_QUERY, { description: `The GraphQL query is refused: ${over}` });
          return;
        }
        parse(q, { maxTokens: this.limits.maxTokens });
      } catch (err) {
        ctx.raise(ApiHandlerError.GRAPHQL_INVALID_QUERY, { description: err instanceof GraphQLError ? `Syntax of the provided GraphQL query is invalid: ${excerpt(err.message)}` : 'Syntax of the provided GraphQL query is invalid' });
        return;
      }
      ctx.proceed();
    };
    if (ctx.method === 'GET') { check(); return PhaseResult.SUSPEND; }
    ctx.whenBodyComplete(check);
    return PhaseResult.SUSPEND;
  }
}
