/**
 * Per io thread: the deployed sequences compiled to closures, by name. Built from the SequenceSet the main
 * thread posts (plain data), once per change; a reload builds a new registry and the io thread swaps one
 * reference, so calls in flight finish on the old one.
 */
import type { Logger } from 'pino';
import { SHIPPED_SEQUENCE_NAMES } from '../errors/fault-sequences.js';
import type { SequenceAst } from './ast.js';
import { defaultCodecs, type Codecs } from './codecs.js';
import { compileSequence, type CompiledSequence, type CompileOptions } from './compile.js';
import { BUILTIN_SEQUENCE_TEXT } from './defaults.js';
import type { MediationMessage } from './message.js';
import { parseSequence } from './parse.js';
import type { Outcome } from './outcome.js';

/** What the main thread posts to io threads: structured-clone safe. */
export interface SequenceSet {
  /** Increases with every change of the deployed set. */
  readonly generation: number;
  readonly sequences: readonly SequenceAst[];
}

export interface RegistryOptions {
  readonly logger?: Logger;
  readonly codecs?: Codecs;
  /** More header names the log mediator masks (CompileOptions.maskedHeaders). */
  readonly maskedHeaders?: readonly string[];
}

let builtinAsts: Map<string, SequenceAst> | undefined;

/** The built-in default of each shipped sequence, parsed once per thread on first use. */
export function builtinSequenceAsts(): ReadonlyMap<string, SequenceAst> {
  if (!builtinAsts) {
    builtinAsts = new Map();
    for (const name of SHIPPED_SEQUENCE_NAMES) builtinAsts.set(name, parseSequence(BUILTIN_SEQUENCE_TEXT[name], `builtin:${name}`));
  }
  return builtinAsts;
}

export class SequenceRegistry {
  private readonly compiled = new Map<string, CompiledSequence>();
  readonly logger: Logger | undefined;
  readonly codecs: Codecs;

  private constructor(readonly generation: number, options: RegistryOptions) {
    this.logger = options.logger;
    this.codecs = options.codecs ?? defaultCodecs();
  }

  /**
   * Compiles a deployed set. Shipped names missing from the set get their built-in default, so the fault
   * path always has its sequences.
   */
  static compile(set: SequenceSet, options: RegistryOptions = {}): SequenceRegistry {
    const reg = new SequenceRegistry(set.generation, options);
    const asts = new Map<string, SequenceAst>();
    for (const ast of set.sequences) asts.set(ast.name, ast);
    for (const [name, ast] of builtinSequenceAsts()) if (!asts.has(name)) asts.set(name, ast);
    const resolve = (name: string): CompiledSequence | undefined => reg.compiled.get(name);
    const compileOptions: CompileOptions = {
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.maskedHeaders ? { maskedHeaders: options.maskedHeaders } : {}),
    };
    for (const ast of asts.values()) {
      try {
        reg.compiled.set(ast.name, compileSequence(ast, resolve, compileOptions));
      } catch (err) {
        options.logger?.error({ component: 'mediation', sequence: ast.name, file: ast.file }, `sequence not compiled: ${(err as Error).message}`);
      }
    }
    return reg;
  }

  /** The shipped sequences only (built-in defaults): for tests, tools, and a gateway with no home. */
  static builtins(options: RegistryOptions = {}): SequenceRegistry {
    return SequenceRegistry.compile({ generation: 0, sequences: [] }, options);
  }

  get(name: string): CompiledSequence | undefined { return this.compiled.get(name); }
  has(name: string): boolean { return this.compiled.has(name); }
  names(): string[] { return [...this.compiled.keys()].sort(); }

  /**
   * Runs a sequence on a message. Throws MediationRuntimeError when a mediator fails (the gateway then raises
   * a fault), or an Error when the name is not deployed.
   */
  run(name: string, m: MediationMessage): Outcome {
    const seq = this.compiled.get(name);
    if (!seq) throw new Error(`sequence "${name}" is not deployed`);
    return seq(m);
  }
}
