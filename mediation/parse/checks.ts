import type { ExprAst, ValueSource } from '../ast.js';
import { SequenceDeployError } from '../errors.js';
import { ExpressionError, parseExpression, wholeMatchRegex } from '../expression-parse.js';
import type { Element } from './source.js';

/** The checks of attributes and children that every mediator's parsing shares, and the error they throw. */
export class ElementChecks {
  constructor(private readonly file: string) {}

  error(line: number, element: string, reason: string, column?: number): SequenceDeployError {
    return new SequenceDeployError(this.file, line, element, reason, column);
  }

  noChildren(el: Element): void {
    const child = el.children.find((c) => c.local !== 'description');
    if (child) throw this.error(child.line, el.name, `<${el.name}> takes no child element (found <${child.name}>)`);
  }

  required(el: Element, attr: string): string {
    const v = el.attrs[attr];
    if (v === undefined || v.trim() === '') throw this.error(el.line, el.name, `missing required attribute ${attr}`, el.column);
    return v;
  }

  expression(el: Element, text: string, attr = 'expression'): ExprAst {
    try {
      return parseExpression(text);
    } catch (err) {
      if (err instanceof ExpressionError) throw this.error(el.line, el.name, `${attr}: ${err.message}`);
      throw err;
    }
  }

  /** `value` xor `expression`; `what` names the pair in messages. */
  valueSource(el: Element, required: boolean): ValueSource {
    const value = el.attrs['value'];
    const expression = el.attrs['expression'];
    if (value !== undefined && expression !== undefined) throw this.error(el.line, el.name, 'give value or expression, not both');
    if (expression !== undefined) {
      if (expression.trim() === '') throw this.error(el.line, el.name, 'expression is empty');
      return { expr: this.expression(el, expression), exprText: expression };
    }
    if (value !== undefined) return { value };
    if (required) throw this.error(el.line, el.name, 'missing required attribute value or expression', el.column);
    return {};
  }

  compileRegex(el: Element, regex: string): void {
    try {
      wholeMatchRegex(regex);
    } catch (err) {
      throw this.error(el.line, el.name, `regex "${regex}" is not valid: ${(err as Error).message}`);
    }
  }

  checkKey(key: string, el: Element, attr: string): void {
    if (key.startsWith('{') || key.startsWith('gov:') || key.startsWith('conf:')) {
      throw this.error(el.line, el.name, `${attr} "${key}": dynamic and registry keys are not supported; name a deployed sequence`);
    }
  }
}
