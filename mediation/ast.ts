/**
 * The deployed form of a sequence: plain, JSON-serialisable data (it survives structured clone, so the main
 * thread parses each file once and posts the result to every io thread, which compiles it to closures).
 * Every node carries the 1-based line of its element in the source file, for runtime error messages.
 */

/** An expression of the supported language (see docs/mediation.md), parsed at deploy time. */
export type ExprAst =
  /** `'text'` or `"text"`. */
  | { readonly k: 'lit'; readonly v: string }
  /** A number literal (in comparisons: `$ctx:n = 3`). */
  | { readonly k: 'num'; readonly v: number }
  /** `get-property(...)`, `$ctx:`, `$axis2:`, `$trp:`. */
  | { readonly k: 'prop'; readonly scope: PropertyScope; readonly name: string }
  /** `get-property('SYSTEM_DATE', 'yyyy-MM-dd')`: the date in a SimpleDateFormat-style pattern. */
  | { readonly k: 'date'; readonly format: string }
  /** `json-eval($.a[0].b)` (or an arg with evaluator="json"): steps are names and indexes from the root. */
  | { readonly k: 'json'; readonly path: readonly (string | number)[]; readonly src: string }
  | { readonly k: 'concat'; readonly args: readonly ExprAst[] }
  /** Boolean-valued: `boolean(e)`, `not(e)`, `a = b`, `a != b`, `a and b`, `a or b`, `true()`, `false()`. */
  | { readonly k: 'boolean'; readonly e: ExprAst }
  | { readonly k: 'not'; readonly e: ExprAst }
  | { readonly k: 'cmp'; readonly op: '=' | '!='; readonly a: ExprAst; readonly b: ExprAst }
  | { readonly k: 'and' | 'or'; readonly a: ExprAst; readonly b: ExprAst }
  | { readonly k: 'const'; readonly v: boolean };

export type PropertyScope = 'default' | 'axis2' | 'transport';

export type PropertyType = 'STRING' | 'INTEGER' | 'LONG' | 'SHORT' | 'DOUBLE' | 'FLOAT' | 'BOOLEAN';

/** A literal value or an expression: exactly one is set. */
export interface ValueSource {
  readonly value?: string;
  readonly expr?: ExprAst;
  /** The expression as written, for messages. */
  readonly exprText?: string;
}

export interface PropertyAst extends ValueSource {
  readonly kind: 'property';
  readonly line: number;
  readonly name: string;
  readonly action: 'set' | 'remove';
  readonly scope: PropertyScope;
  readonly type: PropertyType;
}

export interface PayloadArgAst extends ValueSource {
  readonly line: number;
  /** `evaluator="json"` (or a json-eval expression): a JSON-shaped result is inserted as JSON. */
  readonly json: boolean;
  /** `literal="true"`: the result is a string even when it looks like JSON or XML. */
  readonly literal: boolean;
}

export interface PayloadFactoryAst {
  readonly kind: 'payloadFactory';
  readonly line: number;
  readonly mediaType: 'json' | 'xml' | 'text';
  /** The format split at its `$n` placeholders: `parts.length === slots.length + 1`. */
  readonly parts: readonly string[];
  /** 0-based index into `args` for each placeholder. */
  readonly slots: readonly number[];
  readonly args: readonly PayloadArgAst[];
  /** An xml format whose root is a SOAP envelope: the result replaces the envelope (text/xml or soap+xml). */
  readonly soapEnvelope: '11' | '12' | null;
}

export interface HeaderAst extends ValueSource {
  readonly kind: 'header';
  readonly line: number;
  readonly name: string;
  readonly action: 'set' | 'remove';
  /** false for WS-Addressing names (To, Action, ...) in the default scope: accepted, no effect. */
  readonly effective: boolean;
}

export interface LogPropertyAst extends ValueSource {
  readonly name: string;
}

export interface LogAst {
  readonly kind: 'log';
  readonly line: number;
  readonly level: 'simple' | 'custom' | 'headers' | 'full';
  readonly category: 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'FATAL';
  readonly separator: string;
  readonly properties: readonly LogPropertyAst[];
}

export interface FilterAst {
  readonly kind: 'filter';
  readonly line: number;
  /** source + regex (a whole-string match, as the reference's Matcher.matches()), or a boolean `xpath`. */
  readonly source?: ExprAst;
  readonly regex?: string;
  readonly condition?: ExprAst;
  readonly then: readonly MediatorAst[];
  readonly else: readonly MediatorAst[];
}

export interface SwitchCaseAst {
  readonly line: number;
  readonly regex: string;
  readonly body: readonly MediatorAst[];
}

export interface SwitchAst {
  readonly kind: 'switch';
  readonly line: number;
  readonly source: ExprAst;
  readonly cases: readonly SwitchCaseAst[];
  readonly default: readonly MediatorAst[];
}

export interface SequenceRefAst {
  readonly kind: 'sequence';
  readonly line: number;
  readonly key: string;
}

export interface SimpleAst {
  readonly kind: 'respond' | 'send' | 'drop' | 'loopback';
  readonly line: number;
}

export interface MakefaultAst {
  readonly kind: 'makefault';
  readonly line: number;
  readonly version: 'soap11' | 'soap12' | 'pox';
  /** Fault code as written (`soap11Env:Client`): the local part is used. */
  readonly code: string;
  readonly reason: ValueSource;
  /** Detail: literal text, an expression, or raw XML children (`xml`). */
  readonly detail?: ValueSource & { readonly xml?: string };
}

export interface FlowAst {
  readonly kind: 'in' | 'out';
  readonly line: number;
  readonly body: readonly MediatorAst[];
}

export type MediatorAst =
  | PropertyAst
  | PayloadFactoryAst
  | HeaderAst
  | LogAst
  | FilterAst
  | SwitchAst
  | SequenceRefAst
  | SimpleAst
  | MakefaultAst
  | FlowAst;

export interface SequenceAst {
  readonly name: string;
  /** The file it came from (absolute path, or `builtin:<name>` for a built-in default). */
  readonly file: string;
  readonly line: number;
  /** Sequence run when a mediator of this one fails at run time (`onError`). */
  readonly onError: string | null;
  readonly body: readonly MediatorAst[];
  /** Names this sequence calls (`sequence key`, `onError`), for the deploy-time checks. */
  readonly refs: readonly string[];
}
