/**
 * Mediation: Synapse-style XML sequences, parsed once at deploy time (main thread), compiled to closures per
 * io thread, and the fault path every error of the gateway goes through. See docs/mediation.md.
 *
 * Main thread:   SequenceRepository (load, watch) -> SequenceSet (plain data) -> postMessage
 * io thread:     SequenceRegistry.compile(set) -> renderFault / renderPreflight / registry.get(name)(message)
 */
export { parseSequence, sequenceParseCount } from './parse.js';
export { compileSequence, escapeJson, type CompiledSequence, type SequenceResolver, type CompileOptions } from './compile.js';
export { Outcome, outcomeName } from './outcome.js';
export { SequenceDeployError, MediationRuntimeError, UnsafeHeaderError, CodecLoadError } from './errors.js';
export { MediationMessage, HeaderMap, FACT_PROPERTIES, type CallFacts, type Direction, type PropertyValue, type MediatedResponse } from './message.js';
export { SequenceRegistry, builtinSequenceAsts, type SequenceSet, type RegistryOptions } from './registry.js';
export { SequenceRepository, findCycles, type RepositoryOptions, type WatchOptions, type SequenceWatcher } from './repository.js';
export { renderFault, renderPreflight, builtinFaultBody, type Fault, type FaultResponse } from './fault.js';
export { BUILTIN_SEQUENCE_TEXT } from './defaults.js';
export {
  Codecs, defaultCodecs, loadCodecs, familyOf, mediaTypeOf, BodyBuildError,
  type BuiltBody, type CodecSettings, type CodecModuleRef, type FormatSource,
} from './codecs.js';
export type { SequenceAst, MediatorAst, ExprAst } from './ast.js';
export { touchesBody } from './body-usage.js';
