/**
 * Errors of the mediation engine. Deploy-time problems (a sequence file that cannot be used) are
 * SequenceDeployError, located by file, line and element; problems while a compiled sequence runs are
 * MediationRuntimeError. Neither is ever shown to a client: a deploy error is logged and the previous
 * version stays deployed, a runtime error makes the caller fall back to the fault path.
 */

/** A sequence file that cannot be deployed. `line` is 1-based; 0 when the file as a whole is at fault. */
export class SequenceDeployError extends Error {
  readonly code = 'SLUICE_SEQUENCE_INVALID';
  constructor(
    readonly file: string,
    readonly line: number,
    /** The element at fault (`payloadFactory`, `filter`), or `''` for file-level problems. */
    readonly element: string,
    /** Why, without the location (the location is in `file`, `line`, `element`). */
    readonly reason: string,
    readonly column?: number,
  ) {
    super(formatLocation(file, line, column, element) + reason);
    this.name = 'SequenceDeployError';
  }
}

function formatLocation(file: string, line: number, column: number | undefined, element: string): string {
  let where = file;
  if (line > 0) where += `:${line}${column !== undefined ? `:${column}` : ''}`;
  return `${where}: ${element ? `<${element}>: ` : ''}`;
}

/**
 * A mediator that failed while a compiled sequence ran (a body that does not parse, a bad number). `cause`
 * keeps the error the mediator threw, when it was one of ours (an UnsafeHeaderError).
 */
export class MediationRuntimeError extends Error {
  readonly code = 'SLUICE_MEDIATION_FAILED';
  constructor(
    readonly sequence: string,
    readonly line: number,
    readonly element: string,
    readonly reason: string,
    cause?: unknown,
  ) {
    super(`sequence ${sequence}, line ${line}, <${element}>: ${reason}`, cause === undefined ? undefined : { cause });
    this.name = 'MediationRuntimeError';
  }

  /** The mediator tried to set a header name or value a head may not carry. */
  get unsafeHeader(): boolean {
    return this.cause instanceof UnsafeHeaderError;
  }
}

/**
 * A header name or value that mediation built and that no head may carry (CR, LF, NUL, another control but
 * HTAB, DEL, a character above U+00FF, a name that is not a token): refused where it is set, so it never
 * reaches a backend or a client (transport/field-values.ts). The message names the character, not the value.
 */
export class UnsafeHeaderError extends Error {
  readonly code = 'SLUICE_HEADER_UNSAFE';
  constructor(readonly header: string, readonly reason: string) {
    super(reason);
    this.name = 'UnsafeHeaderError';
  }
}

/** A custom message builder or formatter module that cannot be loaded or does not export what it must. */
export class CodecLoadError extends Error {
  readonly code = 'SLUICE_CODEC_INVALID';
  constructor(readonly contentType: string, readonly modulePath: string, readonly reason: string) {
    super(`message builder/formatter for ${contentType} (${modulePath}): ${reason}`);
    this.name = 'CodecLoadError';
  }
}
