import crypto from 'node:crypto';
import type { Reply } from '../../servlet/index.js';

/**
 * The server-rendered pages of the authorization endpoint: sign-in, consent, and the error page for a
 * request that cannot be sent back to the application. Plain HTML with one small stylesheet: labelled
 * fields, errors next to the field they concern (aria-describedby, aria-invalid) and summarised in an
 * alert, the keyboard order of the document, no script. Every value written is escaped.
 */

const STYLE = `*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1b1f24;background:#f4f6f8}
main{max-width:26rem;margin:3rem auto;padding:2rem;background:#fff;border:1px solid #d0d7de;border-radius:8px}
h1{font-size:1.4rem;margin:0 0 1rem}label{display:block;font-weight:600;margin-top:1rem}
input[type=text],input[type=password]{width:100%;padding:.55rem;margin-top:.25rem;font:inherit;border:1px solid #8c959f;border-radius:4px}
input[aria-invalid=true]{border-color:#cf222e}.error{color:#cf222e;margin:.25rem 0 0}
.alert{border:1px solid #cf222e;background:#ffebe9;padding:.75rem;border-radius:4px}
button{margin-top:1.5rem;padding:.6rem 1.2rem;font:inherit;border-radius:4px;border:1px solid #1f6feb;background:#1f6feb;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1f6feb;margin-left:.5rem}
:focus-visible{outline:3px solid #0969da;outline-offset:2px}ul{padding-left:1.25rem}.muted{color:#57606a;font-size:.9rem}`;

const STYLE_HASH = crypto.createHash('sha256').update(STYLE).digest('base64');

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * Headers of every page: no caching, no framing, no script, and no referrer beyond this origin (the page's
 * URL carries the request). `same-origin` rather than `no-referrer`: under no-referrer browsers send
 * `Origin: null` with the page's own form, and the endpoint refuses that as cross-site.
 */
function pageHeaders(formAction: readonly string[]): Record<string, string> {
  const actions = ["'self'", ...formAction].join(' ');
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    pragma: 'no-cache',
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    // form-action also governs where the consent form's redirect may go (browsers apply it to the 303).
    'content-security-policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action ${actions}; frame-ancestors 'none'; base-uri 'none'`,
  };
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>
${body}
</main></body></html>
`;
}

export interface LoginPage {
  readonly action: string;
  readonly sealed: string;
  /** The application asking. */
  readonly application: string;
  readonly username?: string;
  readonly errors?: { readonly form?: string; readonly username?: string; readonly password?: string };
}

export function loginPage(p: LoginPage, extraHeaders: Record<string, string> = {}): Reply {
  const e = p.errors ?? {};
  const field = (name: 'username' | 'password', label: string, type: string, autocomplete: string, value: string): string => {
    const err = e[name];
    const focus = err || (!e.username && !e.password && name === 'username' && !value) || (name === 'password' && !!value && !e.username);
    return `<label for="${name}">${label}</label>
<input id="${name}" name="${name}" type="${type}" autocomplete="${autocomplete}" required${value ? ` value="${escapeHtml(value)}"` : ''}${err ? ` aria-invalid="true" aria-describedby="${name}-error"` : ''}${focus ? ' autofocus' : ''}>
${err ? `<p id="${name}-error" class="error">${escapeHtml(err)}</p>` : ''}`;
  };
  const summary = e.form ? `<div class="alert" role="alert"><p id="form-error" class="error">${escapeHtml(e.form)}</p></div>` : '';
  const body = `<h1>Sign in</h1>
<p><strong>${escapeHtml(p.application)}</strong> asks you to sign in.</p>
${summary}
<form method="post" action="${escapeHtml(p.action)}" novalidate>
<input type="hidden" name="step" value="login">
<input type="hidden" name="request" value="${escapeHtml(p.sealed)}">
${field('username', 'User name', 'text', 'username', p.username ?? '')}
${field('password', 'Password', 'password', 'current-password', '')}
<button type="submit">Sign in</button>
</form>`;
  return { status: 200, headers: { ...pageHeaders([]), ...extraHeaders }, body: page('Sign in', body) };
}

export interface ConsentPage {
  readonly action: string;
  readonly sealed: string;
  readonly application: string;
  readonly user: string;
  readonly scopes: readonly string[];
  /** Origin of the redirect URI: the consent form's answer goes there. */
  readonly redirectOrigin: string;
}

export function consentPage(p: ConsentPage): Reply {
  const shown = p.scopes.filter((s) => s !== 'default');
  const list = shown.length
    ? `<p>It asks for these permissions:</p><ul>${shown.map((s) => `<li>${escapeHtml(s)}</li>`).join('')}</ul>`
    : '<p>It asks for no particular permission.</p>';
  const body = `<h1>Allow access?</h1>
<p>You are signed in as <strong>${escapeHtml(p.user)}</strong>.</p>
<p><strong>${escapeHtml(p.application)}</strong> wants to act on your behalf.</p>
${list}
<form method="post" action="${escapeHtml(p.action)}">
<input type="hidden" name="step" value="consent">
<input type="hidden" name="consent" value="${escapeHtml(p.sealed)}">
<button type="submit" name="decision" value="allow" autofocus>Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`;
  return { status: 200, headers: pageHeaders(p.redirectOrigin ? [p.redirectOrigin] : []), body: page('Allow access?', body) };
}

/** An error that cannot go back to the application (RFC 6749 §4.1.2.1: never redirect to an unverified URI). */
export function errorPage(status: number, error: string, description: string): Reply {
  const body = `<h1>The sign-in request cannot be completed</h1>
<div class="alert" role="alert"><p class="error">${escapeHtml(description)}</p></div>
<p class="muted">Error: <code>${escapeHtml(error)}</code>. Go back to the application and start again; if this keeps happening, tell its administrator.</p>`;
  return { status, headers: pageHeaders([]), body: page('Sign-in error', body) };
}
