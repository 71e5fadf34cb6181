/** The CLI's exit codes (README.md, "Commands"): one meaning each, whatever the command. */
export const EXIT = {
  OK: 0,
  /** The command ran and failed: start could not start, stop timed out, bench saw errors. */
  FAILURE: 1,
  /** A bad command line, or a configuration or file that is not valid. */
  INVALID: 2,
  /** stop or reload: no Sluice runs with that home. */
  NOT_RUNNING: 3,
  /** A bug: the only case that prints a stack trace (sysexits' EX_SOFTWARE). */
  INTERNAL: 70,
} as const;
